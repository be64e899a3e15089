// Start priority (service/supervisor/start_priority.h): a worker that started at a lower priority takes its
// normal one back, on the threads that kept the start's value only. Run in a forked child, so that the test
// process's own priority never changes.
#include "service/supervisor/start_priority.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

constexpr int kSkipped = 77;

int NiceOf(pid_t tid) { return getpriority(PRIO_PROCESS, static_cast<id_t>(tid)); }

// In a child: the main thread at base + kStartNiceOffset, one thread started from it (inherits that value),
// one that chose base + 10 itself; then TakeNormalPriority with `env` (nullptr: unset). Exit status: 0 when
// every thread ended as `expect` says, 1 when not, kSkipped when this process may not raise its priority.
int RunInChild(const char* env, bool expect_restored) {
  const pid_t child = ::fork();
  if (child == 0) {
    if (!lather::CanStartWorkersNiced()) ::_exit(kSkipped);
    const int base = NiceOf(::gettid());
    if (base + 10 > 19) ::_exit(kSkipped);
    setpriority(PRIO_PROCESS, 0, base + lather::kStartNiceOffset);
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
    if (env != nullptr) {
      ::setenv(lather::kWorkerNiceEnv, env, 1);
    } else {
      ::unsetenv(lather::kWorkerNiceEnv);
    }
    lather::TakeNormalPriority();
    const int started = base + lather::kStartNiceOffset;
    const int want = expect_restored ? base : started;
    const bool ok = NiceOf(::gettid()) == want && NiceOf(inherited) == want && NiceOf(chosen) == base + 10;
    done = true;
    a.join();
    b.join();
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("a worker started at a lower priority takes its normal one back on the threads that kept the start's, "
          "not on a thread that chose its own",
          "[supervisor][unit]") {
  const int base = NiceOf(::getpid());
  const int status = RunInChild(std::to_string(base).c_str(), true);
  if (status == kSkipped) {
    WARN("SKIPPED: a thread of this process may not raise its priority again (no CAP_SYS_NICE, low RLIMIT_NICE)");
    return;
  }
  CHECK(status == 0);
}

TEST_CASE("without the supervisor's variable a process keeps the priority it has", "[supervisor][unit]") {
  const int status = RunInChild(nullptr, false);
  if (status == kSkipped) {
    WARN("SKIPPED: a thread of this process may not raise its priority again (no CAP_SYS_NICE, low RLIMIT_NICE)");
    return;
  }
  CHECK(status == 0);
}
