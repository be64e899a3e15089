#include "stress/report/html_report.h"

#include <catch2/catch.hpp>
#include <regex>

#include "stress/report/run_html.h"
#include "synthetic_run.h"

TEST_CASE("every string of a run is escaped in the HTML, and the chart data cannot end its script",
          "[stress][report][html]") {
  lather::RunReport run = lather_test::SyntheticRun(lather_test::Latencies(3, 2000), "h\"ost", 1'714'564'800'000'000'000);
  run.settings.url = "http://x/<script>alert(1)</script>";
  run.context.name = "</script><img src=x onerror=alert(2)>";
  run.context.machine.cpu_model = "CPU & 'co'";
  const std::string page = lather::RenderHtml(lather::RunsDocument({run, run}));
  CHECK(page.find("<script>alert") == std::string::npos);
  CHECK(page.find("<img") == std::string::npos);
  CHECK(page.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(page.find("CPU &amp; &#39;co&#39;") != std::string::npos);
  CHECK(page.find("h&quot;ost") != std::string::npos);
  // Exactly the page's own two script elements: the data and the code.
  const std::regex open("<script", std::regex::icase), close("</script", std::regex::icase);
  CHECK(std::distance(std::sregex_iterator(page.begin(), page.end(), open), std::sregex_iterator()) == 2);
  CHECK(std::distance(std::sregex_iterator(page.begin(), page.end(), close), std::sregex_iterator()) == 2);
}

TEST_CASE("the page asks for nothing: no src, href, url() or @import, and a policy that forbids it",
          "[stress][report][html]") {
  const lather::RunReport run = lather_test::SyntheticRun(lather_test::Latencies(4, 2000), "host", 1);
  const std::string page = lather::RenderHtml(lather::RunsDocument({run}));
  CHECK_FALSE(std::regex_search(page, std::regex(R"(\s(src|href)\s*=|url\(|@import)", std::regex::icase)));
  CHECK(page.find("default-src 'none'") != std::string::npos);
  // Each chart has its figure and its data.
  for (const char* id : {"spectrum-", "calls-per-second-", "p99-per-second-", "cpu-per-second-", "shares-", "ceilings-"}) {
    INFO(id);
    CHECK(page.find(std::string("data-chart=\"") + id) != std::string::npos);
  }
}

TEST_CASE("the spectrum's points are HdrHistogram's steps in percent and ms, without the 100% step",
          "[stress][report][html]") {
  lather::LatencyHistogram h;
  h.Record(1000);
  h.Record(2000);
  const lather::ChartSeries s = lather::SpectrumSeries("x", h);
  REQUIRE(s.points.size() == 7);
  CHECK(s.points.front() == std::pair<double, double>(0, 0.001003));
  CHECK(s.points.back() == std::pair<double, double>(55, 0.002007));
}

namespace {

// The chart of `document` with id `id`; fails the test when there is none.
const lather::Chart& ChartOf(const lather::HtmlDocument& document, const std::string& id) {
  for (const lather::Section& s : document.sections) {
    for (const lather::Chart& c : s.charts) {
      if (c.id == id) return c;
    }
  }
  static const lather::Chart none;
  FAIL("no chart " << id);
  return none;
}

}  // namespace

TEST_CASE("a run of 2.3 s at a steady rate has no calls/s point a third of the others: its last 0.3 s is scaled",
          "[stress][report][html][series]") {
  lather::RunReport run = lather_test::SyntheticRun(lather_test::Latencies(5, 2000), "host", 1);
  lather_test::SteadySeries(2.3, 1000, &run);
  const lather::HtmlDocument document = lather::RunsDocument({run});
  const auto& points = ChartOf(document, "calls-per-second").series.at(0).points;
  REQUIRE(points.size() == 3);
  for (const auto& [x, calls_per_second] : points) {
    INFO("second ending at " << x);
    CHECK(calls_per_second == Approx(1000));
  }
  CHECK(points.back().first == Approx(2.3));  // drawn where its stretch ended
  CHECK(ChartOf(document, "p99-per-second").series.at(0).points.size() == 3);
}

TEST_CASE("a last second of 0.1 s is left out of the calls/s plot, and its p99 is kept",
          "[stress][report][html][series]") {
  lather::RunReport run = lather_test::SyntheticRun(lather_test::Latencies(6, 2000), "host", 1);
  lather_test::SteadySeries(2.1, 1000, &run);
  const lather::HtmlDocument document = lather::RunsDocument({run});
  const auto& points = ChartOf(document, "calls-per-second").series.at(0).points;
  REQUIRE(points.size() == 2);
  CHECK(points.back() == std::pair<double, double>(2, 1000));
  CHECK(ChartOf(document, "p99-per-second").series.at(0).points.size() == 3);
}
