// ArrivalBounds: the earliest arrival of a request at a stream offset, from the connection's observations of its
// socket's queue (docs/pressure.md, "The receive stamp of a pipelined request").
#include "service/event/arrival_bounds.h"

#include <catch2/catch.hpp>

using lather::ArrivalBounds;

TEST_CASE("with nothing observed a request's arrival is its stamp", "[service][event][arrival]") {
  const ArrivalBounds bounds;
  CHECK(bounds.EarliestArrival(0, 500) == 500);
  CHECK(bounds.last_end() == 0);
}

TEST_CASE("a request past the queue's end at an observation arrived after it", "[service][event][arrival]") {
  ArrivalBounds bounds;
  bounds.Observe(100, 0);       // the connection opened: nothing queued
  bounds.Observe(200, 1000);    // a read emptied the socket at offset 1,000
  bounds.Observe(300, 5000);    // at a later read the queue ended at 5,000
  // Requests read now (stamped 390, the newest merged segment's arrival):
  CHECK(bounds.EarliestArrival(0, 390) == 100);     // queued before the first read: after the open only
  CHECK(bounds.EarliestArrival(1000, 390) == 200);  // past the emptying read
  CHECK(bounds.EarliestArrival(4999, 390) == 200);  // held at 300, not at 200: came between them
  CHECK(bounds.EarliestArrival(5000, 390) == 300);  // past the queue at 300
  CHECK(bounds.EarliestArrival(9000, 390) == 300);
  CHECK(bounds.EarliestArrival(9000, 250) == 250);  // a stamp earlier than the bound wins
  CHECK(bounds.last_end() == 5000);
}

TEST_CASE("an observation at the same end moves its time on and older ones roll off", "[service][event][arrival]") {
  ArrivalBounds bounds;
  bounds.Observe(100, 1000);
  bounds.Observe(150, 1000);  // still emptied at 1,000: bytes past it came after 150
  CHECK(bounds.EarliestArrival(1000, 900) == 150);
  bounds.Observe(140, 900);   // out of order: ignored
  CHECK(bounds.last_end() == 1000);
  for (int i = 1; i <= 4; ++i) bounds.Observe(200 + i, 1000 + static_cast<uint64_t>(i) * 100);  // 1,100 .. 1,400
  // 1,000 at 150 rolled off (four kept): a request at 1,000 was held by every one kept: by the oldest, 201.
  CHECK(bounds.EarliestArrival(1000, 900) == 201);
  CHECK(bounds.EarliestArrival(1100, 900) == 201);
  CHECK(bounds.EarliestArrival(1350, 900) == 203);
  CHECK(bounds.EarliestArrival(1400, 900) == 204);
}
