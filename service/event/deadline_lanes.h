// DeadlineLanes: the deadlines of one loop's connections without a timer per connection. Each timeout
// length (header, body, idle, linger, drain) is a lane, a FIFO list: entries armed with the same length
// join its tail in deadline order, so arming, moving and disarming are O(1) list moves and the earliest
// deadline of a lane is its head. The loop keeps one timer at the earliest head and, when it fires,
// expires at most a budget of entries per turn, so that thousands of deadlines falling due together
// (a wave of slow clients) are cut off between other connections' work rather than in one long turn.
// Entries are intrusive (a connection is one); an entry must be disarmed before it is destroyed.
// One loop's; not thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace lather {

class DeadlineLanes {
 public:
  // What a lane holds: derive from it and say what happens when the deadline passes.
  class Entry {
   public:
    virtual ~Entry() = default;
    bool armed() const { return lane_ >= 0; }
    int64_t due_ns() const { return due_ns_; }

   protected:
    // The deadline passed; the entry is already disarmed (it may arm itself again).
    virtual void DeadlineExpired() = 0;

   private:
    friend class DeadlineLanes;
    Entry* prev_ = nullptr;
    Entry* next_ = nullptr;
    int64_t due_ns_ = 0;
    int lane_ = -1;
  };

  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

  // Arms (or re-arms) `entry` to expire `after` from `now_ns` (monotonic nanoseconds); entry->due_ns() says
  // when (the caller's timer must not sleep past it).
  void Arm(Entry* entry, std::chrono::milliseconds after, int64_t now_ns);
  void Disarm(Entry* entry);

  // The earliest armed deadline, or kNever.
  int64_t next_due_ns() const;

  // Expires (disarms, then calls DeadlineExpired on) up to `budget` entries due at `now_ns`, earliest
  // first. Returns how many it expired; more may be due when that equals `budget`.
  size_t Expire(int64_t now_ns, size_t budget);

  size_t armed_count() const { return armed_; }

 private:
  struct Lane {
    int64_t length_ns = 0;
    Entry* head = nullptr;
    Entry* tail = nullptr;
  };
  int LaneFor(int64_t length_ns);

  std::vector<Lane> lanes_;  // a handful: one per distinct timeout length
  size_t armed_ = 0;
};

}  // namespace lather
