// MonotonicNanos: the service's clock for deadlines and health checks (std::chrono::steady_clock, which is
// CLOCK_MONOTONIC on Linux); ThreadCpuNanos: the calling thread's CPU time. Thread-safe.
#pragma once

#include <time.h>

#include <chrono>
#include <cstdint>

namespace lather {

// Nanoseconds on the monotonic clock (a process-independent origin on Linux: comparable across processes).
inline int64_t MonotonicNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID: user and system), in nanoseconds. A system
// call (no vDSO for this clock): about a few hundred nanoseconds, so kept off paths that run per call.
inline int64_t ThreadCpuNanos() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

}  // namespace lather
