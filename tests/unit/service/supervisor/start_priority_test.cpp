// Start priority (service/supervisor/start_priority.h): a worker that started under SCHED_IDLE at a lower
// priority takes its normal policy and priority back, on the threads that kept the start's nice value only; the
// supervisor can lift a starved start and demote a hung worker. Run in forked children, so that the test
// process's own policy and priority never change.
#include "service/supervisor/start_priority.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>

namespace {

constexpr int kSkipped = 77;

int NiceOf(pid_t tid) { return getpriority(PRIO_PROCESS, static_cast<id_t>(tid)); }
int PolicyOf(pid_t tid) { return sched_getscheduler(tid); }

// Runs `body` in a forked child; its exit status (0 ok, 1 not, kSkipped when this process may not leave
// SCHED_IDLE or raise its priority again).
int InChild(const std::function<bool()>& body) {
  const pid_t child = ::fork();
  if (child == 0) {
    if (!lather::CanStartWorkersNiced() || NiceOf(::gettid()) + 10 > 19) ::_exit(kSkipped);
    ::_exit(body() ? 0 : 1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// In the child: a start (SCHED_IDLE at base + kStartNiceOffset), one thread started from it (inherits both),
// one that chose base + 10 itself; then `act` and the check of the three threads.
bool StartThenAct(const std::function<void()>& act, const std::function<bool(pid_t, pid_t, pid_t, int)>& check) {
  const int base = NiceOf(::gettid());
  lather::EnterStart(base + lather::kStartNiceOffset);
  std::atomic<pid_t> inherited{0}, chosen{0};
  std::atomic<bool> done{false};
  std::thread a([&] {
    inherited = ::gettid();
    while (!done) std::this_thread::yield();
  });
  std::thread b([&] {
    setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), base + 10);
    chosen = ::gettid();
    while (!done) std::this_thread::yield();
  });
  while (inherited == 0 || chosen == 0) std::this_thread::yield();
  act();
  const bool ok = check(::gettid(), inherited, chosen, base);
  done = true;
  a.join();
  b.join();
  return ok;
}

void Report(int status) {
  if (status == kSkipped) {
    WARN("SKIPPED: a thread of this process may not leave SCHED_IDLE or raise its priority again (no "
         "CAP_SYS_NICE, low RLIMIT_NICE)");
    return;
  }
  CHECK(status == 0);
}

}  // namespace

TEST_CASE("a worker started under SCHED_IDLE at a lower priority takes its normal policy and priority back on the "
          "threads that kept the start's, not on a thread that chose its own",
          "[supervisor][unit]") {
  const int base = NiceOf(::getpid());
  Report(InChild([base] {
    return StartThenAct(
        [base] {
          ::setenv(lather::kWorkerNiceEnv, std::to_string(base).c_str(), 1);
          lather::TakeNormalPriority();
        },
        [](pid_t self, pid_t inherited, pid_t chosen, int base_nice) {
          return NiceOf(self) == base_nice && PolicyOf(self) == SCHED_OTHER && NiceOf(inherited) == base_nice &&
                 PolicyOf(inherited) == SCHED_OTHER && NiceOf(chosen) == base_nice + 10;
        });
  }));
}

TEST_CASE("without the supervisor's variable a process keeps the policy and priority it has", "[supervisor][unit]") {
  Report(InChild([] {
    return StartThenAct([] {
      ::unsetenv(lather::kWorkerNiceEnv);
      lather::TakeNormalPriority();
    },
                        [](pid_t self, pid_t inherited, pid_t, int base) {
                          const int started = base + lather::kStartNiceOffset;
                          return NiceOf(self) == started && PolicyOf(self) == SCHED_IDLE &&
                                 NiceOf(inherited) == started && PolicyOf(inherited) == SCHED_IDLE;
                        });
  }));
}

TEST_CASE("a start a busy core starved is lifted to the normal policy at the start's priority, and a hung worker "
          "is put under SCHED_IDLE",
          "[supervisor][unit]") {
  Report(InChild([] {
    bool lifted_all = false;
    bool demoted_all = false;
    const bool ok = StartThenAct(
        [&] { lifted_all = lather::LiftIdleThreads(::getpid()) == 3; },
        [&](pid_t self, pid_t inherited, pid_t chosen, int base) {
          const int started = base + lather::kStartNiceOffset;
          const bool lifted = PolicyOf(self) == SCHED_OTHER && NiceOf(self) == started &&
                              PolicyOf(inherited) == SCHED_OTHER && NiceOf(inherited) == started &&
                              PolicyOf(chosen) == SCHED_OTHER && NiceOf(chosen) == base + 10;
          lather::Demote(::getpid());
          demoted_all = PolicyOf(self) == SCHED_IDLE && PolicyOf(inherited) == SCHED_IDLE &&
                        PolicyOf(chosen) == SCHED_IDLE;
          return lifted;
        });
    return ok && lifted_all && demoted_all;
  }));
}
