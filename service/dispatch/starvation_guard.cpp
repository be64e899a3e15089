#include "service/dispatch/starvation_guard.h"

namespace lather {

void StarvationGuard::EndInterval(int64_t now_ns) {
  // The interval that ended starved if it refused many and served none within the limit. One that ended
  // longer than an interval ago (nothing was refused since) says nothing about now.
  const bool recent = interval_end_ns_ != 0 && now_ns - interval_end_ns_ < kIntervalNanos;
  const bool starved = recent && served_in_limit_ == 0 && refused_ >= kStarvedRefusals;
  starved_intervals_ = starved ? starved_intervals_ + 1 : 0;
  refused_ = served_in_limit_ = 0;
  interval_end_ns_ = now_ns + kIntervalNanos;
}

}  // namespace lather
