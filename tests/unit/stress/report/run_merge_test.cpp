#include "stress/report/run_merge.h"

#include <catch2/catch.hpp>

#include "stress/report/run_html.h"
#include "stress/report/run_json.h"
#include "synthetic_run.h"

using lather::LatencyHistogram;
using lather::RunReport;

namespace {

constexpr int64_t kStart = 1'714'564'800'000'000'000;

// The run as a saved file would give it back.
RunReport ThroughJson(const RunReport& run) {
  RunReport back;
  REQUIRE(lather::ParseRunJson(lather::ReportJson(run), &back).ok());
  back.context.name = run.context.name;
  return back;
}

}  // namespace

TEST_CASE("merging two runs' JSON gives the histogram of all their samples, and their counts summed",
          "[stress][report][merge]") {
  const std::vector<uint64_t> a = lather_test::Latencies(11, 30000), b = lather_test::Latencies(12, 17000);
  const RunReport run_a = ThroughJson(lather_test::SyntheticRun(a, "load-1", kStart));
  const RunReport run_b = ThroughJson(lather_test::SyntheticRun(b, "load-2", kStart + 100'000'000));
  RunReport merged;
  REQUIRE(lather::MergeRuns({run_a, run_b}, &merged).ok());

  LatencyHistogram all;
  for (uint64_t v : a) all.Record(v);
  for (uint64_t v : b) all.Record(v);
  CHECK(merged.load.total.latency == all);
  CHECK(merged.load.total.latency.ValueAtPercentile(99.9) == all.ValueAtPercentile(99.9));
  CHECK(merged.load.total.calls_ok() == a.size() + b.size());
  CHECK(merged.load.total.failures() == 8);
  CHECK(merged.load.total.bytes.request_body == 227 * (a.size() + b.size()));
  REQUIRE(merged.load.total.seconds.size() == 5);
  LatencyHistogram second0;
  for (size_t i = 0; i < a.size(); i += 5) second0.Record(a[i]);
  for (size_t i = 0; i < b.size(); i += 5) second0.Record(b[i]);
  CHECK(merged.load.total.seconds[0].latency == second0);
  // The merged run survives its own JSON round trip.
  CHECK(lather::ReportJson(ThroughJson(merged)) == lather::ReportJson(merged));
  CHECK(merged.context.merged_from == std::vector<std::string>{"load-1-run", "load-2-run"});
}

TEST_CASE("a combined verdict adds the load hosts' rates and cores and averages the one server's CPU",
          "[stress][report][merge]") {
  const RunReport run_a = lather_test::SyntheticRun(lather_test::Latencies(21, 10000), "load-1", kStart, 2.0);
  const RunReport run_b = lather_test::SyntheticRun(lather_test::Latencies(22, 10000), "load-2", kStart, 4.0);
  RunReport merged;
  REQUIRE(lather::MergeRuns({run_a, run_b}, &merged).ok());
  CHECK(merged.calls_per_second() == Approx(run_a.calls_per_second() + run_b.calls_per_second()));
  CHECK(merged.client_cores == 4);  // two hosts of 2 cores
  CHECK(merged.verdict.client_cores_used == Approx(0.4 + 0.8).epsilon(1e-4));
  CHECK(merged.verdict.server_cores_used == Approx(0.8).epsilon(1e-4));  // the same server, seen by both
  CHECK(merged.settings.connections == 40);
  CHECK(merged.verdict.calls_per_second == Approx(merged.calls_per_second()));
  CHECK(merged.verdict.server_ceiling >= merged.calls_per_second());

  // Two harnesses on one host share its cores: they are not counted twice.
  const RunReport same = lather_test::SyntheticRun(lather_test::Latencies(23, 10000), "load-1", kStart, 2.0);
  REQUIRE(lather::MergeRuns({run_a, same}, &merged).ok());
  CHECK(merged.client_cores == 2);
}

TEST_CASE("runs that are not one experiment are refused in one line naming both", "[stress][report][merge]") {
  const RunReport a = lather_test::SyntheticRun(lather_test::Latencies(31, 1000), "load-1", kStart);
  RunReport b = lather_test::SyntheticRun(lather_test::Latencies(32, 1000), "load-2", kStart);
  RunReport merged;
  b.settings.op = "echo";
  lather::Status s = lather::MergeRuns({a, b}, &merged);
  CHECK(s.message() == "cannot merge load-2-run with load-1-run: different operation echo vs increment");
  b.settings.op = "increment";
  b.settings.rate = 1000;
  CHECK(lather::MergeRuns({a, b}, &merged).message().find("different load model open vs closed") != std::string::npos);
  b.settings.rate = 0;
  b.settings.url = "http://127.0.0.1:9090/soap";
  CHECK(lather::MergeRuns({a, b}, &merged).message().find("different target") != std::string::npos);
  b.settings.url = a.settings.url;
  b.context.window_start_unix_ns += 60'000'000'000;
  b.context.window_end_unix_ns += 60'000'000'000;
  s = lather::MergeRuns({a, b}, &merged);
  CHECK(s.message().find("did not overlap (they began 60 s apart)") != std::string::npos);
  RunReport embedded = a;
  embedded.settings.embedded = true;
  CHECK(lather::MergeRuns({embedded, a}, &merged).message().find("its own embedded service") != std::string::npos);
  CHECK(lather::MergeRuns({a}, &merged).message() == "merge needs two or more runs");
  CHECK(lather::MergeRuns({a, a}, &merged).message() == "cannot merge load-1-run with load-1-run: they are the same run");
  CHECK(s.message().find('\n') == std::string::npos);
}

TEST_CASE("two merged runs of 2.3 s keep their last 0.3 s partial: the merged calls/s does not fall in it",
          "[stress][report][merge][series]") {
  RunReport a = lather_test::SyntheticRun(lather_test::Latencies(31, 2000), "load-1", kStart);
  RunReport b = lather_test::SyntheticRun(lather_test::Latencies(32, 2000), "load-2", kStart);
  lather_test::SteadySeries(2.3, 1000, &a);
  lather_test::SteadySeries(2.3, 1000, &b);
  RunReport merged;
  REQUIRE(lather::MergeRuns({ThroughJson(a), ThroughJson(b)}, &merged).ok());
  REQUIRE(merged.load.total.seconds.size() == 3);
  CHECK(merged.load.total.seconds[2].seconds == Approx(0.3));
  const lather::HtmlDocument document = lather::RunsDocument({merged});
  for (const lather::Section& s : document.sections) {
    for (const lather::Chart& c : s.charts) {
      if (c.id != "calls-per-second") continue;
      REQUIRE(c.series.at(0).points.size() == 3);
      for (const auto& point : c.series.at(0).points) CHECK(point.second == Approx(2000));
    }
  }
}
