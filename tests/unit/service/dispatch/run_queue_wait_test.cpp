#include "service/dispatch/run_queue_wait.h"

#include <catch2/catch.hpp>

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

using lather::JobStallClock;
using lather::RunQueueWait;

namespace {

constexpr int64_t kMs = 1'000'000;

RunQueueWait::Reading At(int64_t on_cpu_ms, int64_t waited_ms, bool runnable) {
  RunQueueWait::Reading r;
  r.valid = true;
  r.on_cpu_ns = on_cpu_ms * kMs;
  r.waited_ns = waited_ms * kMs;
  r.runnable = runnable;
  return r;
}

}  // namespace

TEST_CASE("a job that spins is stuck for all its time", "[service][dispatch][run_queue_wait]") {
  JobStallClock clock;
  clock.Start(0, At(100, 50, true));
  CHECK(clock.Observe(1000 * kMs, At(1100, 50, true)) == 1000 * kMs);
  CHECK(clock.Observe(2000 * kMs, At(2100, 50, true)) == 2000 * kMs);
}

TEST_CASE("a job that sleeps (a lock never released) is stuck for all its time", "[service][dispatch][run_queue_wait]") {
  JobStallClock clock;
  clock.Start(0, At(100, 50, true));
  CHECK(clock.Observe(1000 * kMs, At(101, 50, false)) == 1000 * kMs);
  CHECK(clock.Observe(11000 * kMs, At(101, 50, false)) == 11000 * kMs);
}

TEST_CASE("a job starved of a CPU is not stuck: the wait the kernel has not booked yet counts as waiting",
          "[service][dispatch][run_queue_wait]") {
  JobStallClock clock;
  clock.Start(0, At(100, 50, true));
  // Runnable throughout, never on a CPU: the kernel's wait figure has not moved (it books it on arrival).
  CHECK(clock.Observe(1000 * kMs, At(100, 50, true)) == 0);
  CHECK(clock.Observe(12000 * kMs, At(100, 50, true)) == 0);
  // It got a CPU (30 ms of it) and the kernel booked the 12 s it had waited: the other 100 ms count; then it is
  // runnable and starved again, which adds nothing.
  CHECK(clock.Observe(12100 * kMs, At(130, 12050, true)) == 100 * kMs);
  CHECK(clock.Observe(20000 * kMs, At(130, 12050, true)) == 100 * kMs);
}

TEST_CASE("without schedstat a job's whole time counts, as a plain clock's", "[service][dispatch][run_queue_wait]") {
  JobStallClock clock;
  clock.Start(0, RunQueueWait::Reading{});
  CHECK(clock.Observe(5000 * kMs, RunQueueWait::Reading{}) == 5000 * kMs);
}

TEST_CASE("the kernel's figures of a thread are read from another thread", "[service][dispatch][run_queue_wait]") {
  RunQueueWait wait;
  std::atomic<bool> opened{false};
  std::promise<void> stop;
  std::shared_future<void> stopped = stop.get_future().share();
  std::thread sleeper([&] {
    wait.OpenForThisThread();
    opened = true;
    stopped.wait();  // blocked (state S) until the reading is taken
  });
  while (!opened) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // long enough to be asleep, even on a busy host
  const RunQueueWait::Reading r = wait.Read();
  stop.set_value();
  sleeper.join();
  if (!r.valid) {
    SUCCEED("SKIPPED: this kernel keeps no schedstat");
    return;
  }
  CHECK(r.on_cpu_ns > 0);
  CHECK(r.waited_ns >= 0);
  CHECK_FALSE(r.runnable);  // blocked on the future
}
