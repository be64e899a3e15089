// RunQueueWait: how long one thread has waited for a CPU while runnable, from the kernel's per-thread
// schedstat (proc(5): /proc/thread-self/schedstat, its second field). A job that is starved - a pool
// thread under SCHED_IDLE on a core the event loops keep busy - waits there; a job that is stuck (a loop
// that spins, a lock never released) does not: the difference is what a hang check must tell apart.
// Open() in the thread to be measured; ReadNanos() from any thread. Not copyable.
#pragma once

#include <cstdint>

namespace lather {

class RunQueueWait {
 public:
  RunQueueWait() = default;
  ~RunQueueWait();
  RunQueueWait(const RunQueueWait&) = delete;
  RunQueueWait& operator=(const RunQueueWait&) = delete;

  // Binds to the calling thread; false (ReadNanos() then says 0) where the kernel keeps no schedstat.
  bool OpenForThisThread();

  // Nanoseconds the bound thread has waited on a run queue since it started; 0 if unknown.
  int64_t ReadNanos() const;

 private:
  int fd_ = -1;
};

}  // namespace lather
