// GroupCommitter: durable counter increments from many threads committed together. Callers block
// in Increment() while one writer thread (Boost.Thread) takes every increment queued so far, runs
// them in one SQLite transaction and wakes the callers with their values once COMMIT returned:
// one fsync for the whole batch, and still nothing is acknowledged before it is on disk.
// GroupCommitCounters is the per-thread CounterBackend that uses it (reads go to its own connection).
// Increments with a message id count once (see CounterStore::IncrementBatch), also when repeats wait
// in the same batch; the writer also deletes expired message ids, a bounded number per transaction.
// SubmitGroup() queues a group of increments without waiting (an event loop's turn of IncCounter calls):
// one lock to queue them, one callback on the writer thread once all are answered. Submit() is a group of
// one. totals() tells what the writer did (for /metrics: service/dispatch/store_metrics.h). Thread-safe.
#pragma once

#include <boost/thread/condition_variable.hpp>
#include <boost/thread/mutex.hpp>
#include <boost/thread/thread.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "service/store/counter_store.h"

namespace lather {

class GroupCommitter {
 public:
  // Takes the writer's own store connection and starts the writer thread.
  explicit GroupCommitter(std::unique_ptr<CounterStore> store);
  // Commits what is queued, then stops the writer.
  ~GroupCommitter();
  GroupCommitter(const GroupCommitter&) = delete;
  GroupCommitter& operator=(const GroupCommitter&) = delete;

  // Blocks until the increment of `name` is committed; sets *value to the new value. With a
  // non-empty `message_id`: CounterBackend::Increment's semantics.
  Status Increment(const std::string& name, const std::string& message_id, int64_t* value);
  Status Increment(const std::string& name, int64_t* value) { return Increment(name, std::string(), value); }

  // What a submitted increment came to: committed (status ok, its value), failed (status), or not run
  // at all because it had waited too long (busy, with how long it had waited).
  struct Answer {
    Status status;
    int64_t value = 0;
    bool busy = false;
    double waited = 0;  // busy: seconds from the request's arrival until the writer took it
    bool refused = false;  // never queued: set_max_queued() were waiting already, or the writer is stopping
  };
  using Done = std::function<void(const Answer&)>;

  // Increments handed over together. The writer answers each item; once every item is answered it calls
  // `done` on its thread with the group (ownership back to the caller; the caller may derive from Group to
  // keep what it needs to deliver the answers). An item that waited longer than `limit_seconds` (> 0) since
  // its `arrival_ns` (a CLOCK_REALTIME receive stamp) when the writer takes it is not run: answered busy.
  struct Group {
    struct Item {
      std::string name;
      std::string message_id;
      int64_t arrival_ns = 0;
      Answer answer;
    };
    std::vector<Item> items;
    double limit_seconds = 0;
    std::function<void(std::unique_ptr<Group>)> done;
    virtual ~Group() = default;

   private:
    friend class GroupCommitter;
    size_t unanswered = 0;  // the writer's count of queued items not answered yet
  };
  // Queues the items that fit under set_max_queued(), in order; the rest are answered `refused` at once
  // (all of them when stopping). Returns how many were queued; with none, `done` has already run, on the
  // caller's thread.
  size_t SubmitGroup(std::unique_ptr<Group> group);
  // A group of one: queues an increment of `name` without waiting; `done` runs on the writer thread once
  // its batch has committed (or failed), or gets busy (see Group). Returns false (and `done` never runs) when
  // set_max_queued() increments are waiting already, or when stopping.
  bool Submit(std::string name, std::string message_id, int64_t arrival_ns, double limit_seconds, Done done);
  // The most increments Submit() lets wait (0: no limit).
  void set_max_queued(size_t n);
  // Increments waiting for the writer (not yet in a batch).
  size_t queued() const;

  // Upper bounds (seconds) of the transaction-time buckets in Totals; +Inf is implied.
  static constexpr std::array<double, 13> kTransactionBuckets = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
                                                                 0.025, 0.05, 0.1, 0.25, 0.5, 1.0};
  // What the writer has done since it started.
  struct Totals {
    uint64_t committed = 0;   // transactions that committed (each may hold many increments)
    uint64_t failed = 0;      // transactions that failed: none of their increments was acknowledged
    uint64_t increments = 0;  // increments in committed transactions (over `committed`: the batch size)
    uint64_t purged = 0;      // expired message ids deleted
    // Each transaction's time, from the store's BEGIN to COMMIT's return (the fsync included), committed or not:
    // counts per bucket of kTransactionBuckets (then +Inf), not cumulative, and their sum.
    std::array<uint64_t, kTransactionBuckets.size() + 1> transaction_buckets{};
    uint64_t transaction_nanos = 0;
    // SQLite: the store's log checkpoints, run on a thread of their own (CounterStore::checkpoints()).
    uint64_t checkpoints = 0;
    uint64_t checkpoint_restarts = 0;
    uint64_t inline_checkpoints = 0;
  };
  Totals totals() const;

 private:
  // A caller blocked in Increment(), on its stack.
  struct Waiter {
    const std::string* name;
    const std::string* message_id;
    int64_t value = 0;
    Status status;
    bool done = false;
    // Its caller waits on its own condition: a commit wakes the callers of its batch, each once, not
    // every caller waiting for a later batch too.
    boost::condition_variable committed;
  };
  // What the queue holds: a waiting caller, or one item of a submitted group.
  struct Entry {
    Waiter* waiter = nullptr;
    Group* group = nullptr;
    Group::Item* item = nullptr;
    const std::string& name() const { return waiter != nullptr ? *waiter->name : item->name; }
    const std::string& message_id() const { return waiter != nullptr ? *waiter->message_id : item->message_id; }
  };

  void Run();
  // A transaction of kSlowTransactionSeconds or more, logged with its wait for SQLite's locks (writer thread; at
  // most one line a second, the next one saying how many were left out).
  void LogSlowTransaction(size_t increments, double seconds, long long lock_wait_us);
  // Answers a group's item; returns the group when that was its last unanswered one (writer thread).
  static Group* Answered(const Entry& entry, Answer answer);

  std::unique_ptr<CounterStore> store_;
  mutable boost::mutex mutex_;
  boost::condition_variable work_;
  std::deque<Entry> queue_;
  size_t max_queued_ = 0;
  bool stopping_ = false;
  Totals totals_;  // written by the writer under mutex_, with the batch's answers
  std::chrono::steady_clock::time_point last_slow_line_{};  // writer thread only
  uint64_t slow_lines_left_out_ = 0;                        // writer thread only
  boost::thread writer_;
};

class GroupCommitCounters : public CounterBackend {
 public:
  GroupCommitCounters(GroupCommitter* committer, std::unique_ptr<CounterStore> reader)
      : committer_(committer), reader_(std::move(reader)) {}
  using CounterBackend::Increment;
  Status Increment(const std::string& name, const std::string& message_id, int64_t* value) override {
    return committer_->Increment(name, message_id, value);
  }
  Status Get(const std::string& name, int64_t* value) override { return reader_->Get(name, value); }

 private:
  GroupCommitter* committer_;
  std::unique_ptr<CounterStore> reader_;
};

}  // namespace lather
