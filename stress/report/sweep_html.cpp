#include "stress/report/sweep_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "stress/report/units.h"
#include "stress/verdict/verdict_format.h"

namespace lather {
namespace {

std::string Share(double share) { return share < 0 ? "-" : FormatPercent(share); }

std::string Cores(double cores) {
  if (cores < 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", cores);
  return text;
}

// The steps in order of load (an open sweep's bisection visits them out of order).
std::vector<size_t> ByLoad(const SweepResult& r) {
  std::vector<size_t> order(r.steps.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&r](size_t a, size_t b) { return r.steps[a].load < r.steps[b].load; });
  return order;
}

}  // namespace

HtmlDocument SweepDocument(const SweepResult& r) {
  HtmlDocument doc;
  doc.title = "lather-stress sweep";
  doc.subtitle = r.url + ": " + (r.open_model ? "open" : "closed") + " model, " + std::to_string(r.steps.size()) +
                 " steps" + (r.slo_p99_seconds > 0 ? ", SLO p99 <= " + FormatSeconds(r.slo_p99_seconds) : "");
  const std::string load_name = r.open_model ? "target calls/s" : "connections";
  const std::vector<size_t> order = ByLoad(r);

  Section findings;
  findings.title = "Findings";
  if (!r.stop_reason.empty()) findings.paragraphs.push_back("Stopped: " + r.stop_reason + ".");
  if (r.knee >= 0) {
    const SweepStep& k = r.steps[static_cast<size_t>(r.knee)];
    findings.highlight = "Knee at " + WithThousands(k.load) + " " + load_name + ": " +
                         WithThousands(k.calls_per_second) + " calls/s, at least 90% of the peak. Limit there: " +
                         r.runs[static_cast<size_t>(r.knee)].verdict.text;
  }
  if (r.open_model) {
    if (r.highest_meeting >= 0) {
      const SweepStep& m = r.steps[static_cast<size_t>(r.highest_meeting)];
      findings.highlight = "The highest rate that met the SLO: " + WithThousands(m.load) + " calls/s (p99 " +
                           FormatNanos(m.p99_seconds * 1e9) + " from the schedule).";
    } else {
      findings.highlight = "No rate tried met the SLO.";
    }
  } else if (r.fit.ok) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "USL fit: X(N) = %s N / (1 + %.4g (N-1) + %.3g N (N-1)); contention sigma %.4g, coherency kappa "
                  "%.3g, RMS error %.1f%%.",
                  WithThousands(r.fit.lambda).c_str(), r.fit.sigma, r.fit.kappa, r.fit.sigma, r.fit.kappa,
                  100 * r.fit.rms_relative_error);
    findings.paragraphs.push_back(text);
    if (r.fit.peak_connections > 0) {
      findings.paragraphs.push_back("Predicted peak: " + WithThousands(r.fit.peak_calls_per_second) + " calls/s at " +
                                    WithThousands(r.fit.peak_connections) + " connections" +
                                    (r.fit.peak_connections > r.steps.back().load ? " (beyond the steps measured)." : "."));
    }
  }
  doc.sections.push_back(findings);

  Section curves;
  curves.title = "Curves";
  Chart rate;
  rate.id = "sweep-rate";
  rate.title = "calls/s against " + load_name;
  rate.x_label = load_name;
  rate.y_label = "calls/s";
  rate.log_x = !r.open_model;
  ChartSeries measured{"measured", {}};
  for (size_t i : order) measured.points.emplace_back(r.steps[i].load, r.steps[i].calls_per_second);
  rate.series.push_back(measured);
  if (!r.open_model && r.fit.ok && !r.steps.empty()) {
    ChartSeries fit{"USL fit", {}};
    const double last = std::max(r.steps.back().load, r.fit.peak_connections > 0 ? r.fit.peak_connections : 0.0);
    for (double n = 1; n <= last * 1.01; n *= 1.25) fit.points.emplace_back(n, UslPredict(r.fit, n));
    rate.series.push_back(fit);
  }
  Chart latency;
  latency.id = "sweep-p99";
  latency.title = std::string("p99 latency") + (r.open_model ? " (from the schedule)" : "") + ", ms";
  latency.x_label = load_name;
  latency.y_label = "ms";
  latency.log_x = !r.open_model;
  ChartSeries p99{"p99", {}};
  for (size_t i : order) {
    if (r.steps[i].p99_seconds >= 0) p99.points.emplace_back(r.steps[i].load, r.steps[i].p99_seconds * 1e3);
  }
  latency.series.push_back(p99);
  if (r.slo_p99_seconds > 0 && !order.empty()) {
    latency.series.push_back({"SLO", {{r.steps[order.front()].load, r.slo_p99_seconds * 1e3},
                                      {r.steps[order.back()].load, r.slo_p99_seconds * 1e3}}});
  }
  Chart cpu;
  cpu.id = "sweep-cpu";
  cpu.title = "cores busy";
  cpu.x_label = load_name;
  cpu.y_label = "cores";
  cpu.log_x = !r.open_model;
  ChartSeries client{"client", {}}, server{"server", {}};
  Chart link;
  link.id = "sweep-link";
  link.title = "the link's share each way, %";
  link.x_label = load_name;
  link.y_label = "%";
  link.log_x = !r.open_model;
  ChartSeries up{"up (requests)", {}}, down{"down (responses)", {}};
  for (size_t i : order) {
    const Verdict& v = r.runs[i].verdict;
    if (v.client_cores_used >= 0) client.points.emplace_back(r.steps[i].load, v.client_cores_used);
    if (v.server_cores_used >= 0) server.points.emplace_back(r.steps[i].load, v.server_cores_used);
    if (v.network_up_utilization >= 0) up.points.emplace_back(r.steps[i].load, 100 * v.network_up_utilization);
    if (v.network_down_utilization >= 0) down.points.emplace_back(r.steps[i].load, 100 * v.network_down_utilization);
  }
  cpu.series = {client, server};
  curves.charts = {rate, latency, cpu};
  if (!up.points.empty() || !down.points.empty()) {
    link.series = {up, down};
    link.y_max = 100;
    curves.charts.push_back(link);
  } else {
    curves.paragraphs.push_back("The link is not judged (loopback, no --link declared), so it has no curve.");
  }
  doc.sections.push_back(curves);

  Section steps;
  steps.title = "Steps";
  Table table;
  table.header = {load_name, "calls/s", "p50", "p99", "failed", "client cores", "server cores", "link up", "link down",
                  "limit"};
  for (size_t i : order) {
    const SweepStep& s = r.steps[i];
    const Verdict& v = r.runs[i].verdict;
    table.rows.push_back({WithThousands(s.load) + (static_cast<int>(i) == r.knee ? " (knee)" : ""),
                          WithThousands(s.calls_per_second),
                          FormatNanos(static_cast<double>(r.runs[i].load.total.latency.ValueAtPercentile(50))),
                          s.p99_seconds >= 0 ? FormatNanos(s.p99_seconds * 1e9) : "-", Share(s.failed_share),
                          Cores(v.client_cores_used), Cores(v.server_cores_used), Share(v.network_up_utilization),
                          Share(v.network_down_utilization), s.limit});
  }
  steps.tables.push_back(table);
  for (size_t i : order) steps.paragraphs.push_back(WithThousands(r.steps[i].load) + " " + load_name + ": " +
                                                    r.runs[i].verdict.text);
  doc.sections.push_back(steps);
  return doc;
}

Status WriteSweepHtml(const SweepResult& result, const std::string& path) {
  return WriteHtml(SweepDocument(result), path);
}

}  // namespace lather
