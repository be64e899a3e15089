// LiveLatency: a coarse log-scale latency histogram (4 buckets per power of two, about 19% wide)
// that one load thread writes and the coordinating thread reads while the run goes on, for the live
// p99 of the progress line. The writer is the only one to store (relaxed loads and stores, no lock,
// no read-modify-write); the reader takes cumulative snapshots and subtracts the previous one.
// The exact figures come from LatencyHistogram after the run.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace lather {

class LiveLatency {
 public:
  static constexpr size_t kBuckets = 4 * 40;
  using Counts = std::array<uint64_t, kBuckets>;

  // Owner thread only.
  void Record(uint64_t nanos) {
    std::atomic<uint64_t>& c = counts_[Index(nanos)];
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  // Any thread: adds this histogram's cumulative counts to *counts.
  void AddTo(Counts* counts) const {
    for (size_t i = 0; i < kBuckets; ++i) (*counts)[i] += counts_[i].load(std::memory_order_relaxed);
  }

  // The upper bound (ns) of the bucket holding the `percentile` (0..100) of `counts`; 0 if empty.
  static uint64_t Percentile(const Counts& counts, double percentile);

  static size_t Index(uint64_t nanos);
  static uint64_t UpperBoundNanos(size_t index);

 private:
  std::array<std::atomic<uint64_t>, kBuckets> counts_{};
};

}  // namespace lather
