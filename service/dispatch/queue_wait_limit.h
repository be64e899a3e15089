// QueueWaitLimit: how long a SOAP request may have waited (from the kernel's receive stamp) and still run.
// Two limits: the operator's --max-queue-wait, and, when --standing-queue-wait is set, a shorter one that
// applies only while a standing queue is seen (CoDel's rule, Nichols and Jacobson 2012, as RPC servers use
// it for their request queues): when no request judged in a 100 ms interval waited less than the short
// limit, requests arrive faster than they are served, so every one admitted would only wait behind the
// others; in the next interval a request that waited longer than the short limit is refused (503), and the
// served ones keep about the unloaded latency. An interval with one shorter wait ends it.
// Not thread-safe: one per RequestRouter (per serving thread).
#pragma once

#include <time.h>

#include <cstdint>
#include <limits>

namespace lather {

class QueueWaitLimit {
 public:
  static constexpr int64_t kIntervalNanos = 100'000'000;

  // `limit_seconds` 0: no limit at all; `standing_seconds` 0: no short limit.
  void Configure(double limit_seconds, double standing_seconds);

  // Counts a request that waited `waited_seconds`, judged at `now_ns` (any monotonic clock, coarse is
  // enough), and returns the limit it is judged against (0: none).
  double Observe(double waited_seconds, int64_t now_ns) {
    if (standing_seconds_ <= 0) return limit_seconds_;
    if (now_ns >= interval_end_ns_) EndInterval(now_ns);
    if (waited_seconds < shortest_wait_) shortest_wait_ = waited_seconds;
    return standing_ ? standing_seconds_ : limit_seconds_;
  }

  // CLOCK_MONOTONIC_COARSE (no system call; a few milliseconds' resolution, enough for 100 ms intervals).
  static int64_t CoarseNowNanos() {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
  }

  // True while the short limit applies (the last interval saw no wait under it).
  bool standing() const { return standing_; }
  double limit_seconds() const { return limit_seconds_; }
  double standing_seconds() const { return standing_seconds_; }

 private:
  void EndInterval(int64_t now_ns);

  double limit_seconds_ = 0;
  double standing_seconds_ = 0;
  double shortest_wait_ =
      std::numeric_limits<double>::infinity();  // of the interval so far (infinity: none yet)
  int64_t interval_end_ns_ = 0;
  bool standing_ = false;
};

}  // namespace lather
