#include "service/event/arrival_bounds.h"

#include <algorithm>

namespace lather {

void ArrivalBounds::Observe(int64_t ns, uint64_t end) {
  if (count_ > 0) {
    Seen& newest = seen_[Newest()];
    if (end <= newest.end) {  // nothing new arrived since (or an out-of-order call): the later time is tighter
      if (end == newest.end && ns > newest.ns) newest.ns = ns;
      return;
    }
  }
  seen_[next_] = Seen{ns, end};
  next_ = static_cast<uint8_t>((next_ + 1) % kKept);
  if (count_ < kKept) ++count_;
}

int64_t ArrivalBounds::EarliestArrival(uint64_t offset, int64_t stamp) const {
  if (count_ == 0) return stamp;
  size_t at = Newest();
  for (size_t i = 0; i < count_; ++i, at = (at + kKept - 1) % kKept) {
    if (seen_[at].end <= offset) return std::min(stamp, seen_[at].ns);  // it came after this observation
  }
  // Held by every observation kept: it had arrived by the oldest one.
  const size_t oldest = (next_ + kKept - count_) % kKept;
  return std::min(stamp, seen_[oldest].ns);
}

}  // namespace lather
