// lather-stress compare NAME=URL NAME=URL ...: the same workload against each target in interleaved rounds
// (A B C A B C ...) so that the host's drift hits all alike; one table of medians and ranges with ratios to
// the first target, and each target's verdict (stress/report/compare_report.h).
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "stress/cli/run_options.h"
#include "stress/report/compare_html.h"
#include "stress/report/compare_report.h"
#include "stress/report/units.h"

namespace lather {
namespace {

constexpr char kCompareHelp[] =
    "\nThe targets run one after the other in each round (A B C, A B C, ...), every run with the same flags\n"
    "(warm-up, duration or calls, connections, operation). --server-pid NAME=PID and --metrics-url NAME=URL\n"
    "give the server of the target NAME. The table: per target the median calls/s over the rounds and their\n"
    "range, mean and p99 latency, bytes and CPU per call, failed calls and the verdict of its median round,\n"
    "with ratios to the first target.\n"
    "\nexamples:\n"
    "  lather-stress compare event=http://127.0.0.1:8080/soap classic=http://127.0.0.1:8081/soap -c 100 -d 10s\n"
    "  lather-stress compare a=http://10.0.0.2/soap b=http://10.0.0.3/soap --rounds 5 --json compare.json\n";

}  // namespace

int CompareMain(int argc, char** argv) {
  StressOptions o;
  int64_t rounds = 3;
  FlagParser flags("lather-stress compare [flags] NAME=URL NAME=URL ...");
  DefineFlags(&flags, &o);
  flags.AddInt("rounds", 0, "N", "interleaved rounds (default 3)", 1, 100, &rounds);
  std::vector<std::string> positional;
  const Status s = flags.Parse(argc, argv, &positional);
  if (o.help) {
    std::printf("%s%s", flags.Usage().c_str(), kCompareHelp);
    return 0;
  }
  if (!s.ok()) return UsageError(s.message());
  if (positional.size() < 2) return UsageError("compare needs two or more targets as NAME=URL");
  std::vector<CompareTarget> targets;
  for (const std::string& p : positional) {
    std::string name, url;
    SplitNamed(p, &name, &url);
    if (name == "server" && p.rfind("server=", 0) != 0) return UsageError("compare: '" + p + "' is not NAME=URL");
    for (const CompareTarget& t : targets) {
      if (t.name == name) return UsageError("compare: the name " + name + " is given twice");
    }
    targets.push_back(CompareTarget{name, url, {}});
  }
  // Each --server-pid / --metrics-url NAME=... belongs to the target NAME.
  std::vector<std::vector<ServerSideValue>> server_side(targets.size());
  for (const ServerSideValue& v : o.server_side) {
    std::string name, rest;
    SplitNamed(v.text, &name, &rest);
    size_t i = 0;
    while (i < targets.size() && targets[i].name != name) ++i;
    if (i == targets.size()) {
      return UsageError(std::string(v.is_pid ? "--server-pid " : "--metrics-url ") + v.text +
                        ": no target is named " + name + " (give NAME=" + (v.is_pid ? "PID" : "URL") +
                        " with a target's NAME)");
    }
    server_side[i].push_back({v.is_pid, rest});
  }
  for (int round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < targets.size(); ++i) {
      StressOptions run = o;
      run.url = targets[i].url;
      run.server_side = server_side[i];
      run.json_file.clear();
      run.series_file.clear();
      run.html_file.clear();
      run.hgrm_file.clear();
      if (round > 0 || i > 0) run.start_at.clear();  // --start-at: the first run waits, the others follow
      RunPlan plan;
      if (const int code = PlanRun(&run, &plan); code != 0) return code;
      RunReport report;
      if (const int code = ExecuteRun(run, plan, &report); code != 0) {
        std::fprintf(stderr, "lather-stress: compare: target %s failed in round %d\n", targets[i].name.c_str(), round + 1);
        return code;
      }
      if (!o.quiet) {
        const LatencyHistogram& h = report.load.total.latency;
        std::fprintf(stderr, "  round %d/%d  %-12s %s calls/s  p99 %s  %s failed  (%s)\n", round + 1,
                     static_cast<int>(rounds), targets[i].name.c_str(), WithThousands(report.calls_per_second()).c_str(),
                     FormatNanos(static_cast<double>(h.ValueAtPercentile(99))).c_str(),
                     WithThousands(static_cast<double>(report.load.total.failures())).c_str(),
                     report.verdict.component.empty() ? LimitName(report.verdict.limit).c_str()
                                                      : report.verdict.component.c_str());
      }
      targets[i].runs.push_back(std::move(report));
    }
  }
  PrintCompare(targets, static_cast<int>(rounds), stdout);
  if (!o.html_file.empty()) {
    const Status written = WriteCompareHtml(targets, static_cast<int>(rounds), o.html_file);
    if (!written.ok()) {
      std::fprintf(stderr, "lather-stress: %s\n", written.message().c_str());
      return kExitUsage;
    }
  }
  if (!o.json_file.empty()) {
    std::ofstream out(o.json_file);
    out << CompareJson(targets, static_cast<int>(rounds));
    if (!out) {
      std::fprintf(stderr, "lather-stress: cannot write --json %s\n", o.json_file.c_str());
      return kExitUsage;
    }
  }
  uint64_t ok = 0;
  for (const CompareTarget& t : targets) {
    for (const RunReport& r : t.runs) ok += r.load.total.calls_ok();
  }
  return ok == 0 ? kExitAllFailed : 0;
}

}  // namespace lather
