// ArrivalBounds: how early a request on one connection can have arrived, from what the connection saw of its
// socket. The kernel stamps the data a read returns with the arrival of the newest segment merged into it: a
// segment that arrives while an earlier one is still queued unread is merged into it and the merged buffer takes
// the newer stamp (tcp_try_coalesce). So a pipelined request still queued when the next one came reads with the
// next one's stamp, and its own wait is invisible (docs/pressure.md, "The receive stamp of a pipelined
// request"). What the connection does know: "at time T the socket's queue ended at stream offset E" (a read that
// emptied it, or the queue's length asked at a read): every byte past E arrived after T. A request that starts at
// offset O arrived after the newest such observation with E <= O.
//
// Fixed size (kKept observations), no allocation; one per connection, its loop's thread only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace lather {

class ArrivalBounds {
 public:
  static constexpr size_t kKept = 4;

  // The socket's queue ended at stream offset `end` at `ns` (CLOCK_REALTIME, the stamps' clock). Observations
  // come in order of time, their ends never decreasing; one at the newest's end replaces it (a later time for
  // the same end is the tighter bound).
  void Observe(int64_t ns, uint64_t end);

  // The earliest a request that starts at stream offset `offset`, read with the kernel's `stamp`, can have
  // arrived: the newest observation that did not hold it (it arrived after that), or, when every observation kept
  // held it, the oldest one (it had arrived by then); `stamp` when that is earlier, or when nothing was observed.
  int64_t EarliestArrival(uint64_t offset, int64_t stamp) const;

  // The end of the queue at the newest observation (0: none yet).
  uint64_t last_end() const { return count_ == 0 ? 0 : seen_[Newest()].end; }

 private:
  struct Seen {
    int64_t ns = 0;
    uint64_t end = 0;
  };
  size_t Newest() const { return (next_ + kKept - 1) % kKept; }

  std::array<Seen, kKept> seen_{};
  uint8_t count_ = 0;  // observations kept (up to kKept)
  uint8_t next_ = 0;   // where the next one goes
};

}  // namespace lather
