#include "common/log_limiter.h"

#include <catch2/catch.hpp>

#include <chrono>

using lather::LogLimiter;

TEST_CASE("the log limiter admits its budget per second and reports what it left out", "[common][log]") {
  LogLimiter limiter(3);
  const LogLimiter::Clock::time_point t0 = LogLimiter::Clock::now();
  uint64_t suppressed = 99;
  for (int i = 0; i < 3; ++i) {
    REQUIRE(limiter.Admit(t0 + std::chrono::milliseconds(i), &suppressed));
    CHECK(suppressed == 0);
  }
  for (int i = 0; i < 10; ++i) CHECK_FALSE(limiter.Admit(t0 + std::chrono::milliseconds(100 + i), &suppressed));
  // A new window: admitted again, with the count of the ten left out.
  REQUIRE(limiter.Admit(t0 + std::chrono::milliseconds(1001), &suppressed));
  CHECK(suppressed == 10);
  REQUIRE(limiter.Admit(t0 + std::chrono::milliseconds(1002), &suppressed));
  CHECK(suppressed == 0);
}
