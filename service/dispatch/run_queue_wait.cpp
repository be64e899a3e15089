#include "service/dispatch/run_queue_wait.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace lather {

RunQueueWait::~RunQueueWait() {
  if (schedstat_fd_ >= 0) ::close(schedstat_fd_);
  if (stat_fd_ >= 0) ::close(stat_fd_);
}

bool RunQueueWait::OpenForThisThread() {
  // The files are bound to the task that opened them: another thread's pread reads this thread's figures.
  schedstat_fd_ = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  stat_fd_ = ::open("/proc/thread-self/stat", O_RDONLY | O_CLOEXEC);
  return schedstat_fd_ >= 0 && stat_fd_ >= 0;
}

RunQueueWait::Reading RunQueueWait::Read() const {
  Reading reading;
  if (schedstat_fd_ < 0 || stat_fd_ < 0) return reading;
  char text[512];
  ssize_t n = ::pread(schedstat_fd_, text, sizeof text - 1, 0);
  if (n <= 0) return reading;
  text[n] = '\0';
  // "<on-cpu ns> <run-queue wait ns> <timeslices>"
  char* end = nullptr;
  reading.on_cpu_ns = static_cast<int64_t>(std::strtoull(text, &end, 10));
  if (end == text) return reading;
  const char* wait = end;
  reading.waited_ns = static_cast<int64_t>(std::strtoull(wait, &end, 10));
  if (end == wait) return reading;
  // "<tid> (<comm>) <state> ...": the state follows the last ')' (a comm may hold one).
  n = ::pread(stat_fd_, text, sizeof text - 1, 0);
  if (n <= 0) return reading;
  text[n] = '\0';
  const char* paren = std::strrchr(text, ')');
  if (paren == nullptr || paren[1] != ' ') return reading;
  reading.runnable = paren[2] == 'R';
  reading.valid = true;
  return reading;
}

void JobStallClock::Start(int64_t start_ns, const RunQueueWait::Reading& at_start) {
  start_ns_ = start_ns;
  waited_at_start_ns_ = at_start.waited_ns;
  last_cpu_ns_ = at_start.on_cpu_ns;
  cpu_moved_at_ns_ = start_ns;
}

int64_t JobStallClock::Observe(int64_t now_ns, const RunQueueWait::Reading& now) {
  int64_t stuck = now_ns - start_ns_;
  if (!now.valid) return stuck;  // nothing known: its whole time counts, as a plain clock would
  if (now.on_cpu_ns != last_cpu_ns_) {
    last_cpu_ns_ = now.on_cpu_ns;
    cpu_moved_at_ns_ = now_ns;
  }
  stuck -= now.waited_ns - waited_at_start_ns_;
  // Runnable with no CPU since the last move: waiting for one now (the kernel books it when the thread runs).
  if (now.runnable && now_ns > cpu_moved_at_ns_) stuck -= now_ns - cpu_moved_at_ns_;
  return stuck > 0 ? stuck : 0;
}

}  // namespace lather
