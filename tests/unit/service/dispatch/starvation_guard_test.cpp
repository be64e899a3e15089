#include "service/dispatch/starvation_guard.h"

#include <catch2/catch.hpp>
#include <cstdint>

using lather::StarvationGuard;

namespace {

constexpr int64_t kInterval = StarvationGuard::kIntervalNanos;

// Refuses `n` requests over the limit spread over one interval from *now (the guard deciding as the router
// does: a starving loop serves some anyway); returns how many it served anyway, and leaves *now at its end.
uint32_t OverLimit(StarvationGuard* guard, int64_t* now, uint32_t n) {
  uint32_t served = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (guard->Starving(*now + kInterval * i / n) && guard->ServeAnyway()) {
      ++served;
    } else {
      guard->Refused();
    }
  }
  *now += kInterval;
  return served;
}

}  // namespace

TEST_CASE("a loop that only refuses, many a tenth of a second, for two in a row, serves one in four",
          "[service][dispatch][starvation]") {
  StarvationGuard guard;
  int64_t now = 1'000'000;
  CHECK(OverLimit(&guard, &now, 3000) == 0);  // the first interval: judged at its end
  CHECK(OverLimit(&guard, &now, 3000) == 0);  // the second: starved twice only at its end
  const uint32_t served = OverLimit(&guard, &now, 3000);
  CHECK(served == 3000 / StarvationGuard::kServeOneIn);
  // It keeps serving some while every request is still over the limit (its refusals stay many).
  CHECK(OverLimit(&guard, &now, 3000) == 3000 / StarvationGuard::kServeOneIn);
}

TEST_CASE("a request served within the limit ends the starving at the interval's end",
          "[service][dispatch][starvation]") {
  StarvationGuard guard;
  int64_t now = 1'000'000;
  for (int i = 0; i < 3; ++i) OverLimit(&guard, &now, 3000);
  REQUIRE(guard.Starving(now));
  guard.ServedInLimit();
  OverLimit(&guard, &now, 3000);  // still starving through this interval
  CHECK_FALSE(guard.Starving(now + 1));
}

TEST_CASE("a burst of old requests is refused whole", "[service][dispatch][starvation]") {
  // 400 stale requests at once (a client, or the service, paused for a moment), again and again: never
  // the thousand refusals a tenth of a second with none served that starving takes.
  StarvationGuard guard;
  int64_t now = 1'000'000;
  for (int burst = 0; burst < 20; ++burst) CHECK(OverLimit(&guard, &now, 400) == 0);
  // Many refused with one served within the limit in each interval: not starving either.
  for (int i = 0; i < 5; ++i) {
    guard.ServedInLimit();
    CHECK(OverLimit(&guard, &now, 5000) == 0);
  }
}

TEST_CASE("refusals after a quiet gap start counting afresh", "[service][dispatch][starvation]") {
  StarvationGuard guard;
  int64_t now = 1'000'000;
  OverLimit(&guard, &now, 3000);
  now += 5 * kInterval;  // nothing judged for half a second
  CHECK(OverLimit(&guard, &now, 3000) == 0);
  CHECK(OverLimit(&guard, &now, 3000) == 0);
}
