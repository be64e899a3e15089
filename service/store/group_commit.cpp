#include "service/store/group_commit.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "common/log.h"
#include "service/store/sqlite_busy_wait.h"

namespace lather {

namespace {
constexpr size_t kMaxBatch = 512;  // increments per transaction
// Expired message ids deleted per transaction, and how often a transaction deletes some: the
// purge stays a small index range delete, never a scan, and a backlog drains in successive batches
// (as many ids as a full batch can add, so the purge keeps up with any rate the writer sustains).
constexpr size_t kPurgeLimit = kMaxBatch;
constexpr auto kPurgeInterval = std::chrono::seconds(1);
}  // namespace

GroupCommitter::GroupCommitter(std::unique_ptr<CounterStore> store)
    : store_(std::move(store)), writer_([this] { Run(); }) {}

GroupCommitter::~GroupCommitter() {
  {
    boost::lock_guard<boost::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_.notify_one();
  writer_.join();
}

GroupCommitter::Totals GroupCommitter::totals() const {
  Totals totals;
  {
    boost::lock_guard<boost::mutex> lock(mutex_);
    totals = totals_;
  }
  totals.checkpoints = store_->checkpoints();  // atomics of the store's checkpointer, set before the writer ran
  totals.checkpoint_restarts = store_->checkpoint_restarts();
  totals.inline_checkpoints = store_->inline_checkpoints();
  return totals;
}

void GroupCommitter::set_max_queued(size_t n) {
  boost::lock_guard<boost::mutex> lock(mutex_);
  max_queued_ = n;
}

size_t GroupCommitter::queued() const {
  boost::lock_guard<boost::mutex> lock(mutex_);
  return queue_.size();
}

Status GroupCommitter::Increment(const std::string& name, const std::string& message_id, int64_t* value) {
  Waiter waiter;
  waiter.name = &name;
  waiter.message_id = &message_id;
  boost::unique_lock<boost::mutex> lock(mutex_);
  if (stopping_) return Status::Unavailable("the counter store is shutting down");
  queue_.push_back(Entry{&waiter, nullptr, nullptr});
  work_.notify_one();
  while (!waiter.done) waiter.committed.wait(lock);
  *value = waiter.value;
  return waiter.status;
}

size_t GroupCommitter::SubmitGroup(std::unique_ptr<Group> group) {
  size_t queued = 0;
  {
    boost::lock_guard<boost::mutex> lock(mutex_);
    if (!stopping_) {
      const size_t room = max_queued_ == 0 ? group->items.size()
                                           : (queue_.size() < max_queued_ ? max_queued_ - queue_.size() : 0);
      queued = std::min(room, group->items.size());
    }
    for (size_t i = queued; i < group->items.size(); ++i) group->items[i].answer.refused = true;
    if (queued > 0) {
      group->unanswered = queued;
      Group* raw = group.release();  // the writer's until its last item is answered
      for (size_t i = 0; i < queued; ++i) queue_.push_back(Entry{nullptr, raw, &raw->items[i]});
    }
  }
  if (queued == 0) {
    auto done = std::move(group->done);
    done(std::move(group));
    return 0;
  }
  work_.notify_one();
  return queued;
}

bool GroupCommitter::Submit(std::string name, std::string message_id, int64_t arrival_ns, double limit_seconds,
                            Done done) {
  auto group = std::make_unique<Group>();
  group->items.resize(1);
  group->items[0].name = std::move(name);
  group->items[0].message_id = std::move(message_id);
  group->items[0].arrival_ns = arrival_ns;
  group->limit_seconds = limit_seconds;
  group->done = [done = std::move(done)](std::unique_ptr<Group> answered) {
    if (!answered->items[0].answer.refused) done(answered->items[0].answer);
  };
  return SubmitGroup(std::move(group)) == 1;
}

namespace {
// Seconds since `arrival_ns` (CLOCK_REALTIME, a receive stamp); 0 if the clocks disagree.
double SecondsSinceArrival(int64_t arrival_ns) {
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  return now > arrival_ns ? static_cast<double>(now - arrival_ns) / 1e9 : 0.0;
}

// A transaction this long is logged, with the part of it spent waiting for SQLite's locks (another worker's
// commit, a checkpoint): the rest is the store's own work, its fsync mostly.
constexpr double kSlowTransactionSeconds = 0.1;
}  // namespace

void GroupCommitter::LogSlowTransaction(size_t increments, double seconds, long long lock_wait_us) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_slow_line_ < std::chrono::seconds(1)) {
    ++slow_lines_left_out_;
    return;
  }
  last_slow_line_ = now;
  const bool sqlite = std::string_view(store_->kind()) == "sqlite";
  LogLine("store: a transaction of " + std::to_string(increments) + " increments took " +
          std::to_string(static_cast<long long>(seconds * 1000)) + " ms" +
          (sqlite ? ", " + std::to_string(lock_wait_us / 1000) +
                        " ms of it waiting for SQLite's lock (another worker's commit or a checkpoint)"
                  : std::string(" (") + store_->kind() + ")") +
          (slow_lines_left_out_ > 0 ? "; " + std::to_string(slow_lines_left_out_) + " more since the last such line"
                                    : std::string()));
  slow_lines_left_out_ = 0;
}

GroupCommitter::Group* GroupCommitter::Answered(const Entry& entry, Answer answer) {
  entry.item->answer = std::move(answer);
  return --entry.group->unanswered == 0 ? entry.group : nullptr;
}

void GroupCommitter::Run() {
  pthread_setname_np(pthread_self(), "lather-writer");  // named in top -H, /proc/PID/task/*/comm
  std::vector<Entry> batch;
  std::vector<Group*> complete;  // groups whose last item this turn answered: their callbacks run last
  std::vector<CounterIncrement> increments;
  auto last_purge = std::chrono::steady_clock::time_point{};
  for (;;) {
    {
      boost::unique_lock<boost::mutex> lock(mutex_);
      while (queue_.empty() && !stopping_) work_.wait(lock);
      if (queue_.empty() && stopping_) return;
      batch.clear();
      complete.clear();
      while (!queue_.empty() && batch.size() < kMaxBatch) {
        const Entry entry = queue_.front();
        queue_.pop_front();
        // A group's item that waited too long is answered busy, not run.
        if (entry.group != nullptr && entry.group->limit_seconds > 0 &&
            SecondsSinceArrival(entry.item->arrival_ns) > entry.group->limit_seconds) {
          Answer answer;
          answer.busy = true;
          answer.waited = SecondsSinceArrival(entry.item->arrival_ns);
          if (Group* group = Answered(entry, std::move(answer))) complete.push_back(group);
          continue;
        }
        batch.push_back(entry);
      }
    }
    if (!batch.empty()) {
      increments.resize(batch.size());
      for (size_t i = 0; i < batch.size(); ++i) {
        increments[i].name = &batch[i].name();
        increments[i].message_id = &batch[i].message_id();
      }
      size_t purge_limit = 0;
      const auto now = std::chrono::steady_clock::now();
      if (store_->idempotency_window().count() > 0 && now - last_purge >= kPurgeInterval) {
        purge_limit = kPurgeLimit;
        last_purge = now;
      }
      Status s;
      size_t purged = 0;
      const auto began = std::chrono::steady_clock::now();
      const long long waited_before_us = BusyWaitedUs();
      try {
        s = store_->IncrementBatch(&increments, purge_limit, &purged);
        if (purge_limit > 0 && purged == purge_limit) last_purge = {};  // a backlog: purge again next batch
      } catch (const std::exception& e) {
        s = Status::Internal(std::string("group commit: ") + e.what());
      }
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      if (!s.ok()) LogLine("group commit of " + std::to_string(batch.size()) + " increments failed: " + s.ToString());
      if (seconds >= kSlowTransactionSeconds) {
        LogSlowTransaction(batch.size(), seconds, BusyWaitedUs() - waited_before_us);
      }
      // The groups' items are answered first, without the lock (only this thread touches them now); then the
      // waiting callers under it. A woken caller returns at once and its Waiter (on its stack) is gone.
      for (size_t i = 0; i < batch.size(); ++i) {
        if (batch[i].group == nullptr) continue;
        Answer answer;
        answer.status = s.ok() ? increments[i].status : s;
        answer.value = s.ok() ? increments[i].value : 0;
        if (Group* group = Answered(batch[i], std::move(answer))) complete.push_back(group);
      }
      boost::lock_guard<boost::mutex> lock(mutex_);
      ++(s.ok() ? totals_.committed : totals_.failed);
      if (s.ok()) {  // a failed transaction rolled its purge back too
        totals_.increments += batch.size();
        totals_.purged += purged;
      }
      size_t bucket = 0;
      while (bucket < kTransactionBuckets.size() && seconds > kTransactionBuckets[bucket]) ++bucket;
      ++totals_.transaction_buckets[bucket];
      totals_.transaction_nanos += static_cast<uint64_t>(seconds * 1e9);
      for (size_t i = 0; i < batch.size(); ++i) {
        Waiter* waiter = batch[i].waiter;
        if (waiter == nullptr) continue;
        waiter->status = s.ok() ? increments[i].status : s;
        waiter->value = s.ok() ? increments[i].value : 0;
        waiter->done = true;
        // Under the lock: once done is set the caller may return and destroy its waiter (and condition).
        waiter->committed.notify_one();
      }
    }
    for (Group* group : complete) {
      auto done = std::move(group->done);
      done(std::unique_ptr<Group>(group));
    }
  }
}

}  // namespace lather
