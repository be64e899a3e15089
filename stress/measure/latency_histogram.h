// LatencyHistogram: request latencies in nanoseconds for lather-stress, kept in an HdrHistogram-style
// log-linear layout so percentiles can be read at report time with a bounded relative error.
//
// Layout (as in HdrHistogram_c with a 1 ns unit and 256 sub-buckets): values 0..255 ns each have their
// own bucket (exact); above that, every power-of-two range [2^k, 2^(k+1)) is split into 128 equal
// sub-buckets, so a bucket is never wider than 1/128 (0.78%) of its lowest value. Values below 1 us are
// therefore recorded, not clamped: exactly below 256 ns and within 0.78% above. Values above kMaxValue
// (60 s) are recorded as kMaxValue and counted in overflow_count(). All memory (about 30 KB) is allocated
// by the constructor; Record() never allocates.
//
// Thread-safety: not thread-safe. Const methods may run concurrently with each other but not with
// Record(), RecordN(), Merge() or Reset(). Give each thread its own histogram and Merge() them into one
// after the threads are joined.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lather {

class LatencyHistogram {
 public:
  // The largest value kept as is (60 s); larger values are clamped to it.
  static constexpr uint64_t kMaxValue = 60'000'000'000;
  // Linear sub-buckets per power of two (the bucket at 2^k..2^(k+1) has kSubBucketCount / 2 of them).
  static constexpr uint64_t kSubBucketCount = 256;

  // An empty histogram with all of its buckets allocated.
  LatencyHistogram();

  // Copyable and movable; a moved-from histogram may only be assigned to or destroyed.
  LatencyHistogram(const LatencyHistogram&) = default;
  LatencyHistogram& operator=(const LatencyHistogram&) = default;
  LatencyHistogram(LatencyHistogram&&) = default;
  LatencyHistogram& operator=(LatencyHistogram&&) = default;

  // Records one latency. O(1): a count-leading-zeros, a shift and an increment.
  void Record(uint64_t nanos) { RecordN(nanos, 1); }
  // Records `count` latencies of `nanos` each; a `count` of 0 records nothing.
  void RecordN(uint64_t nanos, uint64_t count);

  // Adds every value recorded in `other` to this histogram (merging with itself doubles it).
  void Merge(const LatencyHistogram& other);

  // Forgets every recorded value; the buckets stay allocated.
  void Reset();

  // The number of values recorded (overflowed ones included).
  uint64_t count() const { return count_; }
  // The number of values that were above kMaxValue and were recorded as kMaxValue.
  uint64_t overflow_count() const { return overflow_count_; }
  // The exact smallest recorded value, or 0 when empty.
  uint64_t min() const { return count_ == 0 ? 0 : min_; }
  // The exact largest recorded value (at most kMaxValue), or 0 when empty.
  uint64_t max() const { return max_; }
  // The exact sum of the recorded values (clamped ones count as kMaxValue; wraps after ~584 years).
  uint64_t sum() const { return sum_; }
  // The exact mean of the recorded values, or 0 when empty.
  double Mean() const;
  // The population standard deviation, from the buckets (within ~1%), or 0 when empty.
  double StdDev() const;

  // The nearest-rank percentile: the smallest recorded value v with at least ceil(percentile / 100 *
  // count()) values <= v, reported as the highest value of v's bucket kept within [min(), max()], so it
  // is within 1% of the exact value. Percentile 0 is min() and 100 is max(), both exact; the argument is
  // clamped to 0..100. Returns 0 when empty. O(number of buckets).
  uint64_t ValueAtPercentile(double percentile) const;

  // The "full percentile spectrum" as (percentile, value) pairs in increasing order: 0, 10, ..., 90,
  // then the distance to 100 stepping 5, 2.5, 1, 0.5, 0.25, 0.1, ... (95, 97.5, 99, 99.5, 99.75, 99.9,
  // 99.95, 99.975, 99.99, ...) while the percentile still ranks below the largest value, then 100.
  // Empty when nothing was recorded. One pass over the buckets.
  std::vector<std::pair<double, uint64_t>> Percentiles() const;

  // One bucket that holds values: the lowest and highest value it stands for, and how many it holds.
  struct Bucket {
    uint64_t lowest = 0;
    uint64_t highest = 0;
    uint64_t count = 0;
  };
  // The buckets that hold at least one value, in increasing order of value (the sparse form that JSON
  // reports carry). O(number of buckets).
  std::vector<Bucket> NonEmptyBuckets() const;
  // Every bucket in order, empty ones too, as HdrHistogram's iterators walk them; `visit(lowest, highest,
  // count)` is called for indexes 0 .. the bucket of max(). Nothing is visited when empty.
  template <typename Visit>
  void ForEachBucket(Visit visit) const;

  // Rebuilds a histogram from its sparse form: each (lowest value, count) of NonEmptyBuckets(), and the
  // exact count, sum, min, max and overflow count. Returns false, leaving *out empty and *error saying
  // why, when the parts disagree (a value that is not the lowest of its bucket, buckets out of order or
  // repeated, counts that do not add up to `count`, min or max outside the buckets that hold values).
  static bool FromBuckets(const std::vector<std::pair<uint64_t, uint64_t>>& buckets, uint64_t count, uint64_t sum,
                          uint64_t min, uint64_t max, uint64_t overflow_count, LatencyHistogram* out,
                          std::string* error);

  // HdrHistogram's names for this layout, as its .hgrm footer prints them: 29 buckets (powers of two)
  // of kSubBucketCount sub-buckets cover 0..kMaxValue.
  static constexpr int BucketCount() {
    return static_cast<int>((CountsLength() - 1) >> kSubBucketHalfCountMagnitude);
  }

  // True when both hold the same count in every bucket and the same count, sum, min, max and overflow.
  bool operator==(const LatencyHistogram& other) const;
  bool operator!=(const LatencyHistogram& other) const { return !(*this == other); }

  // The bytes this histogram occupies, the object and its bucket array.
  std::size_t MemoryBytes() const { return sizeof(*this) + counts_.capacity() * sizeof(uint64_t); }

 private:
  // log2(kSubBucketCount / 2): a bucket above the first holds 2^kSubBucketHalfCountMagnitude sub-buckets.
  static constexpr int kSubBucketHalfCountMagnitude = 7;
  static constexpr uint64_t kSubBucketMask = kSubBucketCount - 1;

  // The index in counts_ of the bucket holding `value` (value <= kMaxValue).
  static constexpr std::size_t CountsIndex(uint64_t value) {
    // Bucket b >= 1 holds [2^(b+7), 2^(b+8)) in steps of 2^b; bucket 0 holds [0, 256) in steps of 1.
    const int bucket = 64 - __builtin_clzll(value | kSubBucketMask) - (kSubBucketHalfCountMagnitude + 1);
    const uint64_t sub_bucket = value >> bucket;
    return static_cast<std::size_t>((static_cast<uint64_t>(bucket) << kSubBucketHalfCountMagnitude) +
                                    sub_bucket);
  }

  // The number of buckets needed for values 0..kMaxValue (3808).
  static constexpr std::size_t CountsLength() { return CountsIndex(kMaxValue) + 1; }

  // The lowest and highest values that land in the bucket at `index`.
  static uint64_t LowestEquivalentValue(std::size_t index);
  static uint64_t HighestEquivalentValue(std::size_t index);

  // The value of nearest rank `rank` (1-based). Walks the buckets from *index, where *cumulative is the
  // total count of the buckets before *index, and leaves both at the bucket found, so a caller asking
  // for increasing ranks makes a single pass.
  uint64_t ValueAtRank(uint64_t rank, std::size_t* index, uint64_t* cumulative) const;

  std::vector<uint64_t> counts_;  // CountsLength() buckets
  uint64_t count_ = 0;
  uint64_t overflow_count_ = 0;
  uint64_t sum_ = 0;
  uint64_t min_ = UINT64_MAX;  // UINT64_MAX when empty
  uint64_t max_ = 0;
};

inline void LatencyHistogram::RecordN(uint64_t nanos, uint64_t count) {
  if (count == 0) return;
  if (nanos > kMaxValue) {
    nanos = kMaxValue;
    overflow_count_ += count;
  }
  counts_[CountsIndex(nanos)] += count;
  count_ += count;
  sum_ += nanos * count;
  if (nanos < min_) min_ = nanos;
  if (nanos > max_) max_ = nanos;
}

template <typename Visit>
void LatencyHistogram::ForEachBucket(Visit visit) const {
  if (count_ == 0) return;
  const std::size_t last = CountsIndex(max_);
  for (std::size_t i = 0; i <= last; ++i) visit(LowestEquivalentValue(i), HighestEquivalentValue(i), counts_[i]);
}

}  // namespace lather
