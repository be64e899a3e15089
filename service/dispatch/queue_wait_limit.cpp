#include "service/dispatch/queue_wait_limit.h"

#include <algorithm>
#include <limits>

namespace lather {

void QueueWaitLimit::Configure(double limit_seconds, double standing_seconds) {
  limit_seconds_ = std::max(0.0, limit_seconds);
  // A short limit longer than the operator's limit would never refuse anything the other does not.
  standing_seconds_ = limit_seconds_ > 0 ? std::min(std::max(0.0, standing_seconds), limit_seconds_)
                                         : std::max(0.0, standing_seconds);
  shortest_wait_ = std::numeric_limits<double>::infinity();
  interval_end_ns_ = 0;
  standing_ = false;
}

void QueueWaitLimit::EndInterval(int64_t now_ns) {
  // A standing queue: requests were judged in the interval and none of them had waited under the short
  // limit. An interval that judged none (the loop was idle) ends it. The next interval starts now: after an
  // idle gap the first request's interval is a whole one.
  const bool judged = shortest_wait_ != std::numeric_limits<double>::infinity();
  standing_ = judged && interval_end_ns_ != 0 && now_ns - interval_end_ns_ < kIntervalNanos &&
              shortest_wait_ > standing_seconds_;
  shortest_wait_ = std::numeric_limits<double>::infinity();
  interval_end_ns_ = now_ns + kIntervalNanos;
}

}  // namespace lather
