#include "service/dispatch/blocking_pool.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>
#include <thread>

#include "common/clock.h"
#include "common/log.h"
#include "common/thread_policy.h"
#include "service/http/gzip_body.h"
#include "service/soap/utf16_body.h"
#include "common/stamped_receive.h"

namespace lather {
namespace {
constexpr int kPoolNice = 10;  // Linux: per-thread nice value of the pool's threads
// A job younger than this is not checked for having been starved (LongestJobNanos reads /proc then).
constexpr int64_t kStallCheckAfterNanos = 1'000'000'000;
constexpr size_t kPoolStack = size_t{8} << 20;  // per pool thread (the usual default), more if --max-depth needs it

// Whether a thread of this process at the pool's nice value may leave SCHED_IDLE again. Without CAP_SYS_NICE
// that needs RLIMIT_NICE >= 20 - nice (sched(7)); a container's root often lacks the capability. Tried on a
// thread of its own, which ends whatever its policy.
bool CanLeaveIdlePolicy() {
  bool can = false;
  std::thread probe([&can] {
    if (setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kPoolNice) != 0) return;
    can = SetThreadPolicy(0, SCHED_IDLE) && SetThreadPolicy(0, SCHED_OTHER);
  });
  probe.join();
  return can;
}
}  // namespace

Status BlockingPool::Start(const ServerOptions& options, GroupCommitter* committer,
                           std::unique_ptr<BlockingPool>* pool) {
  std::unique_ptr<BlockingPool> p(new BlockingPool(options.pool_queue));
  for (int i = 0; i < options.pool_threads; ++i) {
    std::unique_ptr<CounterStore> reader;
    Status s = CounterStore::Open(options.store, &reader);
    if (!s.ok()) return s;
    auto worker = std::make_unique<Worker>();
    worker->operations = std::make_unique<Operations>(std::make_unique<GroupCommitCounters>(committer, std::move(reader)));
    worker->engine = std::make_unique<SoapEngine>(worker->operations.get(), options.soap, false);
    p->workers_.push_back(std::move(worker));
  }
  p->yielding_ = CanLeaveIdlePolicy();
  if (!p->yielding_) {
    LogLine("blocking pool: large echoes run at nice " + std::to_string(kPoolNice) + ", not under SCHED_IDLE: a "
            "thread of this process could not leave SCHED_IDLE again (no CAP_SYS_NICE, RLIMIT_NICE under " +
            std::to_string(20 - kPoolNice) + ")");
  }
  // Large echoes are parsed here: the stack must hold gSOAP's recursion to --max-depth.
  boost::thread::attributes attributes;
  attributes.set_stack_size(std::max(kPoolStack, SoapStackBytes(options.soap)));
  for (auto& worker : p->workers_) {
    Worker* w = worker.get();
    BlockingPool* self = p.get();
    p->threads_.emplace_back(attributes, [self, w] { self->Run(w); });
  }
  *pool = std::move(p);
  return Status::Ok();
}

DeferredResult ServeDeferred(SoapEngine& engine, const SoapCall& call, int64_t arrival_ns, double limit_seconds) {
  DeferredResult result;
  result.waited = SecondsSince(arrival_ns);
  result.busy = limit_seconds > 0 && result.waited > limit_seconds;
  if (result.busy) return result;
  const auto start = std::chrono::steady_clock::now();
  if (call.gzip_max_decoded > 0) {
    std::string decoded;
    const GunzipResult gunzip = Gunzip(call.body, call.gzip_max_decoded, kMaxGzipRatio, &decoded);
    result.rejected_status = GunzipRejection(gunzip, call.gzip_max_decoded, &result.rejected_reason);
    if (result.rejected_status != 0) return result;
    // A UTF-16 body under the gzip (WS-I BP 1.1 R1012): transcoded here as the loop does for plain ones.
    if (const BodyEncoding coding = DetectBodyEncoding(decoded, ""); coding != BodyEncoding::kUtf8) {
      std::string utf8;
      if (!Utf16ToUtf8(decoded, coding == BodyEncoding::kUtf16Be, call.gzip_max_decoded, &utf8,
                       &result.rejected_reason)) {
        result.rejected_status = 400;
        return result;
      }
      decoded.swap(utf8);
    }
    SoapCall plain = call;
    plain.body = decoded;
    plain.gzip_max_decoded = 0;
    result.outcome = engine.Serve(plain, &result.body);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  result.outcome = engine.Serve(call, &result.body);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

BlockingPool::~BlockingPool() { Stop(); }

size_t BlockingPool::queued() {
  boost::lock_guard<boost::mutex> lock(mutex_);
  return queue_.size();
}

bool BlockingPool::Submit(Job job, Priority priority) {
  {
    boost::lock_guard<boost::mutex> lock(mutex_);
    if (stopping_ || queue_.size() >= max_queue_) return false;
    queue_.emplace_back(std::move(job), priority);
  }
  work_.notify_one();
  return true;
}

int BlockingPool::EndLongYields(int64_t now_ns) {
  int ended = 0;
  for (const auto& worker : workers_) {
    int64_t since = worker->yielding_since_ns.load();  // sequentially consistent: see Run()
    if (since == 0 || now_ns - since < kYieldBudgetNanos) continue;
    // Off the CPU since it began: its time less the CPU its thread has had since (without the thread's clock,
    // all its time).
    int64_t ran = 0;
    timespec cpu{};
    const clockid_t clock = worker->cpu_clock.load(std::memory_order_relaxed);
    if (clock != 0 && clock_gettime(clock, &cpu) == 0) {
      ran = static_cast<int64_t>(cpu.tv_sec) * 1'000'000'000 + cpu.tv_nsec - worker->yield_cpu_ns.load();
    }
    if (now_ns - since - ran < kYieldBudgetNanos) continue;
    // The job seen is the one put back (the worker clears the mark when its job ends); should it end between
    // here and the call, its thread is put back a moment early, which only makes the next job normal.
    if (!worker->yielding_since_ns.compare_exchange_strong(since, 0)) continue;
    if (SetThreadPolicy(worker->tid.load(std::memory_order_relaxed), SCHED_OTHER)) ++ended;
  }
  return ended;
}

void BlockingPool::Stop() {
  {
    boost::lock_guard<boost::mutex> lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  // The jobs still running finish at the normal policy: a stopping worker waits for them.
  stop_begun_.store(true);
  EndLongYields(std::numeric_limits<int64_t>::max());
  work_.notify_all();
  for (boost::thread& t : threads_) t.join();
  threads_.clear();
}

void BlockingPool::Run(Worker* worker) {
  // Below the event loops: when the cores are busy, a long job yields to the quick calls.
  if (setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kPoolNice) != 0) {
    LogLine("blocking pool: cannot lower the thread priority");
  }
  // A worker's start runs under SCHED_IDLE (service/supervisor/start_priority.h) and this thread inherited it;
  // its own nice value keeps it out of the start's hand-back, so it takes the normal policy itself: a normal
  // job must not run as a yielding one.
  if (sched_getscheduler(0) == SCHED_IDLE && !SetThreadPolicy(0, SCHED_OTHER)) {
    LogLine("blocking pool: cannot leave the SCHED_IDLE the thread started under");
  }
  worker->run_queue_wait.OpenForThisThread();  // without schedstat a starved job counts as a stall, as before
  worker->tid.store(::gettid(), std::memory_order_relaxed);
  if (clockid_t clock; pthread_getcpuclockid(pthread_self(), &clock) == 0) {
    worker->cpu_clock.store(clock, std::memory_order_relaxed);
  }
  for (;;) {
    Job job;
    Priority priority;
    bool stopping;
    {
      boost::unique_lock<boost::mutex> lock(mutex_);
      while (queue_.empty() && !stopping_) work_.wait(lock);
      if (queue_.empty()) return;  // stopping and drained
      job = std::move(queue_.front().first);
      priority = queue_.front().second;
      queue_.pop_front();
      stopping = stopping_;
    }
    const int64_t start = MonotonicNanos();
    worker->busy_since_ns.store(start, std::memory_order_release);
    // Yield to the loops (see Priority), unless the pool is stopping: then its jobs are what it waits for.
    if (priority == Priority::kYielding && yielding_ && !stopping && SetThreadPolicy(0, SCHED_IDLE)) {
      worker->yield_cpu_ns.store(ThreadCpuNanos());
      worker->yielding_since_ns.store(start);
      // A Stop() that began meanwhile may have looked before the mark was there (and the loops stop ticking):
      // either it sees the mark or this sees its flag (both sequentially consistent).
      if (stop_begun_.load() && worker->yielding_since_ns.exchange(0) != 0) SetThreadPolicy(0, SCHED_OTHER);
    }
    try {
      job(*worker->engine);
    } catch (const std::exception& e) {
      LogLine(std::string("blocking pool: unexpected exception: ") + e.what());
    } catch (...) {
      LogLine("blocking pool: unexpected exception");
    }
    // Still yielding (EndLongYields did not put it back): back to the normal policy for the next job.
    if (worker->yielding_since_ns.exchange(0, std::memory_order_acq_rel) != 0) SetThreadPolicy(0, SCHED_OTHER);
    worker->busy_since_ns.store(0, std::memory_order_relaxed);
  }
}

int64_t BlockingPool::LongestJobNanos() const {
  const int64_t now = MonotonicNanos();
  int64_t longest = 0;
  boost::lock_guard<boost::mutex> lock(stall_mutex_);
  for (const auto& worker : workers_) {
    const int64_t since = worker->busy_since_ns.load(std::memory_order_acquire);
    if (since <= 0) continue;
    if (worker->clock_job_ns != since) {
      // A job the clock has not followed yet: its thread's figures now are the baseline (read here, on the
      // hang check's thread, not per job on the pool: a job seen again within 100 ms is one of the few that
      // last). The wait before this first look, at most a heartbeat's, counts as stuck.
      worker->clock_job_ns = since;
      worker->stall_clock.Start(since, worker->run_queue_wait.Read());
    }
    // Reading the thread's figures is two system calls: only for a job that has run long enough to matter.
    const int64_t stuck = now - since > kStallCheckAfterNanos
                              ? worker->stall_clock.Observe(now, worker->run_queue_wait.Read())
                              : now - since;
    longest = std::max(longest, stuck);
  }
  return longest;
}

}  // namespace lather
