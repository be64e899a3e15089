// GroupCommitter: durable counter increments from many threads committed together. Callers block
// in Increment() while one writer thread (Boost.Thread) takes every increment queued so far, runs
// them in one SQLite transaction and wakes the callers with their values once COMMIT returned:
// one fsync for the whole batch, and still nothing is acknowledged before it is on disk.
// GroupCommitCounters is the per-thread CounterBackend that uses it (reads go to its own connection).
// Increments with a message id count once (see CounterStore::IncrementBatch), also when repeats wait
// in the same batch; the writer also deletes expired message ids, a bounded number per transaction.
// Submit() queues an increment without waiting (the event loops): its callback runs on the writer
// thread once the batch is committed. Thread-safe.
#pragma once

#include <boost/thread/condition_variable.hpp>
#include <boost/thread/mutex.hpp>
#include <boost/thread/thread.hpp>

#include <deque>
#include <functional>
#include <memory>
#include <string>

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
  };
  using Done = std::function<void(const Answer&)>;
  // Queues an increment of `name` without waiting; `done` runs on the writer thread once its batch has
  // committed (or failed). If it waited longer than `limit_seconds` (> 0) since `arrival_ns` (a
  // CLOCK_REALTIME receive stamp) when the writer takes it, it is not run: `done` gets busy. Returns false
  // (and `done` never runs) when set_max_queued() increments are waiting already, or when stopping.
  bool Submit(std::string name, std::string message_id, int64_t arrival_ns, double limit_seconds, Done done);
  // The most increments Submit() lets wait (0: no limit).
  void set_max_queued(size_t n);
  // Increments waiting for the writer (not yet in a batch).
  size_t queued() const;

  // Transactions committed so far (each may hold many increments).
  uint64_t commits() const;

 private:
  struct Request {
    const std::string* name;
    const std::string* message_id;
    int64_t value = 0;
    Status status;
    bool done = false;
    // Its caller waits on its own condition: a commit wakes the callers of its batch, each once, not
    // every caller waiting for a later batch too.
    boost::condition_variable committed;
    // Submit()ted ones: the strings they point to, and what to call instead of waking a caller.
    std::string own_name, own_message_id;
    Done on_done;
    int64_t arrival_ns = 0;
    double limit_seconds = 0;
  };

  void Run();

  std::unique_ptr<CounterStore> store_;
  mutable boost::mutex mutex_;
  boost::condition_variable work_;
  std::deque<Request*> queue_;
  size_t max_queued_ = 0;
  bool stopping_ = false;
  uint64_t commits_ = 0;
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
