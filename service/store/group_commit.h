// GroupCommitter: durable counter increments from many threads committed together. Callers block
// in Increment() while one writer thread (Boost.Thread) takes every increment queued so far, runs
// them in one SQLite transaction and wakes the callers with their values once COMMIT returned:
// one fsync for the whole batch, and still nothing is acknowledged before it is on disk.
// GroupCommitCounters is the per-thread CounterBackend that uses it (reads go to its own connection).
// Increments with a message id count once (see CounterStore::IncrementBatch), also when repeats wait
// in the same batch; the writer also deletes expired message ids, a bounded number per transaction.
// Thread-safe.
#pragma once

#include <boost/thread/condition_variable.hpp>
#include <boost/thread/mutex.hpp>
#include <boost/thread/thread.hpp>

#include <deque>
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
  };
  void Run();

  std::unique_ptr<CounterStore> store_;
  mutable boost::mutex mutex_;
  boost::condition_variable work_;
  std::deque<Request*> queue_;
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
