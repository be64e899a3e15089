// StarvationGuard: keeps refusing by age (--max-queue-wait) from starving the service. With a fixed number of
// calls in flight (a crowd of clients, a load generator) and more offered than the service can serve, the
// queue in its sockets stands at (calls in flight) / (requests read per second); when that is longer than the
// limit, every request is over it by the time it is read, is refused, and its client's next call joins the
// back of the queue: the service refuses everything and serves nothing (bench/overload, 4,000 calls in
// flight: 29 calls/s served of a 15,000/s capacity, docs/pressure.md). A loop that has refused at least
// kStarvedRefusals requests in each of kStarvedIntervals 100 ms intervals in a row, and served none within
// the limit, is starving: it then serves one in kServeOneIn of the requests over the limit, until an interval
// serves one within the limit again or refuses fewer. A burst of old requests (a client or the service paused
// for a moment) is refused whole, as before. Not thread-safe: one per RequestRouter (per serving thread).
#pragma once

#include <time.h>

#include <cstdint>

namespace lather {

class StarvationGuard {
 public:
  static constexpr int64_t kIntervalNanos = 100'000'000;
  static constexpr uint32_t kStarvedRefusals = 1000;
  static constexpr int kStarvedIntervals = 2;
  static constexpr uint32_t kServeOneIn = 4;

  // Whether the loop is starving, at `now_ns` (a monotonic clock; coarse is enough).
  bool Starving(int64_t now_ns) {
    if (now_ns >= interval_end_ns_) EndInterval(now_ns);
    return starved_intervals_ >= kStarvedIntervals;
  }
  // While Starving(): true for one in kServeOneIn of the requests over the limit (serve it anyway).
  bool ServeAnyway() { return ++over_limit_ % kServeOneIn == 0; }
  // A request over the limit was refused.
  void Refused() { ++refused_; }
  // A request within the limit was served.
  void ServedInLimit() { ++served_in_limit_; }

  // CLOCK_MONOTONIC_COARSE: no system call, a few milliseconds' resolution (enough for 100 ms intervals).
  static int64_t CoarseNowNanos() {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
  }

 private:
  void EndInterval(int64_t now_ns);

  int64_t interval_end_ns_ = 0;
  uint32_t refused_ = 0;
  uint32_t served_in_limit_ = 0;
  uint32_t over_limit_ = 0;
  int starved_intervals_ = 0;
};

}  // namespace lather
