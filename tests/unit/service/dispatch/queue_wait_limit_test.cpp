#include "service/dispatch/queue_wait_limit.h"

#include <catch2/catch.hpp>
#include <cstdint>

using lather::QueueWaitLimit;

namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kInterval = QueueWaitLimit::kIntervalNanos;

// Judges one request every millisecond from `from_ns` for `span_ns`, each having waited `waited`; returns the
// limit the last one was judged against and leaves `*now` after the span.
double Feed(QueueWaitLimit* limit, int64_t* now, int64_t span_ns, double waited) {
  double applied = 0;
  for (const int64_t end = *now + span_ns; *now < end; *now += kMs) applied = limit->Observe(waited, *now);
  return applied;
}

}  // namespace

TEST_CASE("without a short limit the operator's limit always applies",
          "[service][dispatch][queue-wait-limit]") {
  QueueWaitLimit limit;
  limit.Configure(0.05, 0);
  int64_t now = kMs;
  CHECK(Feed(&limit, &now, 5 * kInterval, 0.040) == 0.05);
  CHECK_FALSE(limit.standing());
}

TEST_CASE("an interval in which no request waited under the short limit makes the next one standing",
          "[service][dispatch][queue-wait-limit]") {
  QueueWaitLimit limit;
  limit.Configure(0.05, 0.001);
  int64_t now = kMs;
  // The first interval: every wait over 1 ms, but the verdict comes at its end.
  CHECK(Feed(&limit, &now, kInterval, 0.003) == 0.05);
  CHECK(limit.Observe(0.003, now) == 0.001);
  CHECK(limit.standing());
  // Stays standing while every wait is over the short limit (the refused ones count too).
  CHECK(Feed(&limit, &now, 3 * kInterval, 0.002) == 0.001);
}

TEST_CASE("one wait under the short limit ends the standing queue at the interval's end",
          "[service][dispatch][queue-wait-limit]") {
  QueueWaitLimit limit;
  limit.Configure(0.05, 0.001);
  int64_t now = kMs;
  Feed(&limit, &now, 2 * kInterval, 0.003);
  REQUIRE(limit.standing());
  const int64_t interval_start = now;
  Feed(&limit, &now, kInterval / 2, 0.003);
  CHECK(limit.Observe(0.0002, now) == 0.001);  // still standing until the interval ends
  Feed(&limit, &now, interval_start + kInterval - now, 0.003);
  CHECK(limit.Observe(0.003, now) == 0.05);
  CHECK_FALSE(limit.standing());
}

TEST_CASE("a loop idle for longer than an interval is not standing when it judges again",
          "[service][dispatch][queue-wait-limit]") {
  QueueWaitLimit limit;
  limit.Configure(0.05, 0.001);
  int64_t now = kMs;
  Feed(&limit, &now, 2 * kInterval, 0.003);
  REQUIRE(limit.standing());
  now += 3 * kInterval;  // nothing to judge: the queue emptied
  CHECK(limit.Observe(0.003, now) == 0.05);
  CHECK_FALSE(limit.standing());
}

TEST_CASE("a short limit above the operator's is the operator's", "[service][dispatch][queue-wait-limit]") {
  QueueWaitLimit limit;
  limit.Configure(0.002, 0.005);
  CHECK(limit.standing_seconds() == 0.002);
  limit.Configure(0, 0.005);  // no operator's limit: the short one alone
  CHECK(limit.standing_seconds() == 0.005);
  CHECK(limit.Observe(0.010, kMs) == 0);
}
