#include "stress/measure/live_latency.h"

#include <cmath>

namespace lather {

size_t LiveLatency::Index(uint64_t nanos) {
  const uint64_t v = nanos / 1000 + 1;  // microseconds, from 1
  if (v < 4) return static_cast<size_t>(v);
  const int lg = 63 - __builtin_clzll(v);
  const uint64_t mantissa = v >> (lg - 2);  // 4..7
  const size_t index = static_cast<size_t>(lg) * 4 + static_cast<size_t>(mantissa - 4);
  return index < kBuckets ? index : kBuckets - 1;
}

uint64_t LiveLatency::UpperBoundNanos(size_t index) {
  if (index < 4) return (index + 1) * 1000;
  const size_t lg = index / 4;
  const uint64_t mantissa = 4 + index % 4;
  return ((mantissa + 1) << (lg - 2)) * 1000;
}

uint64_t LiveLatency::Percentile(const Counts& counts, double percentile) {
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  if (total == 0) return 0;
  const uint64_t rank = static_cast<uint64_t>(std::ceil(percentile / 100.0 * static_cast<double>(total)));
  uint64_t seen = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    seen += counts[i];
    if (seen >= rank && counts[i] > 0) return UpperBoundNanos(i);
  }
  return UpperBoundNanos(kBuckets - 1);
}

}  // namespace lather
