// BlockingPool: a bounded pool of Boost.Thread workers for the requests that may block or run long
// (IncCounter and GetCounter, which wait for the store; large EchoDataSamples), so quick calls on
// the event loops never wait behind them. Each worker owns a SoapEngine and an Operations whose
// increments go through the shared GroupCommitter. Submit() refuses work when the queue is full
// (the caller answers 503). Thread-safe.
#pragma once

#include <boost/thread/condition_variable.hpp>
#include <boost/thread/mutex.hpp>
#include <boost/thread/thread.hpp>

#include <sys/types.h>

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "common/status.h"
#include "service/dispatch/run_queue_wait.h"
#include "service/dispatch/server_options.h"
#include "service/soap/soap_engine.h"
#include "service/store/group_commit.h"

namespace lather {

// What a deferred call came to on the pool (see ServeDeferred).
struct DeferredResult {
  SoapOutcome outcome;
  std::string body;
  double waited = 0;   // seconds from the request's arrival until a pool thread took it
  double seconds = 0;  // its execution
  bool busy = false;   // it had waited longer than the limit and was not run
  int rejected_status = 0;      // its gzip body was refused (413, 400): not run
  std::string rejected_reason;  // why, for the fault
};

// Runs `call` on a pool worker's `engine`, unless it has waited longer than `limit_seconds` (> 0)
// since `arrival_ns` (a receive stamp): then it is not run and the result says busy.
DeferredResult ServeDeferred(SoapEngine& engine, const SoapCall& call, int64_t arrival_ns, double limit_seconds);

class BlockingPool {
 public:
  using Job = std::function<void(SoapEngine& engine)>;

  // Opens a reader store connection per worker (InvalidArgument/IOError as CounterStore::Open)
  // and starts options.pool_threads workers.
  static Status Start(const ServerOptions& options, GroupCommitter* committer, std::unique_ptr<BlockingPool>* pool);
  ~BlockingPool();  // Stop()
  BlockingPool(const BlockingPool&) = delete;
  BlockingPool& operator=(const BlockingPool&) = delete;

  // How a job shares the cores with the event loops. kYielding (the long parses of large echoes) runs under
  // SCHED_IDLE, so that any runnable normal thread (a loop with a quick call) preempts it at once - until it
  // has spent kYieldBudgetNanos off the CPU since it began (starved, or blocked): then EndLongYields puts it
  // back to the normal policy (the pool's nice value). A job that runs freely, however long, keeps yielding;
  // one that is starved does not stay so. On a core kept busy, SCHED_IDLE alone starved such a job for tens
  // of seconds, and with it whatever waited for it: a loop blocked on a lock the job held (malloc's arena), a
  // killed worker whose last thread had to tear down its memory at idle priority. Store calls, which mostly
  // sleep on a commit, are kNormal. Where a thread could not leave SCHED_IDLE again (no CAP_SYS_NICE and a low
  // RLIMIT_NICE), kYielding is kNormal, and Start says so in the log.
  enum class Priority { kNormal, kYielding };
  static constexpr int64_t kYieldBudgetNanos = 200'000'000;

  // Queues `job` to run on a worker with that worker's engine; false if options.pool_queue jobs
  // are already waiting or the pool is stopping.
  bool Submit(Job job, Priority priority = Priority::kNormal);

  // Puts every yielding (SCHED_IDLE) job that has spent more than kYieldBudgetNanos off the CPU by `now_ns`
  // (CLOCK_MONOTONIC; its time since it began less its thread's CPU time since, read through the thread's CPU
  // clock) back to the normal policy. Called by the event loops' 100 ms tick, which runs at normal priority
  // however busy the cores are. Thread-safe, lock-free; returns how many it put back.
  int EndLongYields(int64_t now_ns);

  // Whether kYielding jobs run under SCHED_IDLE here (false where the process could not leave it again).
  bool yields() const { return yielding_; }

  // Jobs waiting for a worker now.
  size_t queued();

  // How long the longest-running job has been stuck so far, in nanoseconds (0 when every worker is idle): the
  // time since it started less the time its thread waited for a CPU while runnable (a large echo under
  // SCHED_IDLE on a busy core is starved, not hung). A supervisor's hang check. Thread-safe, lock-free.
  int64_t LongestJobNanos() const;

  // Runs the jobs already queued, then joins the workers. Idempotent.
  void Stop();

 private:
  struct Worker {
    std::unique_ptr<Operations> operations;
    std::unique_ptr<SoapEngine> engine;
    std::atomic<int64_t> busy_since_ns{0};  // CLOCK_MONOTONIC when its job started; 0 when idle
    std::atomic<int64_t> yielding_since_ns{0};  // when its job began under SCHED_IDLE; 0: normal policy
    std::atomic<int64_t> yield_cpu_ns{0};       // its thread's CPU time when that job began
    std::atomic<pid_t> tid{0};                  // its thread (sched_setscheduler from EndLongYields)
    std::atomic<clockid_t> cpu_clock{0};        // its thread's CPU clock (pthread_getcpuclockid); 0: none
    RunQueueWait run_queue_wait;  // its thread's wait for a CPU
    // The hang check's view of the current job (under stall_mutex_).
    int64_t clock_job_ns = 0;  // busy_since_ns of the job the clock follows
    JobStallClock stall_clock;
  };
  BlockingPool(size_t max_queue) : max_queue_(max_queue) {}
  void Run(Worker* worker);

  const size_t max_queue_;
  bool yielding_ = true;  // kYielding jobs may use SCHED_IDLE: this process can leave it again (set by Start)
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<boost::thread> threads_;
  boost::mutex mutex_;
  mutable boost::mutex stall_mutex_;  // the workers' stall clocks (LongestJobNanos)
  boost::condition_variable work_;
  std::deque<std::pair<Job, Priority>> queue_;
  bool stopping_ = false;
  std::atomic<bool> stop_begun_{false};  // Stop() has begun: no job yields from now on (see Run)
};

}  // namespace lather
