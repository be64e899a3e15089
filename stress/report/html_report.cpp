#include "stress/report/html_report.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

#include <cctype>
#include <fstream>
#include <sstream>

namespace lather {
namespace {

constexpr char kStyle[] = R"CSS(
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 980px; padding: 16px; background: #fff; color: #1b1b1b;
       font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
h1 { font-size: 1.45em; margin: 0 0 4px; overflow-wrap: anywhere; }
.subtitle { color: #555; margin: 0 0 12px; overflow-wrap: anywhere; }
h2 { font-size: 1.15em; border-bottom: 1px solid #ddd; padding-bottom: 4px; margin: 26px 0 8px; }
p { margin: 6px 0; overflow-wrap: anywhere; }
p.verdict { background: #f3f6fa; border-left: 4px solid #1f5fa8; padding: 8px 12px; }
.table-wrap { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 6px 0 14px; font-size: 0.92em; }
caption { text-align: left; font-weight: 600; padding: 2px 0 4px; }
th, td { text-align: left; padding: 3px 12px 3px 0; border-bottom: 1px solid #eee; vertical-align: top; }
td { overflow-wrap: anywhere; font-variant-numeric: tabular-nums; }
figure { margin: 10px 0 22px; break-inside: avoid; }
figcaption { font-weight: 600; margin-bottom: 4px; }
.plot { width: 100%; }
.plot svg { display: block; width: 100%; height: auto; }
.note { color: #555; font-size: 0.9em; margin-top: 4px; }
.legend { font-size: 0.9em; margin-top: 2px; }
.legend span { display: inline-block; margin-right: 14px; overflow-wrap: anywhere; }
.legend i { display: inline-block; width: 14px; height: 3px; margin-right: 5px; vertical-align: middle; }
svg text { font-size: 11px; fill: #333; }
svg .grid { stroke: #e7e7e7; stroke-width: 1; }
svg .axis { stroke: #888; stroke-width: 1; }
svg .series { fill: none; stroke-width: 2; }
svg .whisker { stroke: #222; stroke-width: 1.5; }
@media (max-width: 480px) {
  body { padding: 10px; font-size: 14px; }
  th, td { padding-right: 8px; }
}
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  h2 { break-after: avoid; }
  p.verdict { border: 1px solid #999; }
}
)CSS";

// The page's drawing code: reads the charts' data from #lather-charts and draws each as inline SVG; marks
// <body> with data-lather-rendered="ok" (or data-lather-error) so that a browser test can tell.
constexpr char kScript[] = R"JS(
(function () {
  'use strict';
  var NS = 'http://www.w3.org/2000/svg';
  var COLORS = ['#1f5fa8', '#c2571a', '#2e8b3e', '#8a3ab9', '#a07800', '#c0392b', '#17808a', '#555555'];
  var charts = JSON.parse(document.getElementById('lather-charts').textContent);

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function label(parent, x, y, s, anchor, extra) {
    var attrs = {x: x, y: y, 'text-anchor': anchor || 'start'};
    for (var k in extra || {}) attrs[k] = extra[k];
    var t = el('text', attrs, parent);
    t.textContent = s;
    return t;
  }
  function niceStep(range, count) {
    var raw = range / Math.max(1, count);
    var mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
  }
  function fmt(v) {
    var a = Math.abs(v);
    if (a === 0) return '0';
    if (a >= 1e6) return +(v / 1e6).toFixed(a >= 1e7 ? 0 : 1) + 'M';
    if (a >= 1e4) return +(v / 1e3).toFixed(a >= 1e5 ? 0 : 1) + 'k';
    if (a >= 100) return v.toFixed(0);
    if (a >= 10) return String(+v.toFixed(1));
    if (a >= 1) return String(+v.toFixed(2));
    return String(+v.toPrecision(2));
  }
  function oneIn(n) {
    if (n <= 1) return '0%';
    var digits = Math.max(0, Math.round(Math.log10(n)) - 2);
    return (100 - 100 / n).toFixed(digits) + '%';
  }
  function size(plot, rows) {
    var w = Math.round(plot.getBoundingClientRect().width) || 640;
    w = Math.max(240, Math.min(w, 960));
    var h = rows ? rows : Math.round(Math.max(190, Math.min(320, w * 0.52)));
    return {w: w, h: h};
  }
  function legend(fig, series) {
    var old = fig.querySelector('.legend');
    if (old) old.remove();
    if (series.length < 2) return;
    var box = document.createElement('div');
    box.className = 'legend';
    series.forEach(function (s, i) {
      var item = document.createElement('span');
      var swatch = document.createElement('i');
      swatch.style.background = COLORS[i % COLORS.length];
      item.appendChild(swatch);
      item.appendChild(document.createTextNode(s.name));
      box.appendChild(item);
    });
    fig.querySelector('.plot').after(box);
  }

  function drawXY(fig, c) {
    var plot = fig.querySelector('.plot');
    plot.textContent = '';
    var spectrum = c.kind === 'spectrum', logX = spectrum || c.log_x;
    var series = c.series.map(function (s) {
      return {name: s.name, points: s.points.map(function (p) {
        return [spectrum ? 1 / (1 - p[0] / 100) : p[0], p[1]];
      }).filter(function (p) { return isFinite(p[0]) && isFinite(p[1]) && (!logX || p[0] > 0); })};
    });
    var xs = [], ys = [];
    series.forEach(function (s) { s.points.forEach(function (p) { xs.push(p[0]); ys.push(p[1]); }); });
    var d = size(plot), W = d.w, H = d.h, m = {l: 50, r: 22, t: 10, b: 42};
    var svg = el('svg', {viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, role: 'img',
                         'aria-label': c.title, 'data-chart': c.id}, plot);
    if (xs.length === 0) {
      label(svg, W / 2, H / 2, 'no data', 'middle');
      return;
    }
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    if (logX) {
      x0 = spectrum ? 1 : Math.pow(10, Math.floor(Math.log10(x0)));
      x1 = Math.pow(10, Math.max(1, Math.ceil(Math.log10(x1))));
    } else {
      if (c.x_from_zero) x0 = Math.min(0, x0);
      if (x1 === x0) { x0 -= 1; x1 += 1; }
    }
    var integral = xs.every(function (v) { return Math.round(v) === v; });
    var yTop = c.y_max > 0 ? c.y_max : Math.max.apply(null, ys) * 1.08;
    if (!(yTop > 0)) yTop = 1;
    var yStep = niceStep(yTop, 5);
    yTop = Math.ceil(yTop / yStep - 1e-9) * yStep;
    var pw = W - m.l - m.r, ph = H - m.t - m.b;
    function X(v) {
      var f = logX ? (Math.log10(v) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0)) : (v - x0) / (x1 - x0);
      return m.l + f * pw;
    }
    function Y(v) { return m.t + ph - v / yTop * ph; }
    for (var y = 0; y <= yTop + yStep / 2; y += yStep) {
      el('line', {x1: m.l, x2: W - m.r, y1: Y(y), y2: Y(y), 'class': 'grid'}, svg);
      label(svg, m.l - 5, Y(y) + 4, fmt(y), 'end');
    }
    if (logX) {
      for (var x = x0; x <= x1 * 1.0001; x *= 10) {
        el('line', {x1: X(x), x2: X(x), y1: m.t, y2: m.t + ph, 'class': 'grid'}, svg);
        label(svg, X(x), m.t + ph + 15, spectrum ? oneIn(x) : fmt(x), x * 10 > x1 * 1.0001 ? 'end' : 'middle');
      }
    } else {
      var xStep = niceStep(x1 - x0, Math.max(2, Math.floor(pw / 70)));
      if (integral) xStep = Math.max(1, xStep);
      for (var t = Math.ceil(x0 / xStep) * xStep; t <= x1 + xStep / 1e6; t += xStep) {
        el('line', {x1: X(t), x2: X(t), y1: m.t + ph, y2: m.t + ph + 4, 'class': 'axis'}, svg);
        label(svg, X(t), m.t + ph + 15, fmt(t), 'middle');
      }
    }
    el('line', {x1: m.l, x2: W - m.r, y1: m.t + ph, y2: m.t + ph, 'class': 'axis'}, svg);
    el('line', {x1: m.l, x2: m.l, y1: m.t, y2: m.t + ph, 'class': 'axis'}, svg);
    label(svg, m.l + pw / 2, H - 6, c.x_label, 'middle');
    label(svg, 12, m.t + ph / 2, c.y_label, 'middle', {transform: 'rotate(-90 12 ' + (m.t + ph / 2) + ')'});
    series.forEach(function (s, i) {
      var color = COLORS[i % COLORS.length];
      var pts = s.points.map(function (p) { return X(p[0]).toFixed(1) + ',' + Y(p[1]).toFixed(1); });
      el('polyline', {points: pts.join(' '), 'class': 'series', stroke: color, 'data-points': s.points.length,
                      'data-series': i}, svg);
      if (s.points.length <= 120) {
        s.points.forEach(function (p) {
          var dot = el('circle', {cx: X(p[0]).toFixed(1), cy: Y(p[1]).toFixed(1), r: 2.2, fill: color}, svg);
          var tip = el('title', {}, dot);
          tip.textContent = s.name + ': ' + (spectrum ? oneIn(p[0]) : fmt(p[0])) + ' → ' + fmt(p[1]);
        });
      }
    });
    legend(fig, series);
  }

  function drawBars(fig, c) {
    var plot = fig.querySelector('.plot');
    plot.textContent = '';
    var row = 40, d = size(plot, c.bars.length * row + 30), W = d.w, H = d.h, m = {l: 8, r: 70};
    var svg = el('svg', {viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, role: 'img',
                         'aria-label': c.title, 'data-chart': c.id}, plot);
    var top = c.y_max > 0 ? c.y_max : 0;
    c.bars.forEach(function (b) { top = Math.max(top, b.value, b.high); });
    if (!(top > 0)) top = 1;
    var pw = W - m.l - m.r;
    function X(v) { return m.l + Math.max(0, v) / top * pw; }
    c.bars.forEach(function (b, i) {
      var y = i * row;
      label(svg, m.l, y + 12, b.name, 'start');
      var bar = el('rect', {x: m.l, y: y + 16, width: Math.max(1, X(b.value) - m.l).toFixed(1), height: 14,
                            fill: COLORS[i % COLORS.length], 'class': 'bar', 'data-value': b.value}, svg);
      var tip = el('title', {}, bar);
      tip.textContent = b.name + ': ' + (b.label || fmt(b.value));
      if (b.low >= 0 && b.high >= 0) {
        el('line', {x1: X(b.low), x2: X(b.high), y1: y + 23, y2: y + 23, 'class': 'whisker'}, svg);
        el('line', {x1: X(b.low), x2: X(b.low), y1: y + 18, y2: y + 28, 'class': 'whisker'}, svg);
        el('line', {x1: X(b.high), x2: X(b.high), y1: y + 18, y2: y + 28, 'class': 'whisker'}, svg);
      }
      label(svg, Math.max(X(b.value), b.high >= 0 ? X(b.high) : 0) + 5, y + 27, b.label || fmt(b.value), 'start');
    });
    el('line', {x1: m.l, x2: m.l, y1: 12, y2: H - 18, 'class': 'axis'}, svg);
  }

  function drawAll() {
    var drawn = 0;
    document.querySelectorAll('figure[data-chart]').forEach(function (fig) {
      var c = charts[fig.getAttribute('data-chart')];
      if (!c) return;
      if (c.kind === 'bars') drawBars(fig, c); else drawXY(fig, c);
      ++drawn;
    });
    // Where each chart is on the page (CSS pixels), for scripts that cut screenshots (scripts/report-screenshots).
    document.querySelectorAll('figure[data-chart]').forEach(function (fig) {
      var r = fig.getBoundingClientRect();
      fig.setAttribute('data-lather-box', [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height]
                       .map(function (v) { return Math.round(v); }).join(','));
    });
    document.body.setAttribute('data-lather-height', String(document.documentElement.scrollHeight));
    document.body.setAttribute('data-lather-charts', String(drawn));
    document.body.setAttribute('data-lather-overflow',
                               document.documentElement.scrollWidth > window.innerWidth + 1 ? 'yes' : 'no');
    // What the browser fetched for this page besides the page itself: nothing, by design.
    var fetched = window.performance && performance.getEntriesByType ? performance.getEntriesByType('resource').length : -1;
    document.body.setAttribute('data-lather-resources', String(fetched));
    document.body.setAttribute('data-lather-rendered', 'ok');
  }

  window.addEventListener('error', function (e) {
    document.body.setAttribute('data-lather-error', String(e.message));
  });
  try {
    drawAll();
  } catch (e) {
    document.body.setAttribute('data-lather-error', String(e && e.message));
    throw e;
  }
  var pending = 0;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(drawAll, 150);
  });
  window.addEventListener('beforeprint', drawAll);
})();
)JS";

const char* KindName(Chart::Kind kind) {
  switch (kind) {
    case Chart::Kind::kLines: return "lines";
    case Chart::Kind::kSpectrum: return "spectrum";
    case Chart::Kind::kBars: return "bars";
  }
  return "lines";
}

Poco::JSON::Object ChartJson(const Chart& c) {
  using Poco::JSON::Array;
  Poco::JSON::Object o(Poco::JSON_PRESERVE_KEY_ORDER);
  o.set("id", c.id);
  o.set("kind", KindName(c.kind));
  o.set("title", c.title);
  o.set("x_label", c.x_label);
  o.set("y_label", c.y_label);
  o.set("log_x", c.log_x);
  o.set("x_from_zero", c.x_from_zero);
  o.set("y_max", c.y_max);
  Array series;
  for (const ChartSeries& s : c.series) {
    Poco::JSON::Object one(Poco::JSON_PRESERVE_KEY_ORDER);
    one.set("name", s.name);
    Array points;
    for (const auto& [x, y] : s.points) {
      Array point;
      point.add(x);
      point.add(y);
      points.add(point);
    }
    one.set("points", points);
    series.add(one);
  }
  o.set("series", series);
  Array bars;
  for (const ChartBar& b : c.bars) {
    Poco::JSON::Object one(Poco::JSON_PRESERVE_KEY_ORDER);
    one.set("name", b.name);
    one.set("value", b.value);
    one.set("low", b.low);
    one.set("high", b.high);
    one.set("label", b.label);
    bars.add(one);
  }
  o.set("bars", bars);
  return o;
}

// JSON made safe inside <script>: no '<', '>' or '&' can end the element or start markup.
std::string ScriptSafe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (char ch : json) {
    if (ch == '<') {
      out += "\\u003c";
    } else if (ch == '>') {
      out += "\\u003e";
    } else if (ch == '&') {
      out += "\\u0026";
    } else {
      out += ch;
    }
  }
  return out;
}

// An id made only of letters, digits and '-'.
std::string SafeId(const std::string& id) {
  std::string out;
  for (char ch : id) out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-') ? ch : '-';
  return out.empty() ? "chart" : out;
}

void RenderTable(const Table& t, std::ostringstream& os) {
  os << "<div class=\"table-wrap\"><table>";
  if (!t.title.empty()) os << "<caption>" << EscapeHtml(t.title) << "</caption>";
  if (!t.header.empty()) {
    os << "<thead><tr>";
    for (const std::string& h : t.header) os << "<th>" << EscapeHtml(h) << "</th>";
    os << "</tr></thead>";
  }
  os << "<tbody>";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    os << "<tr>";
    for (size_t c = 0; c < t.rows[r].size(); ++c) {
      const bool head = c == 0 && t.header.empty();
      os << (head ? "<th" : "<td");
      if (r < t.figures.size() && c < t.figures[r].size() && !t.figures[r][c].first.empty()) {
        os << " data-figure=\"" << EscapeHtml(t.figures[r][c].first) << "\" data-value=\""
           << EscapeHtml(t.figures[r][c].second) << "\"";
      }
      os << ">" << EscapeHtml(t.rows[r][c]) << (head ? "</th>" : "</td>");
    }
    os << "</tr>";
  }
  os << "</tbody></table></div>\n";
}

}  // namespace

std::string EscapeHtml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string RenderHtml(const HtmlDocument& d) {
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
     << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
     // Nothing may be loaded from anywhere: the page is all there is.
     << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:\">\n"
     << "<title>" << EscapeHtml(d.title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  os << "<h1>" << EscapeHtml(d.title) << "</h1>\n";
  if (!d.subtitle.empty()) os << "<p class=\"subtitle\">" << EscapeHtml(d.subtitle) << "</p>\n";
  Poco::JSON::Object charts(Poco::JSON_PRESERVE_KEY_ORDER);
  int index = 0;
  for (const Section& s : d.sections) {
    os << "<section>\n<h2>" << EscapeHtml(s.title) << "</h2>\n";
    if (!s.highlight.empty()) os << "<p class=\"verdict\">" << EscapeHtml(s.highlight) << "</p>\n";
    for (const std::string& p : s.paragraphs) os << "<p>" << EscapeHtml(p) << "</p>\n";
    for (const Table& t : s.tables) RenderTable(t, os);
    for (const Chart& c : s.charts) {
      Chart safe = c;
      safe.id = SafeId(c.id) + "-" + std::to_string(index++);
      charts.set(safe.id, ChartJson(safe));
      os << "<figure data-chart=\"" << safe.id << "\" data-kind=\"" << KindName(c.kind) << "\"><figcaption>"
         << EscapeHtml(c.title) << "</figcaption><div class=\"plot\"></div>";
      if (!c.note.empty()) os << "<p class=\"note\">" << EscapeHtml(c.note) << "</p>";
      os << "<noscript>(the chart is drawn by the page's script)</noscript></figure>\n";
    }
    os << "</section>\n";
  }
  std::ostringstream json;
  charts.stringify(json);
  os << "<script type=\"application/json\" id=\"lather-charts\">" << ScriptSafe(json.str()) << "</script>\n"
     << "<script>" << kScript << "</script>\n</body>\n</html>\n";
  return os.str();
}

Status WriteHtml(const HtmlDocument& document, const std::string& path) {
  std::ofstream out(path);
  out << RenderHtml(document);
  out.close();
  if (!out) return Status::IOError("cannot write " + path);
  return Status::Ok();
}

}  // namespace lather
