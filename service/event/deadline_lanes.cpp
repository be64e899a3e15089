#include "service/event/deadline_lanes.h"

#include <algorithm>

namespace lather {

int DeadlineLanes::LaneFor(int64_t length_ns) {
  for (size_t i = 0; i < lanes_.size(); ++i) {
    if (lanes_[i].length_ns == length_ns) return static_cast<int>(i);
  }
  lanes_.push_back(Lane{length_ns, nullptr, nullptr});
  return static_cast<int>(lanes_.size() - 1);
}

void DeadlineLanes::Arm(Entry* entry, std::chrono::milliseconds after, int64_t now_ns) {
  Disarm(entry);
  const int64_t length_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(after).count();
  const int index = LaneFor(length_ns);
  Lane& lane = lanes_[static_cast<size_t>(index)];
  // A lane's entries share one length, so the newest is due last: the tail keeps the lane in order. (The
  // clock is monotonic; an entry armed in the same nanosecond as the tail's is due with it.)
  entry->due_ns_ = lane.tail != nullptr ? std::max(now_ns + length_ns, lane.tail->due_ns_) : now_ns + length_ns;
  entry->lane_ = index;
  entry->prev_ = lane.tail;
  entry->next_ = nullptr;
  if (lane.tail != nullptr) {
    lane.tail->next_ = entry;
  } else {
    lane.head = entry;
  }
  lane.tail = entry;
  ++armed_;
}

void DeadlineLanes::Disarm(Entry* entry) {
  if (entry->lane_ < 0) return;
  Lane& lane = lanes_[static_cast<size_t>(entry->lane_)];
  (entry->prev_ != nullptr ? entry->prev_->next_ : lane.head) = entry->next_;
  (entry->next_ != nullptr ? entry->next_->prev_ : lane.tail) = entry->prev_;
  entry->prev_ = entry->next_ = nullptr;
  entry->lane_ = -1;
  --armed_;
}

int64_t DeadlineLanes::next_due_ns() const {
  int64_t earliest = kNever;
  for (const Lane& lane : lanes_) {
    if (lane.head != nullptr) earliest = std::min(earliest, lane.head->due_ns_);
  }
  return earliest;
}

size_t DeadlineLanes::Expire(int64_t now_ns, size_t budget) {
  size_t expired = 0;
  while (expired < budget) {
    // The earliest head among the lanes, if it is due.
    Lane* due = nullptr;
    for (Lane& lane : lanes_) {
      if (lane.head == nullptr || lane.head->due_ns_ > now_ns) continue;
      if (due == nullptr || lane.head->due_ns_ < due->head->due_ns_) due = &lane;
    }
    if (due == nullptr) break;
    Entry* entry = due->head;
    Disarm(entry);
    ++expired;
    entry->DeadlineExpired();  // may arm it again, or arm or disarm others
  }
  return expired;
}

}  // namespace lather
