#include "service/dispatch/run_queue_wait.h"

#include <catch2/catch.hpp>

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>

using lather::RunQueueWait;

namespace {

// Pins the calling thread to `cpu`; false if it cannot.
bool PinTo(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

int CurrentCpu() { return sched_getcpu(); }

}  // namespace

TEST_CASE("a thread that sleeps does not wait on a run queue", "[service][dispatch][run_queue_wait]") {
  RunQueueWait wait;
  if (!wait.OpenForThisThread()) {
    SUCCEED("SKIPPED: this kernel keeps no schedstat");
    return;
  }
  const int64_t before = wait.ReadNanos();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // Waking up may wait for a CPU a little, never for most of the sleep.
  CHECK(wait.ReadNanos() - before < 100'000'000);
}

TEST_CASE("a SCHED_IDLE thread starved by a busy one on its core waits on the run queue, read from another thread",
          "[service][dispatch][run_queue_wait]") {
  const int cpu = CurrentCpu();
  RunQueueWait wait;
  std::atomic<bool> opened{false}, stop{false}, hog_started{false};
  std::atomic<bool> available{true};
  std::thread starved([&] {
    PinTo(cpu);
    sched_param none{};
    if (!wait.OpenForThisThread() || pthread_setschedparam(pthread_self(), SCHED_IDLE, &none) != 0) {
      available = false;
    }
    opened = true;
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  while (!opened) std::this_thread::yield();
  if (!available) {
    stop = true;
    starved.join();
    SUCCEED("SKIPPED: no schedstat or SCHED_IDLE here");
    return;
  }
  const int64_t before = wait.ReadNanos();
  std::thread hog([&] {
    PinTo(cpu);
    hog_started = true;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    while (std::chrono::steady_clock::now() < until) {
    }
  });
  hog.join();
  const int64_t waited = wait.ReadNanos() - before;
  stop = true;
  starved.join();
  REQUIRE(hog_started);
  // The hog ran 300 ms of wall time on the core; the idle thread, runnable throughout, waited nearly all of it
  // (more if other programs took the core too).
  CHECK(waited > 150'000'000);
}
