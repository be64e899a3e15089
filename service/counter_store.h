// CounterStore: the durable named counters behind IncCounter and GetCounter, in SQLite through
// Poco::Data (WAL journal, synchronous=FULL: an increment is on disk when Increment() returns).
// A CounterStore is one database connection: not thread-safe, open one per thread. Several stores
// (threads or processes) may share one file; each increment is one atomic statement.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace Poco::Data {
class Session;
}

namespace lather {

// What the counter operations need: an atomic, durable increment and a read. Implemented by
// CounterStore (one connection, one transaction per increment) and GroupCommitCounters (increments
// from many threads committed together).
class CounterBackend {
 public:
  virtual ~CounterBackend() = default;
  // Adds 1 to `name` (created at 0) and sets *value to the new value once committed.
  virtual Status Increment(const std::string& name, int64_t* value) = 0;
  // Sets *value to the counter's value, 0 if it does not exist.
  virtual Status Get(const std::string& name, int64_t* value) = 0;
};

class CounterStore : public CounterBackend {
 public:
  // Opens the store named by `uri`: "sqlite:PATH" (the file is created if missing) or
  // "sqlite::memory:". Returns IOError if the file cannot be opened or written, InvalidArgument
  // for an unknown scheme.
  static Status Open(const std::string& uri, std::unique_ptr<CounterStore>* store);

  ~CounterStore() override;
  CounterStore(const CounterStore&) = delete;
  CounterStore& operator=(const CounterStore&) = delete;

  // Adds 1 to `name` (created at 0) and sets *value to the new value once committed.
  // Returns Unavailable if the store cannot commit (the counter is then unchanged).
  Status Increment(const std::string& name, int64_t* value) override;

  // Sets *value to the counter's value, 0 if it does not exist.
  Status Get(const std::string& name, int64_t* value) override;

  // Adds 1 to each of `names` (repeats count twice) in one transaction and sets (*values)[i] to
  // the value after the i-th increment. All or nothing: on failure nothing is committed.
  Status IncrementBatch(const std::vector<const std::string*>& names, std::vector<int64_t>* values);

  // Tests only: take the database's write lock (BEGIN EXCLUSIVE) until UnlockForTest(), to make
  // every other writer wait as behind a slow disk.
  Status LockForTest();
  Status UnlockForTest();

 private:
  explicit CounterStore(std::unique_ptr<Poco::Data::Session> session);

  std::unique_ptr<Poco::Data::Session> session_;
};

}  // namespace lather
