#include "service/supervisor/start_priority.h"

#include <dirent.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "common/log.h"
#include "common/thread_policy.h"

namespace lather {
namespace {

// The nice value of thread `tid` (Linux keeps it per thread); false when it cannot be read.
bool NiceOf(pid_t tid, int* nice) {
  errno = 0;
  const int value = getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
  if (value == -1 && errno != 0) return false;
  *nice = value;
  return true;
}

bool SetNice(pid_t tid, int nice) { return setpriority(PRIO_PROCESS, static_cast<id_t>(tid), nice) == 0; }

// Calls `visit(tid)` for every thread of `pid`; false when its thread list cannot be read (it has ended).
template <typename Visit>
bool ForEachThread(pid_t pid, Visit visit) {
  const std::string folder = pid == ::getpid() ? "/proc/self/task" : "/proc/" + std::to_string(pid) + "/task";
  DIR* tasks = ::opendir(folder.c_str());
  if (tasks == nullptr) return false;
  while (const dirent* entry = ::readdir(tasks)) {
    const pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (tid > 0) visit(tid);
  }
  ::closedir(tasks);
  return true;
}

}  // namespace

bool CanStartWorkersNiced() {
  bool can = false;
  std::thread probe([&can] {
    const pid_t self = ::gettid();
    int base = 0;
    if (!NiceOf(self, &base) || base + kStartNiceOffset > 19) return;
    can = SetNice(self, base + kStartNiceOffset) && SetThreadPolicy(0, SCHED_IDLE) && SetThreadPolicy(0, SCHED_OTHER) &&
          SetNice(self, base);
  });
  probe.join();
  return can;
}

void EnterStart(int start_nice) {
  ::setpriority(PRIO_PROCESS, 0, start_nice);
  SetThreadPolicy(0, SCHED_IDLE);
}

int LiftIdleThreads(int pid) {
  int moved = 0;
  ForEachThread(pid, [&moved](pid_t tid) {
    if (::sched_getscheduler(tid) == SCHED_IDLE && SetThreadPolicy(tid, SCHED_OTHER)) ++moved;
  });
  return moved;
}

void Demote(int pid) {
  ForEachThread(pid, [](pid_t tid) { SetThreadPolicy(tid, SCHED_IDLE); });
}

void TakeNormalPriority() {
  const char* env = std::getenv(kWorkerNiceEnv);
  if (env == nullptr) return;
  const int normal = std::atoi(env);
  int started = 0;
  if (!NiceOf(::getpid(), &started) || started == normal) return;  // the main thread kept the start's value
  int failed = 0;
  int error = 0;
  bool listed = true;
  // The server accepts already (the classic engine starts a thread per connection): a thread made by one not
  // yet moved may be missing from a pass, so passes repeat until one moves nothing - once every thread that
  // makes threads has moved, every thread it makes inherits the normal policy and nice.
  for (int pass = 0, moved = 1; moved > 0 && pass < 4 && listed; ++pass) {
    moved = 0;
    failed = 0;
    listed = ForEachThread(::getpid(), [&](pid_t tid) {
      int nice = 0;
      if (!NiceOf(tid, &nice) || nice != started) return;
      if ((::sched_getscheduler(tid) == SCHED_IDLE && !SetThreadPolicy(tid, SCHED_OTHER)) || !SetNice(tid, normal)) {
        ++failed;
        error = errno;
      } else {
        ++moved;
      }
    });
  }
  if (!listed) {
    LogLine(std::string("cannot take normal priority after the start: /proc/self/task: ") + std::strerror(errno));
  } else if (failed > 0) {
    LogLine("cannot take normal priority after the start on " + std::to_string(failed) + " thread(s): " +
            std::strerror(error) + "; they stay at nice " + std::to_string(started));
  }
}

}  // namespace lather
