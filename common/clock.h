// MonotonicNanos: the service's clock for deadlines and health checks (std::chrono::steady_clock, which is
// CLOCK_MONOTONIC on Linux). Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>

namespace lather {

// Nanoseconds on the monotonic clock (a process-independent origin on Linux: comparable across processes).
inline int64_t MonotonicNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace lather
