// RunQueueWait: how long one thread has waited for a CPU while runnable, from the kernel's per-thread
// schedstat (proc(5): /proc/thread-self/schedstat: time on a CPU, time waited on a run queue) and its state
// (/proc/thread-self/stat). A job that is starved - a pool thread under SCHED_IDLE on a core the event loops
// keep busy - waits; a job that is stuck (a loop that spins, a lock never released) does not: the difference
// is what a hang check must tell apart (JobStallClock). The kernel adds a wait to the schedstat only when the
// thread gets a CPU again, so a thread starved right now shows as runnable with no CPU progress.
// Open() in the thread to be measured; Read() from any thread. Not copyable.
#pragma once

#include <cstdint>

namespace lather {

class RunQueueWait {
 public:
  struct Reading {
    bool valid = false;     // false where the kernel keeps no schedstat
    int64_t on_cpu_ns = 0;  // time the thread has run
    int64_t waited_ns = 0;  // time it waited on a run queue, up to its last arrival on a CPU
    bool runnable = false;  // state R: running or waiting for a CPU now
  };

  RunQueueWait() = default;
  ~RunQueueWait();
  RunQueueWait(const RunQueueWait&) = delete;
  RunQueueWait& operator=(const RunQueueWait&) = delete;

  // Binds to the calling thread; false (Read() then says not valid) where the kernel keeps no schedstat.
  bool OpenForThisThread();

  // The bound thread's figures now (two preads).
  Reading Read() const;

 private:
  int schedstat_fd_ = -1;
  int stat_fd_ = -1;
};

// How long one job has been stuck: the time since it started less the time its thread waited for a CPU, the
// accounted wait and the pending one (runnable, no CPU progress since the last Observe). Fed by one thread
// (the hang check) every so often; not thread-safe.
class JobStallClock {
 public:
  // A new job started at `start_ns`; `at_start` is its thread's reading then, or at the first look since.
  void Start(int64_t start_ns, const RunQueueWait::Reading& at_start);
  // Nanoseconds the job has been stuck at `now_ns`, given its thread's reading now.
  int64_t Observe(int64_t now_ns, const RunQueueWait::Reading& now);

 private:
  int64_t start_ns_ = 0;
  int64_t waited_at_start_ns_ = 0;
  int64_t last_cpu_ns_ = 0;
  int64_t cpu_moved_at_ns_ = 0;  // when last_cpu_ns_ was last seen to change (or the start)
};

}  // namespace lather
