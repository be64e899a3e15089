// CrashStore: the store a kill -9 test restarts lather-service on, again and again: a SQLite file (made
// by the first service) or a PostgreSQL 15 started for the test (PostgresServer). It keeps every service
// it started until it is destroyed (the first one's folder holds the SQLite file). After a SIGKILL,
// Settle() waits until the dead service's transactions are over: PostgreSQL commits or rolls back what a
// killed client had already sent, so until its backends exit a read may not see a commit yet (SQLite
// commits inside the process: nothing to wait for). Not thread-safe; one per test.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "tests/integration/postgres_server.h"
#include "tests/integration/service_process.h"

namespace lather::test {

class CrashStore {
 public:
  enum class Kind { kSqlite, kPostgres };

  // Starts the PostgreSQL server for kPostgres (throws std::runtime_error if it cannot).
  explicit CrashStore(Kind kind);

  // Starts lather-service on the store with `flags` and returns it (owned by this CrashStore). Throws
  // std::runtime_error if it cannot start.
  ServiceProcess* Start(const std::vector<std::string>& flags = {});

  // After a service was killed: true once nothing it sent can still change the store (at most `limit`).
  bool Settle(std::chrono::milliseconds limit = std::chrono::seconds(15));

  // "SQLite" or "PostgreSQL", for messages.
  const char* name() const { return postgres_ ? "PostgreSQL" : "SQLite"; }

 private:
  std::unique_ptr<PostgresServer> postgres_;
  std::string uri_;  // empty until the first service made the SQLite file
  std::vector<std::unique_ptr<ServiceProcess>> services_;
};

}  // namespace lather::test
