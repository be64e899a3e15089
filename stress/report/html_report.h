// HtmlReport: one self-contained HTML page from a data model of sections, tables and charts (line charts,
// HdrHistogram's percentile spectrum on a "1 in N" axis, bars with ranges). The page needs nothing from any
// host: its style and its drawing code (inline SVG made by the page's own script) are inside it, and every
// string of the model is escaped (text as HTML, chart data as JSON inside a script element that cannot be
// closed early). Light background, readable printed (@media print) and at a phone's width. Builders (a
// run's report in run_html.h; compare and sweep) fill the model; nothing else writes HTML.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace lather {

// A line of points (x, y) of a chart, drawn in its own colour and named in the legend.
struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;
};

// One bar: its value and, when both are >= 0, the range low..high drawn as a whisker (compare's rounds).
struct ChartBar {
  std::string name;
  double value = 0;
  double low = -1, high = -1;
  std::string label;  // text beside the bar; "" shows the value
};

struct Chart {
  enum class Kind {
    kLines,     // series over a linear (or log_x) x axis
    kSpectrum,  // series of (percentile 0..100, value): x drawn as 1 / (1 - percentile / 100), logarithmic
    kBars,      // horizontal bars, one per ChartBar
  };
  Kind kind = Kind::kLines;
  std::string id;         // unique in the page; letters, digits and '-'
  std::string title;
  std::string x_label, y_label;
  bool log_x = false;     // kLines: a logarithmic x axis
  bool x_from_zero = false;  // kLines, linear: the x axis starts at 0 (else at the smallest x)
  double y_max = 0;       // the top of the y axis (bars: of the value axis); 0 from the data
  std::vector<ChartSeries> series;
  std::vector<ChartBar> bars;
  std::string note;       // a sentence under the chart; "" none
};

struct Table {
  std::string title;      // "" none
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // Optional machine-readable values (figure name, value) put on the cells as data attributes: cell [r][c]
  // gets data-figure and data-value when figures[r][c].first is not empty. Empty, or shaped as rows.
  std::vector<std::vector<std::pair<std::string, std::string>>> figures;
};

struct Section {
  std::string title;
  std::string highlight;  // a paragraph set apart before the others (a verdict); "" none
  std::vector<std::string> paragraphs;
  std::vector<Table> tables;
  std::vector<Chart> charts;
};

struct HtmlDocument {
  std::string title;
  std::string subtitle;
  std::vector<Section> sections;
};

// The page.
std::string RenderHtml(const HtmlDocument& document);

// Writes RenderHtml() to `path`; IOError naming the path when it cannot.
Status WriteHtml(const HtmlDocument& document, const std::string& path);

// Text escaped for HTML content and attribute values (& < > " ').
std::string EscapeHtml(const std::string& text);

}  // namespace lather
