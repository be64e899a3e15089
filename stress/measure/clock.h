// NowNanos: the harness's clock (CLOCK_MONOTONIC, as std::chrono::steady_clock). Thread-safe.
#pragma once

#include <time.h>

#include <cstdint>

namespace lather {

// Monotonic clock in nanoseconds.
inline uint64_t NowNanos() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace lather
