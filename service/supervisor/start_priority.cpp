#include "service/supervisor/start_priority.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "common/log.h"

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

}  // namespace

bool CanStartWorkersNiced() {
  bool can = false;
  std::thread probe([&can] {
    const pid_t self = ::gettid();
    int base = 0;
    if (!NiceOf(self, &base) || base + kStartNiceOffset > 19) return;
    can = SetNice(self, base + kStartNiceOffset) && SetNice(self, base);
  });
  probe.join();
  return can;
}

void TakeNormalPriority() {
  const char* env = std::getenv(kWorkerNiceEnv);
  if (env == nullptr) return;
  const int normal = std::atoi(env);
  int started = 0;
  if (!NiceOf(::getpid(), &started) || started == normal) return;  // the main thread kept the start's value
  DIR* tasks = ::opendir("/proc/self/task");
  if (tasks == nullptr) {
    LogLine(std::string("cannot take normal priority after the start: /proc/self/task: ") + std::strerror(errno));
    return;
  }
  int failed = 0;
  int error = 0;
  while (const dirent* entry = ::readdir(tasks)) {
    const pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
    int nice = 0;
    if (tid <= 0 || !NiceOf(tid, &nice) || nice != started) continue;
    if (!SetNice(tid, normal)) {
      ++failed;
      error = errno;
    }
  }
  ::closedir(tasks);
  if (failed > 0) {
    LogLine("cannot take normal priority after the start on " + std::to_string(failed) + " thread(s): " +
            std::strerror(error) + "; they stay at nice " + std::to_string(started));
  }
}

}  // namespace lather
