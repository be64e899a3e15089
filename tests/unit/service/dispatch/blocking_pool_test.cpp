#include "service/dispatch/blocking_pool.h"

#include <catch2/catch.hpp>

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "common/clock.h"

using lather::BlockingPool;

namespace {

// A pool of one thread on an in-memory store (no increments are made here).
std::unique_ptr<BlockingPool> OneThreadPool() {
  lather::ServerOptions options;
  options.store = "sqlite::memory:";
  options.pool_threads = 1;
  std::unique_ptr<BlockingPool> pool;
  REQUIRE(BlockingPool::Start(options, nullptr, &pool).ok());
  return pool;
}

// A job that reports its thread's policy once it runs, and then waits until released.
struct HeldJob {
  std::promise<pid_t> started;
  std::promise<int> policy_at_end;
  std::atomic<bool> release{false};

  BlockingPool::Job Make() {
    return [this](lather::SoapEngine&) {
      started.set_value(::gettid());
      while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      policy_at_end.set_value(sched_getscheduler(0));
    };
  }
};

int PolicyOfThread(pid_t tid) { return sched_getscheduler(tid); }

}  // namespace

TEST_CASE("a yielding job runs under SCHED_IDLE, and a normal one under the normal policy",
          "[service][dispatch][blocking_pool]") {
  auto pool = OneThreadPool();
  if (!pool->yields()) {
    WARN("SKIPPED: this process cannot leave SCHED_IDLE again (no CAP_SYS_NICE, low RLIMIT_NICE): large echoes run at nice 10");
    return;
  }
  HeldJob yielding;
  REQUIRE(pool->Submit(yielding.Make(), BlockingPool::Priority::kYielding));
  const pid_t tid = yielding.started.get_future().get();
  CHECK(PolicyOfThread(tid) == SCHED_IDLE);
  // Not past its budget: left as it is.
  CHECK(pool->EndLongYields(lather::MonotonicNanos()) == 0);
  CHECK(PolicyOfThread(tid) == SCHED_IDLE);
  yielding.release = true;
  CHECK(yielding.policy_at_end.get_future().get() == SCHED_IDLE);

  HeldJob normal;
  REQUIRE(pool->Submit(normal.Make()));
  CHECK(PolicyOfThread(normal.started.get_future().get()) == SCHED_OTHER);  // the thread was put back after the job
  normal.release = true;
  CHECK(normal.policy_at_end.get_future().get() == SCHED_OTHER);
}

TEST_CASE("a job still yielding past its budget is put back to the normal policy by EndLongYields",
          "[service][dispatch][blocking_pool]") {
  // On a core the event loops keep busy, SCHED_IDLE alone can starve a large echo - and what waits for it - for
  // tens of seconds (bench/soak): the loops' tick ends the yield after BlockingPool::kYieldBudgetNanos.
  auto pool = OneThreadPool();
  if (!pool->yields()) {
    WARN("SKIPPED: this process cannot leave SCHED_IDLE again");
    return;
  }
  HeldJob job;
  const int64_t before = lather::MonotonicNanos();
  REQUIRE(pool->Submit(job.Make(), BlockingPool::Priority::kYielding));
  const pid_t tid = job.started.get_future().get();
  REQUIRE(PolicyOfThread(tid) == SCHED_IDLE);
  // Past the budget in time off the CPU: the held job runs a little too (under TSan ~80 us of CPU in its first
  // ~100 us), so a moment exactly one budget ahead of now is not always one budget off the CPU; two budgets
  // ahead is, while the job uses less than a budget's CPU.
  const int64_t past_budget = lather::MonotonicNanos() + 2 * BlockingPool::kYieldBudgetNanos;
  CHECK(pool->EndLongYields(before + BlockingPool::kYieldBudgetNanos - 1) == 0);  // its start is after `before`
  CHECK(pool->EndLongYields(past_budget) == 1);
  CHECK(PolicyOfThread(tid) == SCHED_OTHER);
  CHECK(pool->EndLongYields(past_budget) == 0);  // once
  job.release = true;
  CHECK(job.policy_at_end.get_future().get() == SCHED_OTHER);
}

TEST_CASE("a yielding job that has run on a CPU the whole time keeps yielding, however long",
          "[service][dispatch][blocking_pool]") {
  // The budget is time off the CPU (starved or blocked), not time: a large echo that runs freely beside the loops
  // stays under SCHED_IDLE, so that a quick call preempts it at once.
  auto pool = OneThreadPool();
  if (!pool->yields()) {
    WARN("SKIPPED: this process cannot leave SCHED_IDLE again");
    return;
  }
  std::promise<std::pair<int64_t, int64_t>> ran;  // (when the job began, CPU it had used when it reported)
  std::atomic<bool> release{false};
  pid_t tid = 0;
  REQUIRE(pool->Submit([&](lather::SoapEngine&) {
    const int64_t began = lather::MonotonicNanos(), cpu = lather::ThreadCpuNanos();
    tid = ::gettid();
    while (lather::ThreadCpuNanos() - cpu < BlockingPool::kYieldBudgetNanos + 50'000'000) {
    }
    ran.set_value({began, lather::ThreadCpuNanos() - cpu});
    while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }, BlockingPool::Priority::kYielding));
  const auto [began, cpu] = ran.get_future().get();
  // At the moment its CPU time says it had been running all along (its wall time may be longer if this machine
  // is busy; the off-CPU time since is what counts), it is not put back.
  CHECK(pool->EndLongYields(began + cpu + 20'000'000) == 0);
  CHECK(PolicyOfThread(tid) == SCHED_IDLE);
  release = true;
}

TEST_CASE("a stopping pool runs the jobs it still has at the normal policy", "[service][dispatch][blocking_pool]") {
  auto pool = OneThreadPool();
  if (!pool->yields()) {
    WARN("SKIPPED: this process cannot leave SCHED_IDLE again");
    return;
  }
  HeldJob running;
  REQUIRE(pool->Submit(running.Make(), BlockingPool::Priority::kYielding));
  const pid_t tid = running.started.get_future().get();
  HeldJob queued;
  REQUIRE(pool->Submit(queued.Make(), BlockingPool::Priority::kYielding));
  std::thread stopper([&] { pool->Stop(); });
  // Stop() puts the running job back at once (it waits for it), and the queued one never yields.
  for (int i = 0; i < 2000 && PolicyOfThread(tid) == SCHED_IDLE; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(PolicyOfThread(tid) == SCHED_OTHER);
  running.release = true;
  queued.release = true;
  CHECK(queued.policy_at_end.get_future().get() == SCHED_OTHER);
  stopper.join();
}

TEST_CASE("a pool started under SCHED_IDLE (a worker's start) runs its normal jobs under the normal policy",
          "[service][dispatch][blocking_pool]") {
  // Its threads inherit the starting thread's policy and choose their own nice value, which keeps them out of
  // the start's hand-back (service/supervisor/start_priority.h): they leave SCHED_IDLE themselves.
  lather::ServerOptions options;
  options.store = "sqlite::memory:";
  options.pool_threads = 1;
  std::unique_ptr<BlockingPool> pool;
  bool started_idle = false;
  bool started = false;
  std::thread starter([&] {  // no Catch2 assertion on this thread
    const sched_param none{};
    started_idle = sched_setscheduler(0, SCHED_IDLE, &none) == 0;
    started = BlockingPool::Start(options, nullptr, &pool).ok();
  });
  starter.join();
  REQUIRE(started);
  if (!started_idle || !pool->yields()) {
    WARN("SKIPPED: this process cannot leave SCHED_IDLE again (no CAP_SYS_NICE, low RLIMIT_NICE)");
    return;
  }
  HeldJob normal;
  REQUIRE(pool->Submit(normal.Make()));
  CHECK(PolicyOfThread(normal.started.get_future().get()) == SCHED_OTHER);
  normal.release = true;
  CHECK(normal.policy_at_end.get_future().get() == SCHED_OTHER);
}
