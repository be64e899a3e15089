#include "stress/measure/latency_histogram.h"
#include "stress/measure/live_latency.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

using lather::LatencyHistogram;

namespace {

constexpr uint64_t kMicros = 1'000;
constexpr uint64_t kSeconds = 1'000'000'000;

// The exact nearest-rank percentile of sorted samples: the smallest value with at least
// ceil(percentile / 100 * n) samples at or below it.
uint64_t ExactPercentile(const std::vector<uint64_t>& sorted, double percentile) {
  const long double wanted = static_cast<long double>(percentile) * sorted.size() / 100.0L;
  long double rank = std::ceil(wanted - 1e-9L);
  rank = std::clamp(rank, 1.0L, static_cast<long double>(sorted.size()));
  return sorted[static_cast<std::size_t>(rank) - 1];
}

// The histogram reports the highest value of the bucket holding the exact value, so it is never below
// the exact value and within 1% above it.
void CheckWithinOnePercent(double percentile, uint64_t reported, uint64_t exact) {
  INFO("percentile " << percentile << ": reported " << reported << " ns, exact " << exact << " ns");
  CHECK(static_cast<double>(reported) == Approx(static_cast<double>(exact)).epsilon(0.01));
  CHECK(reported >= exact);
}

// Records every sample and returns them sorted.
std::vector<uint64_t> RecordAll(std::vector<uint64_t> samples, LatencyHistogram* histogram) {
  for (uint64_t sample : samples) histogram->Record(sample);
  std::sort(samples.begin(), samples.end());
  return samples;
}

// `n` samples from `distribution` (in ns), rounded and kept within 1 ns..60 s.
template <typename Distribution>
std::vector<uint64_t> Draw(Distribution distribution, std::size_t n, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<uint64_t> samples;
  samples.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double value =
        std::clamp(std::round(distribution(random)), 1.0, static_cast<double>(LatencyHistogram::kMaxValue));
    samples.push_back(static_cast<uint64_t>(value));
  }
  return samples;
}

// Compares every entry of the spectrum, and every whole percentile, to the sorted samples.
void CheckSpectrumAgainstSamples(const LatencyHistogram& histogram, const std::vector<uint64_t>& sorted) {
  const auto spectrum = histogram.Percentiles();
  REQUIRE(spectrum.size() > 11);
  for (const auto& [percentile, value] : spectrum) {
    CheckWithinOnePercent(percentile, value, ExactPercentile(sorted, percentile));
  }
  for (int percentile = 0; percentile <= 100; ++percentile) {
    CheckWithinOnePercent(percentile, histogram.ValueAtPercentile(percentile),
                          ExactPercentile(sorted, percentile));
  }
}

}  // namespace

TEST_CASE("p50, p90, p99 and p99.9 of uniform 1..1000 us are within 1% of the sorted samples",
          "[stress][histogram]") {
  std::mt19937_64 random(42);
  std::uniform_int_distribution<uint64_t> uniform(1 * kMicros, 1000 * kMicros);
  std::vector<uint64_t> samples(200'000);
  for (uint64_t& sample : samples) sample = uniform(random);
  LatencyHistogram histogram;
  const std::vector<uint64_t> sorted = RecordAll(samples, &histogram);

  for (double percentile : {50.0, 90.0, 99.0, 99.9}) {
    CheckWithinOnePercent(percentile, histogram.ValueAtPercentile(percentile),
                          ExactPercentile(sorted, percentile));
  }
  CHECK(histogram.count() == samples.size());
  CHECK(histogram.overflow_count() == 0);
  CHECK(histogram.min() == sorted.front());
  CHECK(histogram.max() == sorted.back());
}

TEST_CASE("every percentile of the spectrum of a log-normal sample is within 1% of the sorted samples",
          "[stress][histogram]") {
  // Median 200 us, long tail into the seconds.
  const auto samples = Draw(std::lognormal_distribution<double>(std::log(200'000.0), 1.5), 1'000'000, 7);
  LatencyHistogram histogram;
  const std::vector<uint64_t> sorted = RecordAll(samples, &histogram);

  CheckSpectrumAgainstSamples(histogram, sorted);
  // A million values resolve the spectrum down to 99.9999 (rank 999,999), then 100 (the max).
  const auto spectrum = histogram.Percentiles();
  REQUIRE(spectrum.size() >= 2);
  CHECK(spectrum[spectrum.size() - 2].first == 99.9999);
  CHECK(spectrum.back().first == 100.0);
  CHECK(spectrum.back().second == sorted.back());
}

TEST_CASE("every percentile of the spectrum of an exponential sample is within 1% of the sorted samples",
          "[stress][histogram]") {
  // 50 us of fixed cost plus an exponential wait with a 2 ms mean.
  std::exponential_distribution<double> exponential(1.0 / 2'000'000.0);
  const auto samples = Draw(
      [&exponential](std::mt19937_64& random) { return 50'000.0 + exponential(random); }, 300'000, 12345);
  LatencyHistogram histogram;
  const std::vector<uint64_t> sorted = RecordAll(samples, &histogram);

  CheckSpectrumAgainstSamples(histogram, sorted);
}

TEST_CASE("a single recorded value is every percentile, the min, the max and the mean",
          "[stress][histogram]") {
  LatencyHistogram histogram;
  histogram.Record(123'457);
  CHECK(histogram.count() == 1);
  CHECK(histogram.min() == 123'457);
  CHECK(histogram.max() == 123'457);
  CHECK(histogram.Mean() == 123'457.0);
  CHECK(histogram.StdDev() == 0.0);
  for (double percentile : {0.0, 1.0, 50.0, 99.0, 99.999, 100.0}) {
    CHECK(histogram.ValueAtPercentile(percentile) == 123'457);
  }
  const auto spectrum = histogram.Percentiles();
  REQUIRE(spectrum.size() == 11);  // 0, 10, ..., 90 and 100: one value has no finer ranks
  CHECK(spectrum.front().first == 0.0);
  CHECK(spectrum[9].first == 90.0);
  CHECK(spectrum.back().first == 100.0);
  for (const auto& entry : spectrum) CHECK(entry.second == 123'457);
}

TEST_CASE("min, max, count, sum and mean are exact", "[stress][histogram]") {
  LatencyHistogram histogram;
  // Values that share buckets with their neighbours: the extremes and mean must not be bucket values.
  const std::vector<uint64_t> values = {1'000'003, 1'000'001, 5'555'555, 999'999'999, 1'000'002};
  uint64_t sum = 0;
  for (uint64_t value : values) {
    histogram.Record(value);
    sum += value;
  }
  CHECK(histogram.count() == values.size());
  CHECK(histogram.min() == 1'000'001);
  CHECK(histogram.max() == 999'999'999);
  CHECK(histogram.sum() == sum);
  CHECK(histogram.Mean() == static_cast<double>(sum) / static_cast<double>(values.size()));
  CHECK(histogram.ValueAtPercentile(0) == 1'000'001);
  CHECK(histogram.ValueAtPercentile(100) == 999'999'999);
}

TEST_CASE("1 us and 60 s are kept, 0 ns is kept, and values above 60 s are clamped and counted as overflow",
          "[stress][histogram]") {
  SECTION("1 us") {
    LatencyHistogram histogram;
    histogram.Record(1 * kMicros);
    CHECK(histogram.ValueAtPercentile(50) == 1 * kMicros);
    CHECK(histogram.min() == 1 * kMicros);
    CHECK(histogram.overflow_count() == 0);
  }
  SECTION("60 s, the largest value kept as is") {
    LatencyHistogram histogram;
    histogram.Record(60 * kSeconds);
    histogram.Record(60 * kSeconds - 1);
    CHECK(histogram.max() == LatencyHistogram::kMaxValue);
    CHECK(histogram.ValueAtPercentile(100) == 60 * kSeconds);
    CHECK(histogram.ValueAtPercentile(50) == 60 * kSeconds - 1);
    CHECK(histogram.overflow_count() == 0);
  }
  SECTION("above 60 s") {
    LatencyHistogram histogram;
    histogram.Record(5 * kMicros);
    histogram.Record(60 * kSeconds + 1);
    histogram.Record(3600 * kSeconds);
    histogram.Record(UINT64_MAX);
    CHECK(histogram.count() == 4);
    CHECK(histogram.overflow_count() == 3);
    CHECK(histogram.max() == LatencyHistogram::kMaxValue);
    CHECK(histogram.sum() == 5 * kMicros + 3 * LatencyHistogram::kMaxValue);
    CHECK(histogram.ValueAtPercentile(50) == LatencyHistogram::kMaxValue);
    CHECK(histogram.ValueAtPercentile(100) == LatencyHistogram::kMaxValue);
    CHECK(histogram.ValueAtPercentile(0) == 5 * kMicros);
  }
  SECTION("0 ns") {
    LatencyHistogram histogram;
    histogram.Record(0);
    histogram.Record(0);
    histogram.Record(2 * kMicros);
    CHECK(histogram.count() == 3);
    CHECK(histogram.min() == 0);
    CHECK(histogram.ValueAtPercentile(0) == 0);
    CHECK(histogram.ValueAtPercentile(50) == 0);
    CHECK(histogram.ValueAtPercentile(100) == 2 * kMicros);
    CHECK(histogram.overflow_count() == 0);
  }
}

TEST_CASE("values below 256 ns are exact and percentiles follow the nearest-rank definition",
          "[stress][histogram]") {
  LatencyHistogram histogram;
  for (uint64_t value = 1; value <= 100; ++value) histogram.Record(value);
  CHECK(histogram.ValueAtPercentile(0) == 1);
  CHECK(histogram.ValueAtPercentile(1) == 1);
  CHECK(histogram.ValueAtPercentile(1.01) == 2);
  CHECK(histogram.ValueAtPercentile(50) == 50);
  CHECK(histogram.ValueAtPercentile(50.5) == 51);
  CHECK(histogram.ValueAtPercentile(99) == 99);
  CHECK(histogram.ValueAtPercentile(99.9) == 100);
  CHECK(histogram.ValueAtPercentile(100) == 100);
}

TEST_CASE("every bucket from 1 us to 60 s is narrower than 1% of the values in it", "[stress][histogram]") {
  // Values v and 2v: the p50 is v's bucket's highest value (below 2v), which must be within 1% of v.
  std::vector<uint64_t> values;
  for (double value = 1'000; value < 30e9; value *= 1.0013) values.push_back(static_cast<uint64_t>(value));
  for (int shift = 10; shift <= 34; ++shift) {  // both sides of each power of two
    values.push_back((uint64_t{1} << shift) - 1);
    values.push_back(uint64_t{1} << shift);
  }
  for (uint64_t value : values) {
    LatencyHistogram histogram;
    histogram.Record(value);
    histogram.Record(2 * value);
    CheckWithinOnePercent(50, histogram.ValueAtPercentile(50), value);
  }
}

TEST_CASE("merging two histograms equals recording all their values into one", "[stress][histogram]") {
  const auto fast = Draw(std::lognormal_distribution<double>(std::log(80'000.0), 0.5), 50'000, 1);
  const auto slow = Draw(std::lognormal_distribution<double>(std::log(3'000'000.0), 1.0), 20'000, 2);
  LatencyHistogram first;
  LatencyHistogram second;
  LatencyHistogram all;
  for (uint64_t value : fast) {
    first.Record(value);
    all.Record(value);
  }
  for (uint64_t value : slow) {
    second.Record(value);
    all.Record(value);
  }
  second.Record(61 * kSeconds);
  all.Record(61 * kSeconds);

  first.Merge(second);
  CHECK(first == all);
  CHECK(first.count() == fast.size() + slow.size() + 1);
  CHECK(first.overflow_count() == 1);
  CHECK(first.min() == all.min());
  CHECK(first.max() == all.max());
  CHECK(first.sum() == all.sum());
  CHECK(first.Percentiles() == all.Percentiles());

  SECTION("merging an empty histogram changes nothing") {
    first.Merge(LatencyHistogram());
    CHECK(first == all);
  }
  SECTION("merging into an empty histogram copies it") {
    LatencyHistogram empty;
    empty.Merge(all);
    CHECK(empty == all);
    CHECK(empty.min() == all.min());
  }
}

TEST_CASE("Reset empties the histogram and it records correctly afterwards", "[stress][histogram]") {
  LatencyHistogram histogram;
  for (uint64_t value = 1; value <= 1000; ++value) histogram.Record(value * kMicros);
  histogram.Record(100 * kSeconds);
  const std::size_t memory = histogram.MemoryBytes();

  histogram.Reset();
  CHECK(histogram == LatencyHistogram());
  CHECK(histogram.count() == 0);
  CHECK(histogram.overflow_count() == 0);
  CHECK(histogram.sum() == 0);
  CHECK(histogram.min() == 0);
  CHECK(histogram.max() == 0);
  CHECK(histogram.Mean() == 0.0);
  CHECK(histogram.ValueAtPercentile(50) == 0);
  CHECK(histogram.Percentiles().empty());
  CHECK(histogram.MemoryBytes() == memory);

  histogram.Record(7 * kMicros);
  CHECK(histogram.min() == 7 * kMicros);
  CHECK(histogram.max() == 7 * kMicros);
  CHECK(histogram.ValueAtPercentile(50) == 7 * kMicros);
}

TEST_CASE("the percentile spectrum of 1000 values steps as documented and never decreases",
          "[stress][histogram]") {
  LatencyHistogram histogram;
  for (uint64_t value = 1; value <= 1000; ++value) histogram.Record(value * kMicros);
  const auto spectrum = histogram.Percentiles();

  std::vector<double> percentiles;
  for (const auto& entry : spectrum) percentiles.push_back(entry.first);
  // 99.95 would be rank 1000, the max itself, so the steps stop at 99.9.
  const std::vector<double> expected = {0,  10, 20,   30, 40,   50,    60,   70, 80,
                                        90, 95, 97.5, 99, 99.5, 99.75, 99.9, 100};
  CHECK(percentiles == expected);
  for (std::size_t i = 1; i < spectrum.size(); ++i) CHECK(spectrum[i - 1].second <= spectrum[i].second);
  CHECK(spectrum.front().second == 1 * kMicros);
  CHECK(spectrum.back().second == 1000 * kMicros);
}

TEST_CASE("RecordN equals as many calls of Record, and a count of 0 records nothing", "[stress][histogram]") {
  LatencyHistogram by_n;
  LatencyHistogram one_by_one;
  by_n.RecordN(1'234'567, 1000);
  by_n.RecordN(70 * kSeconds, 3);
  by_n.RecordN(999, 0);
  for (int i = 0; i < 1000; ++i) one_by_one.Record(1'234'567);
  for (int i = 0; i < 3; ++i) one_by_one.Record(70 * kSeconds);
  CHECK(by_n == one_by_one);
  CHECK(by_n.count() == 1003);
  CHECK(by_n.overflow_count() == 3);
  CHECK(by_n.min() == 1'234'567);
}

TEST_CASE("an empty histogram reports 0 and percentiles outside 0..100 are clamped", "[stress][histogram]") {
  LatencyHistogram histogram;
  CHECK(histogram.ValueAtPercentile(50) == 0);
  CHECK(histogram.Mean() == 0.0);
  CHECK(histogram.StdDev() == 0.0);
  CHECK(histogram.Percentiles().empty());

  histogram.Record(10 * kMicros);
  histogram.Record(20 * kMicros);
  CHECK(histogram.ValueAtPercentile(-5) == 10 * kMicros);
  CHECK(histogram.ValueAtPercentile(150) == 20 * kMicros);
  CHECK(histogram.ValueAtPercentile(std::nan("")) == 10 * kMicros);
}

TEST_CASE("the standard deviation of a uniform sample is within 1% of the exact one", "[stress][histogram]") {
  LatencyHistogram histogram;
  double sum = 0;
  double squares = 0;
  const uint64_t n = 100'000;
  for (uint64_t value = 1; value <= n; ++value) {
    histogram.Record(value * 10);  // 10 ns .. 1 ms
    sum += static_cast<double>(value * 10);
  }
  const double mean = sum / static_cast<double>(n);
  for (uint64_t value = 1; value <= n; ++value) {
    const double deviation = static_cast<double>(value * 10) - mean;
    squares += deviation * deviation;
  }
  CHECK(histogram.Mean() == mean);
  CHECK(histogram.StdDev() == Approx(std::sqrt(squares / static_cast<double>(n))).epsilon(0.01));
}

TEST_CASE("a copy is equal and independent, and memory does not grow with recording", "[stress][histogram]") {
  LatencyHistogram histogram;
  const std::size_t memory = histogram.MemoryBytes();
  for (uint64_t value = 0; value < 1'000'000; value += 7) histogram.Record(value * 997);
  CHECK(histogram.MemoryBytes() == memory);

  LatencyHistogram copy = histogram;
  CHECK(copy == histogram);
  copy.Record(5);
  CHECK(copy != histogram);
  CHECK(copy.count() == histogram.count() + 1);
}

TEST_CASE("the live progress histogram places values within a 25% wide bucket and finds its p99",
          "[stress][histogram][live]") {
  lather::LiveLatency live;
  for (uint64_t us = 1; us <= 1000; ++us) live.Record(us * 1000);
  lather::LiveLatency::Counts counts{};
  live.AddTo(&counts);
  const uint64_t p99 = lather::LiveLatency::Percentile(counts, 99);
  CHECK(p99 >= 990000);
  CHECK(p99 <= 990000 * 5 / 4);
  for (uint64_t ns : {0ull, 999ull, 1000ull, 5000ull, 123456789ull, 60000000000ull}) {
    const size_t index = lather::LiveLatency::Index(ns);
    CHECK(lather::LiveLatency::UpperBoundNanos(index) > ns);
    CHECK(lather::LiveLatency::UpperBoundNanos(index) <= std::max<uint64_t>(ns * 5 / 4 + 2000, 2000));
  }
  lather::LiveLatency::Counts empty{};
  CHECK(lather::LiveLatency::Percentile(empty, 99) == 0);
}
