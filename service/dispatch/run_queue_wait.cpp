#include "service/dispatch/run_queue_wait.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

namespace lather {

RunQueueWait::~RunQueueWait() {
  if (fd_ >= 0) ::close(fd_);
}

bool RunQueueWait::OpenForThisThread() {
  if (fd_ >= 0) ::close(fd_);
  // The file is bound to the task that opened it: another thread's pread reads this thread's figures.
  fd_ = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  return fd_ >= 0;
}

int64_t RunQueueWait::ReadNanos() const {
  if (fd_ < 0) return 0;
  char text[96];
  const ssize_t n = ::pread(fd_, text, sizeof text - 1, 0);
  if (n <= 0) return 0;
  text[n] = '\0';
  // "<on-cpu ns> <run-queue wait ns> <timeslices>"
  char* end = nullptr;
  std::strtoull(text, &end, 10);
  if (end == text) return 0;
  const char* wait = end;
  const unsigned long long waited = std::strtoull(wait, &end, 10);
  return end == wait ? 0 : static_cast<int64_t>(waited);
}

}  // namespace lather
