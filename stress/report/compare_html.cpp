#include "stress/report/compare_html.h"

#include <algorithm>
#include <cstdio>

#include "stress/report/run_html.h"
#include "stress/report/units.h"

namespace lather {
namespace {

std::string Us(double seconds) {
  if (seconds < 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", seconds * 1e6);
  return text;
}

std::string Times(double a, double b) {
  if (a < 0 || b <= 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", a / b);
  return text;
}

}  // namespace

HtmlDocument CompareDocument(const std::vector<CompareTarget>& targets, int rounds) {
  HtmlDocument doc;
  doc.title = "lather-stress compare";
  std::vector<CompareRow> rows;
  for (const CompareTarget& t : targets) rows.push_back(SummarizeTarget(t));
  if (targets.empty() || targets[0].runs.empty()) return doc;
  const StressSettings& s = targets[0].runs.front().settings;
  doc.subtitle = std::to_string(targets.size()) + " targets x " + std::to_string(rounds) +
                 " interleaved rounds; op " + s.op + ", " + std::to_string(s.connections) + " connections, " +
                 (s.total_calls > 0 ? WithThousands(static_cast<double>(s.total_calls)) + " calls"
                                    : WithThousands(s.duration_seconds) + " s") + " each";

  Section summary;
  summary.title = "Targets";
  Table table;
  table.header = {"target", "URL", "calls/s median", "range", "x first", "mean latency", "p99", "p99 x first",
                  "bytes/call", "client us/call", "server us/call", "failed", "limit"};
  Chart rate;
  rate.kind = Chart::Kind::kBars;
  rate.id = "compare-rate";
  rate.title = "calls/s (median of the rounds, whiskers: lowest and highest round)";
  rate.x_label = "calls/s";
  Chart p99;
  p99.kind = Chart::Kind::kBars;
  p99.id = "compare-p99";
  p99.title = "p99 latency, ms (median of the rounds, whiskers: lowest and highest round)";
  p99.x_label = "ms";
  Chart spectrum;
  spectrum.kind = Chart::Kind::kSpectrum;
  spectrum.id = "compare-spectrum";
  spectrum.title = "latency by percentile, each target's median round";
  spectrum.x_label = "percentile";
  spectrum.y_label = "ms";
  for (size_t i = 0; i < targets.size(); ++i) {
    const CompareRow& r = rows[i];
    table.rows.push_back({r.name, targets[i].url, WithThousands(r.calls_per_second),
                          WithThousands(r.min_calls_per_second) + " - " + WithThousands(r.max_calls_per_second),
                          Times(r.calls_per_second, rows[0].calls_per_second),
                          FormatNanos(r.mean_latency_seconds * 1e9), FormatNanos(r.p99_seconds * 1e9),
                          Times(r.p99_seconds, rows[0].p99_seconds), WithThousands(r.wire_bytes_per_call),
                          Us(r.client_cpu_per_call), Us(r.server_cpu_per_call),
                          WithThousands(static_cast<double>(r.failed)), r.limit});
    ChartBar bar;
    bar.name = r.name;
    bar.value = r.calls_per_second;
    bar.low = r.min_calls_per_second;
    bar.high = r.max_calls_per_second;
    rate.bars.push_back(bar);
    double lo = 1e300, hi = 0;
    for (const RunReport& run : targets[i].runs) {
      const double v = static_cast<double>(run.load.total.latency.ValueAtPercentile(99)) / 1e6;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    ChartBar tail;
    tail.name = r.name;
    tail.value = r.p99_seconds * 1e3;
    tail.low = lo;
    tail.high = hi;
    p99.bars.push_back(tail);
    spectrum.series.push_back(SpectrumSeries(r.name, targets[i].runs[r.median_run].load.total.latency));
  }
  summary.tables.push_back(table);
  summary.charts = {rate, p99, spectrum};
  doc.sections.push_back(summary);

  Section verdicts;
  verdicts.title = "Verdicts (each target's median round)";
  for (const CompareRow& r : rows) verdicts.paragraphs.push_back(r.name + ": " + r.verdict);
  doc.sections.push_back(verdicts);
  return doc;
}

Status WriteCompareHtml(const std::vector<CompareTarget>& targets, int rounds, const std::string& path) {
  return WriteHtml(CompareDocument(targets, rounds), path);
}

}  // namespace lather
