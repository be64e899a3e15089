#include "stress/measure/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace lather {

namespace {

// The nearest rank of `percentile` among `count` values: ceil(percentile / 100 * count), within 1..count.
// Floating-point noise is not allowed to add a rank (99.9% of 1000 can compute as 999.0000000000001).
uint64_t NearestRank(double percentile, uint64_t count) {
  const double exact = percentile / 100.0 * static_cast<double>(count);
  const double rank = std::ceil(exact - 1e-12 * exact);
  if (!(rank >= 1.0)) return 1;  // also catches NaN
  if (rank >= static_cast<double>(count)) return count;
  return static_cast<uint64_t>(rank);
}

// Percentiles() steps the distance to 100 down to 1e-11 (99.99999999999); finer ranks are not meaningful
// in a double, and more than 1e13 values will not be recorded.
constexpr uint64_t kMaxSpectrumDenominator = 1'000'000'000'000;

}  // namespace

LatencyHistogram::LatencyHistogram() : counts_(CountsLength(), 0) {
  // Bucket b >= 1 starts at 2^(b+7), so kMaxValue (< 2^36) is in bucket 28, sub-bucket 223.
  static_assert(CountsLength() == 28 * 128 + 223 + 1, "unexpected bucket layout");
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  overflow_count_ += other.overflow_count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void LatencyHistogram::Reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = 0;
  overflow_count_ = 0;
  sum_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
}

double LatencyHistogram::Mean() const {
  if (count_ == 0) return 0.0;
  return static_cast<double>(sum_) / static_cast<double>(count_);
}

double LatencyHistogram::StdDev() const {
  if (count_ == 0) return 0.0;
  const double mean = Mean();
  double squares = 0.0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    // The middle of the bucket, kept within the exact extremes.
    const uint64_t low = std::max(LowestEquivalentValue(i), min_);
    const uint64_t high = std::min(HighestEquivalentValue(i), max_);
    const double deviation = (static_cast<double>(low) + static_cast<double>(high)) / 2.0 - mean;
    squares += deviation * deviation * static_cast<double>(counts_[i]);
  }
  return std::sqrt(squares / static_cast<double>(count_));
}

uint64_t LatencyHistogram::ValueAtPercentile(double percentile) const {
  if (count_ == 0) return 0;
  std::size_t index = 0;
  uint64_t cumulative = 0;
  return ValueAtRank(NearestRank(std::clamp(percentile, 0.0, 100.0), count_), &index, &cumulative);
}

std::vector<std::pair<double, uint64_t>> LatencyHistogram::Percentiles() const {
  std::vector<std::pair<double, uint64_t>> spectrum;
  if (count_ == 0) return spectrum;

  std::vector<double> percentiles;
  for (int p = 0; p <= 90; p += 10) percentiles.push_back(p);
  // Distances to 100 of 5, 2.5 and 1 times 10^-k, each an exact integer over a power of ten so that the
  // percentile is the double nearest its decimal (99.975, not 99.97500000000001).
  bool ranks_left = true;
  for (uint64_t denominator = 10; ranks_left && denominator <= kMaxSpectrumDenominator; denominator *= 10) {
    for (uint64_t numerator : {uint64_t{50}, uint64_t{25}, uint64_t{10}}) {
      const double p = static_cast<double>(100 * denominator - numerator) / static_cast<double>(denominator);
      if (NearestRank(p, count_) >= count_) {
        ranks_left = false;
        break;
      }
      percentiles.push_back(p);
    }
  }
  percentiles.push_back(100.0);

  spectrum.reserve(percentiles.size());
  std::size_t index = 0;
  uint64_t cumulative = 0;
  for (double p : percentiles) {
    spectrum.emplace_back(p, ValueAtRank(NearestRank(p, count_), &index, &cumulative));
  }
  return spectrum;
}

std::vector<LatencyHistogram::Bucket> LatencyHistogram::NonEmptyBuckets() const {
  std::vector<Bucket> buckets;
  if (count_ == 0) return buckets;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] != 0) buckets.push_back({LowestEquivalentValue(i), HighestEquivalentValue(i), counts_[i]});
  }
  return buckets;
}

bool LatencyHistogram::FromBuckets(const std::vector<std::pair<uint64_t, uint64_t>>& buckets, uint64_t count,
                                   uint64_t sum, uint64_t min, uint64_t max, uint64_t overflow_count,
                                   LatencyHistogram* out, std::string* error) {
  out->Reset();
  auto fail = [&](const std::string& why) {
    out->Reset();
    *error = why;
    return false;
  };
  uint64_t total = 0;
  std::size_t previous = 0;
  for (const auto& [lowest, n] : buckets) {
    if (lowest > kMaxValue) return fail("bucket value " + std::to_string(lowest) + " is above the largest value");
    const std::size_t index = CountsIndex(lowest);
    if (LowestEquivalentValue(index) != lowest) {
      return fail("bucket value " + std::to_string(lowest) + " is not the lowest value of a bucket");
    }
    if (total > 0 && index <= previous) return fail("buckets out of order at value " + std::to_string(lowest));
    if (n == 0) return fail("empty bucket at value " + std::to_string(lowest));
    out->counts_[index] = n;
    total += n;
    previous = index;
  }
  if (total != count) {
    return fail("the buckets hold " + std::to_string(total) + " values, the count says " + std::to_string(count));
  }
  if (overflow_count > count) return fail("more overflowed values than values");
  if (count > 0) {
    const std::size_t first = CountsIndex(buckets.front().first);
    if (min > kMaxValue || max > kMaxValue || CountsIndex(min) != first || CountsIndex(max) != previous || min > max) {
      return fail("min " + std::to_string(min) + " or max " + std::to_string(max) + " is outside the buckets");
    }
    out->min_ = min;
    out->max_ = max;
  }
  out->count_ = count;
  out->sum_ = sum;
  out->overflow_count_ = overflow_count;
  return true;
}

bool LatencyHistogram::operator==(const LatencyHistogram& other) const {
  return count_ == other.count_ && overflow_count_ == other.overflow_count_ && sum_ == other.sum_ &&
         min_ == other.min_ && max_ == other.max_ && counts_ == other.counts_;
}

uint64_t LatencyHistogram::LowestEquivalentValue(std::size_t index) {
  if (index < kSubBucketCount) return index;  // bucket 0: one value per sub-bucket
  const uint64_t bucket = (index >> kSubBucketHalfCountMagnitude) - 1;
  const uint64_t sub_bucket = index - (bucket << kSubBucketHalfCountMagnitude);
  return sub_bucket << bucket;
}

uint64_t LatencyHistogram::HighestEquivalentValue(std::size_t index) {
  if (index < kSubBucketCount) return index;
  const uint64_t bucket = (index >> kSubBucketHalfCountMagnitude) - 1;
  return LowestEquivalentValue(index) + (uint64_t{1} << bucket) - 1;
}

uint64_t LatencyHistogram::ValueAtRank(uint64_t rank, std::size_t* index, uint64_t* cumulative) const {
  if (rank <= 1) return min_;
  if (rank >= count_) return max_;
  // rank < count_, so the walk stops before the end of counts_.
  while (*cumulative + counts_[*index] < rank) {
    *cumulative += counts_[*index];
    ++*index;
  }
  return std::clamp(HighestEquivalentValue(*index), min_, max_);
}

}  // namespace lather
