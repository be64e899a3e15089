// lather-stress sweep URL: a series of runs with growing load until the system stops giving more. Closed
// model over connections 1, 2, 4, ... (or --steps) until calls/s stop growing, p99 passes --slo or calls
// fail; open model (-R START or --rates) over target rates, doubling until a step misses the SLO and then
// bisecting, to the highest rate that meets it with latency measured from the schedule. Reports every
// step's verdict, the knee and the USL fit (stress/report/sweep_report.h).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "stress/cli/run_options.h"
#include "stress/report/sweep_html.h"
#include "stress/report/sweep_report.h"
#include "stress/report/units.h"

namespace lather {
namespace {

constexpr char kSweepHelp[] =
    "\nClosed model (the default): connections 1, 2, 4, ... up to --max-connections, or the list --steps,\n"
    "each step a run of -d (default 5s) after --warmup (default 1s). The sweep stops when calls/s grew less\n"
    "than 5% in two steps in a row, when p99 passes --slo, or when more than 1% of calls fail. The knee is\n"
    "the lowest step reaching 90% of the peak calls/s; the Universal Scalability Law is fitted to the curve\n"
    "(contention sigma, coherency kappa, the predicted peak and the fit's error).\n"
    "Open model (-R START, or --rates R1,R2,...): each step offers a rate with -c connections; latency counts\n"
    "from each call's scheduled time (no coordinated omission). Rates double while they meet the SLO (the\n"
    "rate kept within 5%, no more than 1% failed, p99 <= --slo), then bisect to the highest rate that does.\n"
    "\nexamples:\n"
    "  lather-stress sweep http://127.0.0.1:8080/soap --slo p99=10ms\n"
    "  lather-stress sweep http://127.0.0.1:8080/soap -R 5000 -c 200 --slo p99=5ms --json sweep.json\n";

Status ParseList(const std::string& text, std::vector<double>* out) {
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(v > 0)) return Status::InvalidArgument("'" + item + "' is not a positive number");
    out->push_back(v);
  }
  if (out->empty()) return Status::InvalidArgument("an empty list");
  return Status::Ok();
}

}  // namespace

int SweepMain(int argc, char** argv) {
  StressOptions o;
  std::string steps_text, rates_text, slo_text;
  int64_t max_connections = 1024, max_steps = 12;
  FlagParser flags("lather-stress sweep [flags] URL");
  DefineFlags(&flags, &o);
  flags.AddString("steps", 0, "N,N,...", "closed model: these connection counts (default 1, 2, 4, ...)", &steps_text);
  flags.AddInt("max-connections", 0, "N", "closed model: the last step at most (default 1024)", 1, 100000,
               &max_connections);
  flags.AddString("rates", 0, "R,R,...", "open model: these target rates (calls/s) instead of doubling from -R",
                  &rates_text);
  flags.AddString("slo", 0, "p99=TIME", "the latency objective, e.g. p99=10ms (open model: from the schedule)",
                  &slo_text);
  flags.AddInt("max-steps", 0, "N", "stop after this many steps (default 12)", 1, 100, &max_steps);
  std::vector<std::string> positional;
  Status s = flags.Parse(argc, argv, &positional);
  if (o.help) {
    std::printf("%s%s", flags.Usage().c_str(), kSweepHelp);
    return 0;
  }
  if (!s.ok()) return UsageError(s.message());
  if (positional.size() != 1) return UsageError("sweep needs one URL");
  o.url = positional[0];
  if (!o.duration_given) o.duration = "5s";
  if (!o.warmup_given) o.warmup = "1s";
  if (o.total_calls > 0) return UsageError("sweep: each step runs for -d, not -n");

  SweepResult result;
  result.url = o.url;
  if (!slo_text.empty()) {
    if (slo_text.rfind("p99=", 0) != 0) return UsageError("--slo: give p99=TIME, e.g. p99=10ms");
    if (!(s = ParseDuration(slo_text.substr(4), &result.slo_p99_seconds)).ok() || result.slo_p99_seconds <= 0) {
      return UsageError("--slo: " + (s.ok() ? std::string("the time must be positive") : s.message()));
    }
  }
  std::vector<double> list;
  if (!steps_text.empty() && !(s = ParseList(steps_text, &list)).ok()) return UsageError("--steps: " + s.message());
  if (!rates_text.empty() && !(s = ParseList(rates_text, &list)).ok()) return UsageError("--rates: " + s.message());
  if (!steps_text.empty() && (!rates_text.empty() || o.rate > 0)) return UsageError("--steps is for the closed model: no -R or --rates");
  result.open_model = !rates_text.empty() || o.rate > 0;
  const double start_rate = o.rate;

  for (int i = 0; i < max_steps; ++i) {
    double load = 0;
    if (!list.empty()) {
      if (static_cast<size_t>(i) >= list.size()) break;
      load = list[static_cast<size_t>(i)];
    } else if (result.open_model) {
      load = NextOpenRate(result.steps, start_rate, result.slo_p99_seconds, static_cast<int>(max_steps));
      if (load <= 0) break;
    } else {
      load = i == 0 ? 1 : result.steps.back().load * 2;
      if (load > static_cast<double>(max_connections)) break;
    }
    StressOptions run = o;
    run.json_file.clear();
    run.series_file.clear();
    run.html_file.clear();
    run.hgrm_file.clear();
    run.start_at.clear();
    if (result.open_model) {
      run.rate = load;
    } else {
      run.connections = static_cast<int64_t>(load);
    }
    RunPlan plan;
    if (const int code = PlanRun(&run, &plan); code != 0) return code;
    RunReport report;
    if (const int code = ExecuteRun(run, plan, &report); code != 0) {
      std::fprintf(stderr, "lather-stress: sweep: the step at %s %s failed\n", WithThousands(load).c_str(),
                   result.open_model ? "calls/s" : "connections");
      return code;
    }
    result.steps.push_back(StepOf(report, load, result.open_model));
    const SweepStep& step = result.steps.back();
    if (!o.quiet) {
      std::fprintf(stderr, "  step %d  %s %s  %s calls/s  p99 %s  %s failed  (%s)\n", i + 1, WithThousands(load).c_str(),
                   result.open_model ? "calls/s offered" : "connections", WithThousands(step.calls_per_second).c_str(),
                   step.p99_seconds >= 0 ? FormatNanos(step.p99_seconds * 1e9).c_str() : "-",
                   WithThousands(static_cast<double>(report.load.total.failures())).c_str(), step.limit.c_str());
    }
    result.runs.push_back(std::move(report));
    if (!result.open_model && list.empty() &&
        ClosedSweepDone(result.steps, result.slo_p99_seconds, &result.stop_reason)) {
      break;
    }
  }
  if (result.stop_reason.empty()) {
    result.stop_reason = !list.empty() ? "the steps given were run"
                         : result.open_model ? "the highest rate meeting the SLO was bracketed within 5%"
                                             : "the last step (--max-connections or --max-steps) was reached";
    if (static_cast<int>(result.steps.size()) >= max_steps) result.stop_reason = "--max-steps reached";
  }
  AnalyzeSweep(&result);
  PrintSweep(result, stdout);
  if (!o.html_file.empty()) {
    const Status written = WriteSweepHtml(result, o.html_file);
    if (!written.ok()) {
      std::fprintf(stderr, "lather-stress: %s\n", written.message().c_str());
      return kExitUsage;
    }
  }
  if (!o.json_file.empty()) {
    std::ofstream out(o.json_file);
    out << SweepJson(result);
    if (!out) {
      std::fprintf(stderr, "lather-stress: cannot write --json %s\n", o.json_file.c_str());
      return kExitUsage;
    }
  }
  return result.steps.empty() ? kExitUsage : 0;
}

}  // namespace lather
