#include "stress/cli/saved_runs_cli.h"

#include <cstdio>
#include <fstream>
#include <vector>

#include "common/flag_parser.h"
#include "stress/report/hgrm.h"
#include "stress/report/report.h"
#include "stress/report/run_html.h"
#include "stress/report/run_json.h"
#include "stress/report/run_merge.h"

namespace lather {
namespace {

constexpr int kExitUsage = 64;

struct SavedRunsOptions {
  std::string json_file;
  std::string html_file;
  std::string hgrm_file;
  std::string name = "merged";
  bool quiet = false;
  bool help = false;
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "lather-stress: %s\n", message.c_str());
  return kExitUsage;
}

constexpr char kReportHelp[] =
    "\nPrints the report of each saved run (lather-stress --json FILE) and, with --html, draws them on one page\n"
    "(several runs: overlaid percentile spectra and series, and their calls/s side by side).\n"
    "\nexamples:\n"
    "  lather-stress report run.json --html run.html\n"
    "  lather-stress report engine.json classic.json merged.json --html all.html\n";

constexpr char kMergeHelp[] =
    "\nMerges runs that ran at the same time against one target from several load hosts (start them together\n"
    "with --start-at): their histograms bucket by bucket (never averaging percentiles), their calls, bytes and\n"
    "CPU; prints the merged run's report with a combined verdict (docs/stress.md). Refuses runs of another\n"
    "target, operation or load model, or windows that did not overlap.\n"
    "\nexamples:\n"
    "  lather-stress merge host1.json host2.json host3.json --json farm.json --html farm.html\n";

}  // namespace

bool IsSavedRunsCommand(const std::string& word) { return word == "report" || word == "merge"; }

int SavedRunsMain(int argc, char** argv) {
  const std::string command = argv[0];
  const bool merge = command == "merge";
  SavedRunsOptions o;
  FlagParser flags(merge ? "lather-stress merge A.json B.json ... [flags]" : "lather-stress report RUN.json ... [flags]");
  if (merge) {
    flags.AddString("json", 0, "FILE", "write the merged run as JSON (schema lather-stress/2)", &o.json_file);
    flags.AddString("name", 0, "NAME", "the merged run's name in reports (default merged)", &o.name);
  }
  flags.AddString("html", 0, "FILE", "write one self-contained HTML page with the plots", &o.html_file);
  flags.AddString("hgrm", 0, "FILE",
                  merge ? "write the merged latency histogram as HdrHistogram's percentile distribution (.hgrm)"
                        : "write the first run's latency histogram as HdrHistogram's percentile distribution (.hgrm)",
                  &o.hgrm_file);
  flags.AddBool("quiet", 'q', "print nothing but errors", &o.quiet);
  flags.AddBool("help", 'h', "print this help", &o.help);
  std::vector<std::string> files;
  const Status parsed = flags.Parse(argc, argv, &files);
  if (o.help) {
    std::printf("%s%s", flags.Usage().c_str(), merge ? kMergeHelp : kReportHelp);
    return 0;
  }
  if (!parsed.ok()) return Fail(parsed.message());
  if (files.empty() || (merge && files.size() < 2)) {
    return Fail(merge ? "merge needs two or more saved runs (A.json B.json ...)" : "report needs a saved run (RUN.json)");
  }

  std::vector<RunReport> runs(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const Status s = ReadRunFile(files[i], &runs[i]);
    if (!s.ok()) return Fail(s.message());
  }
  std::vector<RunReport> shown = runs;
  if (merge) {
    RunReport merged;
    const Status s = MergeRuns(runs, &merged);
    if (!s.ok()) return Fail(s.message());
    merged.context.name = o.name;
    if (!o.quiet) {
      PrintReport(merged, stdout);
      std::printf("\n");
      PrintMergedFrom(runs, stdout);
      PrintApacheBenchBlock(merged, stdout);
    }
    if (!o.json_file.empty()) {
      std::ofstream out(o.json_file);
      out << ReportJson(merged);
      out.close();
      if (!out) return Fail("cannot write --json " + o.json_file);
    }
    shown = {merged};
  } else if (!o.quiet) {
    for (size_t i = 0; i < runs.size(); ++i) {
      if (runs.size() > 1) std::printf("%s== %s\n", i > 0 ? "\n" : "", runs[i].context.name.c_str());
      PrintReport(runs[i], stdout);
    }
  }
  if (!o.html_file.empty()) {
    const Status s = WriteRunsHtml(shown, o.html_file);
    if (!s.ok()) return Fail(s.message());
  }
  if (!o.hgrm_file.empty()) {
    const Status s = WriteHgrm(shown.front().load.total.latency, o.hgrm_file);
    if (!s.ok()) return Fail(s.message());
  }
  return 0;
}

}  // namespace lather
