#include "stress/report/compare_report.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "stress/report/json_numbers.h"
#include "stress/report/units.h"

namespace lather {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The median of a figure known in every round; -1 if any round lacks it.
double MedianKnown(const std::vector<double>& v) {
  for (double x : v) {
    if (x < 0) return -1;
  }
  return Median(v);
}

std::string Us(double seconds) {
  if (seconds < 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", seconds * 1e6);
  return text;
}

std::string Ratio(double a, double b) {
  if (b <= 0 || a < 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", a / b);
  return text;
}

}  // namespace

CompareRow SummarizeTarget(const CompareTarget& target) {
  CompareRow row;
  row.name = target.name;
  if (target.runs.empty()) return row;
  std::vector<double> rate, mean, p99, bytes, client, server;
  for (const RunReport& r : target.runs) {
    const ThreadStats& t = r.load.total;
    rate.push_back(r.calls_per_second());
    mean.push_back(t.latency.Mean() / 1e9);
    p99.push_back(static_cast<double>(t.latency.ValueAtPercentile(99)) / 1e9);
    bytes.push_back(r.wire_bytes_per_call());
    client.push_back(r.verdict.client_cpu_per_call);
    server.push_back(r.verdict.server_cpu_per_call);
    row.failed += t.failures();
  }
  row.calls_per_second = Median(rate);
  row.min_calls_per_second = *std::min_element(rate.begin(), rate.end());
  row.max_calls_per_second = *std::max_element(rate.begin(), rate.end());
  row.mean_latency_seconds = Median(mean);
  row.p99_seconds = Median(p99);
  row.wire_bytes_per_call = Median(bytes);
  row.client_cpu_per_call = MedianKnown(client);
  row.server_cpu_per_call = MedianKnown(server);
  // The median run: the one closest to the median calls/s.
  for (size_t i = 0; i < rate.size(); ++i) {
    if (std::abs(rate[i] - row.calls_per_second) < std::abs(rate[row.median_run] - row.calls_per_second)) {
      row.median_run = i;
    }
  }
  row.limit = LimitName(target.runs[row.median_run].verdict.limit);
  if (!target.runs[row.median_run].verdict.component.empty()) row.limit = target.runs[row.median_run].verdict.component;
  row.verdict = target.runs[row.median_run].verdict.text;
  return row;
}

void PrintCompare(const std::vector<CompareTarget>& targets, int rounds, std::FILE* out) {
  std::vector<CompareRow> rows;
  for (const CompareTarget& t : targets) rows.push_back(SummarizeTarget(t));
  if (rows.empty()) return;
  const RunReport& first = targets[0].runs.front();
  const StressSettings& s = first.settings;
  std::fprintf(out, "\nlather-stress compare: %zu targets x %d round%s, interleaved; op %s, %d connection%s, %s each\n",
               targets.size(), rounds, rounds == 1 ? "" : "s", s.op.c_str(), s.connections, s.connections == 1 ? "" : "s",
               s.total_calls > 0 ? (WithThousands(static_cast<double>(s.total_calls)) + " calls").c_str()
                                 : (WithThousands(s.duration_seconds) + " s").c_str());
  std::fprintf(out, "\n| target | calls/s median [range] | x first | mean latency | p99 | x first | bytes/call | "
                    "client us/call | server us/call | failed | limit |\n");
  std::fprintf(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  for (const CompareRow& r : rows) {
    std::fprintf(out, "| %s | %s [%s-%s] | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.name.c_str(),
                 WithThousands(r.calls_per_second).c_str(), WithThousands(r.min_calls_per_second).c_str(),
                 WithThousands(r.max_calls_per_second).c_str(), Ratio(r.calls_per_second, rows[0].calls_per_second).c_str(),
                 FormatNanos(r.mean_latency_seconds * 1e9).c_str(), FormatNanos(r.p99_seconds * 1e9).c_str(),
                 Ratio(r.p99_seconds, rows[0].p99_seconds).c_str(), WithThousands(r.wire_bytes_per_call).c_str(),
                 Us(r.client_cpu_per_call).c_str(), Us(r.server_cpu_per_call).c_str(),
                 WithThousands(static_cast<double>(r.failed)).c_str(), r.limit.c_str());
  }
  std::fprintf(out, "\nverdicts (each target's median round):\n");
  for (const CompareRow& r : rows) std::fprintf(out, "  %-12s %s\n", r.name.c_str(), r.verdict.c_str());
}

std::string CompareJson(const std::vector<CompareTarget>& targets, int rounds) {
  using Poco::JSON::Array;
  using Poco::JSON::Object;
  Object root(Poco::JSON_PRESERVE_KEY_ORDER);
  root.set("schema", kCompareSchema);
  root.set("rounds", rounds);
  Array list;
  std::vector<CompareRow> rows;
  for (const CompareTarget& t : targets) rows.push_back(SummarizeTarget(t));
  for (size_t i = 0; i < targets.size(); ++i) {
    const CompareRow& r = rows[i];
    Object o(Poco::JSON_PRESERVE_KEY_ORDER);
    o.set("name", targets[i].name);
    o.set("url", targets[i].url);
    o.set("calls_per_second_median", r.calls_per_second);
    o.set("calls_per_second_min", r.min_calls_per_second);
    o.set("calls_per_second_max", r.max_calls_per_second);
    o.set("ratio_to_first", rows[0].calls_per_second > 0 ? r.calls_per_second / rows[0].calls_per_second : 0.0);
    o.set("mean_latency_seconds", r.mean_latency_seconds);
    o.set("p99_seconds", r.p99_seconds);
    o.set("wire_bytes_per_call", r.wire_bytes_per_call);
    o.set("client_cpu_per_call_seconds", r.client_cpu_per_call);
    o.set("server_cpu_per_call_seconds", r.server_cpu_per_call);
    o.set("failed", r.failed);
    o.set("limit", r.limit);
    o.set("verdict", r.verdict);
    Array runs;
    for (const RunReport& run : targets[i].runs) runs.add(ReportObject(run));
    o.set("runs", runs);
    list.add(o);
  }
  root.set("targets", list);
  return JsonText(&root);
}

}  // namespace lather
