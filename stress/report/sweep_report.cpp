#include "stress/report/sweep_report.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

#include <algorithm>
#include <sstream>

#include "stress/report/json_numbers.h"
#include "stress/report/units.h"
#include "stress/verdict/verdict_format.h"

namespace lather {
namespace {

std::string Percent(double share) { return share < 0 ? "-" : FormatPercent(share); }

std::string Cores(double cores) {
  if (cores < 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", cores);
  return text;
}

}  // namespace

SweepStep StepOf(const RunReport& run, double load, bool open_model) {
  SweepStep step;
  step.load = load;
  step.calls_per_second = run.calls_per_second();
  const ThreadStats& t = run.load.total;
  step.p99_seconds = t.latency.count() > 0 ? static_cast<double>(t.latency.ValueAtPercentile(99)) / 1e9 : -1;
  const double calls = static_cast<double>(run.calls());
  step.failed_share = calls > 0 ? static_cast<double>(t.failures()) / calls : 0;
  if (open_model) {
    // Calls the harness sent late are in the latency already (it counts from the schedule).
    step.kept_schedule = step.calls_per_second >= kOnTarget * load;
  }
  step.limit = run.verdict.component.empty() ? LimitName(run.verdict.limit) : run.verdict.component;
  return step;
}

void AnalyzeSweep(SweepResult* r) {
  if (r->open_model) {  // the steps are not in order of load: the finding is the highest rate meeting the SLO
    r->highest_meeting = HighestMeeting(r->steps, r->slo_p99_seconds);
    return;
  }
  r->knee = KneeIndex(r->steps);
  std::vector<UslPoint> points;
  for (const SweepStep& s : r->steps) points.push_back({s.load, s.calls_per_second});
  r->fit = FitUsl(points);
}

void PrintSweep(const SweepResult& r, std::FILE* out) {
  std::fprintf(out, "\nlather-stress sweep %s: %s model, %zu steps%s\n", r.url.c_str(), r.open_model ? "open" : "closed",
               r.steps.size(), r.slo_p99_seconds > 0 ? (", SLO p99 <= " + FormatSeconds(r.slo_p99_seconds)).c_str() : "");
  std::fprintf(out, "\n| %s | calls/s | p50 | p99%s | failed | client cores | server cores | link up | link down | limit |\n",
               r.open_model ? "target calls/s" : "connections", r.open_model ? " (from schedule)" : "");
  std::fprintf(out, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const SweepStep& s = r.steps[i];
    const RunReport& run = r.runs[i];
    const LatencyHistogram& h = run.load.total.latency;
    std::fprintf(out, "| %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", WithThousands(s.load).c_str(),
                 static_cast<int>(i) == r.knee ? " (knee)" : "", WithThousands(s.calls_per_second).c_str(),
                 FormatNanos(static_cast<double>(h.ValueAtPercentile(50))).c_str(),
                 s.p99_seconds >= 0 ? FormatNanos(s.p99_seconds * 1e9).c_str() : "-", Percent(s.failed_share).c_str(),
                 Cores(run.verdict.client_cores_used).c_str(), Cores(run.verdict.server_cores_used).c_str(),
                 Percent(run.verdict.network_up_utilization).c_str(), Percent(run.verdict.network_down_utilization).c_str(),
                 s.limit.c_str());
  }
  if (!r.stop_reason.empty()) std::fprintf(out, "\n  stopped      %s\n", r.stop_reason.c_str());
  if (r.knee >= 0) {
    const SweepStep& k = r.steps[static_cast<size_t>(r.knee)];
    std::fprintf(out, "  knee         %s %s: %s calls/s, %s of the peak (more load bought less than %s more); limit there: %s\n",
                 WithThousands(k.load).c_str(), r.open_model ? "calls/s offered" : "connections",
                 WithThousands(k.calls_per_second).c_str(), "at least 90%", "10%", k.limit.c_str());
    std::fprintf(out, "  at the knee  %s\n", r.runs[static_cast<size_t>(r.knee)].verdict.text.c_str());
  }
  if (r.open_model) {
    if (r.highest_meeting >= 0) {
      const SweepStep& m = r.steps[static_cast<size_t>(r.highest_meeting)];
      std::fprintf(out, "  SLO          the highest rate that met it: %s calls/s (p99 %s from the schedule, %s failed)\n",
                   WithThousands(m.load).c_str(), FormatNanos(m.p99_seconds * 1e9).c_str(), Percent(m.failed_share).c_str());
    } else {
      std::fprintf(out, "  SLO          no rate tried met it (the lowest missed; try a lower -R)\n");
    }
  } else if (r.fit.ok) {
    const UslFit& f = r.fit;
    std::fprintf(out, "  USL fit      X(N) = %s N / (1 + %.4g (N-1) + %.3g N (N-1)): contention sigma %.4g, coherency kappa %.3g, "
                 "RMS error %.1f%%\n", WithThousands(f.lambda).c_str(), f.sigma, f.kappa, f.sigma, f.kappa,
                 100 * f.rms_relative_error);
    if (f.peak_connections > 0) {
      std::fprintf(out, "               predicted peak %s calls/s at %s connections%s\n",
                   WithThousands(f.peak_calls_per_second).c_str(), WithThousands(f.peak_connections).c_str(),
                   f.peak_connections > r.steps.back().load ? " (beyond the steps measured: an extrapolation)" : "");
    } else if (f.peak_calls_per_second > 0) {
      std::fprintf(out, "               no coherency cost: calls/s approach %s and do not fall\n",
                   WithThousands(f.peak_calls_per_second).c_str());
    } else {
      std::fprintf(out, "               linear so far: no contention or coherency cost in the steps measured\n");
    }
  } else {
    std::fprintf(out, "  USL fit      not enough steps (4 or more with calls)\n");
  }
}

std::string SweepJson(const SweepResult& r) {
  using Poco::JSON::Array;
  using Poco::JSON::Object;
  Object root(Poco::JSON_PRESERVE_KEY_ORDER);
  root.set("schema", kSweepSchema);
  root.set("url", r.url);
  root.set("model", r.open_model ? "open" : "closed");
  root.set("slo_p99_seconds", r.slo_p99_seconds);
  root.set("stop_reason", r.stop_reason);
  root.set("knee_index", r.knee);
  root.set("highest_meeting_slo_index", r.highest_meeting);
  Array steps;
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const SweepStep& s = r.steps[i];
    Object o(Poco::JSON_PRESERVE_KEY_ORDER);
    o.set("load", s.load);
    o.set("calls_per_second", s.calls_per_second);
    o.set("p99_seconds", s.p99_seconds);
    o.set("failed_share", s.failed_share);
    o.set("kept_schedule", s.kept_schedule);
    o.set("limit", s.limit);
    o.set("run", ReportObject(r.runs[i]));
    steps.add(o);
  }
  root.set("steps", steps);
  Object usl(Poco::JSON_PRESERVE_KEY_ORDER);
  usl.set("ok", r.fit.ok);
  usl.set("lambda", r.fit.lambda);
  usl.set("sigma", r.fit.sigma);
  usl.set("kappa", r.fit.kappa);
  usl.set("peak_connections", r.fit.peak_connections);
  usl.set("peak_calls_per_second", r.fit.peak_calls_per_second);
  usl.set("rms_relative_error", r.fit.rms_relative_error);
  root.set("usl", usl);
  return JsonText(&root);
}

}  // namespace lather
