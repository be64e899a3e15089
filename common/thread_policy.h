// A thread's scheduling policy (Linux): SCHED_OTHER, SCHED_BATCH or SCHED_IDLE, all at priority 0; the nice
// value is the thread's own and stays. Used by the blocking pool (yielding jobs) and the supervisor (a worker's
// start and end). Thread-safe (one system call).
#pragma once

#include <sched.h>
#include <sys/types.h>

namespace lather {

// Sets thread `tid`'s policy (0: the calling thread); false when the kernel refuses (errno set).
inline bool SetThreadPolicy(pid_t tid, int policy) {
  const sched_param none{};
  return ::sched_setscheduler(tid, policy, &none) == 0;
}

}  // namespace lather
