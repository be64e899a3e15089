#include "stress/report/hgrm.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>

#include "synthetic_run.h"

using lather::LatencyHistogram;

namespace {

struct Line {
  double value, percentile;
  uint64_t total;
  double one_in;  // < 0 on the 100% line
};

struct Parsed {
  std::vector<std::string> header;
  std::vector<Line> lines;
  double mean = -1, stddev = -1, max = -1;
  uint64_t total_count = 0;
  int buckets = 0, sub_buckets = 0;
};

// Reads the text as HdrHistogram's plotters do: the column header, whitespace-separated columns, and the
// "#[...]" footer.
Parsed Parse(const std::string& text) {
  Parsed p;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  std::istringstream header(line);
  for (std::string word; header >> word;) p.header.push_back(word);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::sscanf(line.c_str(), "#[Mean = %lf, StdDeviation = %lf]", &p.mean, &p.stddev);
      unsigned long long total = 0;
      if (std::sscanf(line.c_str(), "#[Max = %lf, Total count = %llu]", &p.max, &total) == 2) p.total_count = total;
      std::sscanf(line.c_str(), "#[Buckets = %d, SubBuckets = %d]", &p.buckets, &p.sub_buckets);
      continue;
    }
    Line l{0, 0, 0, -1};
    unsigned long long total = 0;
    const int n = std::sscanf(line.c_str(), "%lf %lf %llu %lf", &l.value, &l.percentile, &total, &l.one_in);
    REQUIRE(n >= 3);
    l.total = total;
    p.lines.push_back(l);
  }
  return p;
}

}  // namespace

// The same text as HdrHistogram's JavaScript port (hdr-histogram-js 3.0.1, 2 significant digits, output
// ratio 1) prints for these two values, but for its Mean and StdDeviation (1503 and 501: from bucket middles).
TEST_CASE("two values give HdrHistogram's steps, line for line", "[stress][report][hgrm]") {
  LatencyHistogram h;
  h.Record(1000);  // bucket 1000..1003
  h.Record(2000);  // bucket 2000..2007
  lather::HgrmOptions ns;
  ns.unit_scaling_ratio = 1;
  ns.decimals = 0;
  const std::string expected =
      "       Value     Percentile TotalCount 1/(1-Percentile)\n\n"
      "        1003 0.000000000000          1           1.00\n"
      "        1003 0.100000000000          1           1.11\n"
      "        1003 0.200000000000          1           1.25\n"
      "        1003 0.300000000000          1           1.43\n"
      "        1003 0.400000000000          1           1.67\n"
      "        1003 0.500000000000          1           2.00\n"
      "        2007 0.550000000000          2           2.22\n"
      "        2007 1.000000000000          2\n"
      "#[Mean    =         1500, StdDeviation   =          499]\n"
      "#[Max     =         2000, Total count    =            2]\n"
      "#[Buckets =           29, SubBuckets     =          256]\n";
  CHECK(lather::PercentileDistribution(h, ns) == expected);
}

TEST_CASE("the .hgrm of a run parses back to its histogram's percentiles, count and mean", "[stress][report][hgrm]") {
  LatencyHistogram h;
  for (uint64_t v : lather_test::Latencies(7, 50000)) h.Record(v);
  const Parsed p = Parse(lather::PercentileDistribution(h));
  CHECK(p.header == std::vector<std::string>{"Value", "Percentile", "TotalCount", "1/(1-Percentile)"});
  REQUIRE(p.lines.size() > 50);
  CHECK(p.lines.front().percentile == 0);
  CHECK(p.lines.back().percentile == 1.0);
  CHECK(p.lines.back().one_in < 0);
  CHECK(p.lines.back().total == h.count());
  for (size_t i = 0; i + 1 < p.lines.size(); ++i) {
    const Line& l = p.lines[i];
    INFO("line " << i << ": " << l.value << " ms at " << l.percentile);
    CHECK(l.one_in == Approx(1 / (1 - l.percentile)).margin(0.006));
    CHECK(p.lines[i + 1].percentile > l.percentile);
    CHECK(p.lines[i + 1].total >= l.total);
    CHECK(p.lines[i + 1].value >= l.value);
    // The value is the highest of the bucket where the step's share of the calls is reached, in ms.
    if (l.percentile > 0) {
      CHECK(100.0 * static_cast<double>(l.total) / static_cast<double>(h.count()) >= l.percentile * 100 - 1e-9);
      CHECK(l.value * 1e6 == Approx(static_cast<double>(h.ValueAtPercentile(l.percentile * 100))).epsilon(0.01).margin(500));
    }
  }
  CHECK(p.mean == Approx(h.Mean() / 1e6).margin(0.0005));
  CHECK(p.stddev == Approx(h.StdDev() / 1e6).margin(0.0005));
  CHECK(p.max == Approx(3000.0).epsilon(0.01));
  CHECK(p.total_count == h.count());
  CHECK(p.buckets == 29);
  CHECK(p.sub_buckets == 256);
}

TEST_CASE("percentiles are rounded as HdrHistogram's Java formatter rounds them, half up on the shortest decimal",
          "[stress][report][hgrm]") {
  // 1 - 0.000219726562500 = 0.99978027343750 is a tie at 12 decimals in decimal, not in binary: C's printf
  // would write 0.999780273437; HdrHistogram (Java and its JavaScript port) writes 0.999780273438.
  LatencyHistogram h;
  h.RecordN(1000, 14519);  // every step up to 99.993% is reached in this bucket
  h.Record(5000);
  const std::string text = lather::PercentileDistribution(h);
  CHECK(text.find(" 0.999780273438 ") != std::string::npos);
  CHECK(text.find(" 0.999780273437 ") == std::string::npos);
}

TEST_CASE("an empty histogram's .hgrm has the header and the footer only", "[stress][report][hgrm]") {
  const Parsed p = Parse(lather::PercentileDistribution(LatencyHistogram()));
  CHECK(p.lines.empty());
  CHECK(p.total_count == 0);
  CHECK(p.buckets == 29);
}
