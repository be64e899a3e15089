// CounterStore: the durable named counters behind IncCounter and GetCounter, in SQLite through
// Poco::Data (WAL journal, synchronous=FULL: an increment is on disk when Increment() returns).
// A CounterStore is one database connection: not thread-safe, open one per thread. Several stores
// (threads or processes) may share one file; each increment is one atomic statement.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"

namespace Poco::Data {
class Session;
}

namespace lather {

class CounterStore {
 public:
  // Opens the store named by `uri`: "sqlite:PATH" (the file is created if missing) or
  // "sqlite::memory:". Returns IOError if the file cannot be opened or written, InvalidArgument
  // for an unknown scheme.
  static Status Open(const std::string& uri, std::unique_ptr<CounterStore>* store);

  ~CounterStore();
  CounterStore(const CounterStore&) = delete;
  CounterStore& operator=(const CounterStore&) = delete;

  // Adds 1 to `name` (created at 0) and sets *value to the new value once committed.
  // Returns Unavailable if the store cannot commit (the counter is then unchanged).
  Status Increment(const std::string& name, int64_t* value);

  // Sets *value to the counter's value, 0 if it does not exist.
  Status Get(const std::string& name, int64_t* value);

 private:
  explicit CounterStore(std::unique_ptr<Poco::Data::Session> session);

  std::unique_ptr<Poco::Data::Session> session_;
};

}  // namespace lather
