// CounterStore: the durable named counters behind IncCounter and GetCounter: in SQLite through Poco::Data
// (WAL journal, synchronous=FULL: an increment is on disk when Increment() returns) or in PostgreSQL through libpq
// (synchronous_commit on: an increment is in the server's WAL on disk when it returns). The
// store is chosen by the URI's scheme. A PostgreSQL store that loses its server answers Unavailable and
// reconnects by itself (at most every 200 ms, on the next call).
// A CounterStore is one database connection: not thread-safe, open one per thread. Several stores
// (threads, processes, nodes) may share one database; each increment is one atomic statement.
// Idempotent increments: an increment may carry a message id (WS-Addressing wsa:MessageID). The
// table message_ids remembers (id, counter name, value, time) in the same transaction as the
// increment, so a repeat of the id within the window answers the first value without counting again.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace lather {
struct SqliteStatements;
class PgConnection;
class SqliteCheckpointer;
}

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
  // Adds 1 to `name` (created at 0) and sets *value to the new value once committed. With a
  // non-empty `message_id` seen before within the window, adds nothing and sets *value to the value
  // that first increment returned; InvalidArgument if that id was used for another counter name.
  virtual Status Increment(const std::string& name, const std::string& message_id, int64_t* value) = 0;
  // Increment() without a message id.
  Status Increment(const std::string& name, int64_t* value) { return Increment(name, std::string(), value); }
  // Sets *value to the counter's value, 0 if it does not exist.
  virtual Status Get(const std::string& name, int64_t* value) = 0;
};

// Longest message id accepted, in bytes.
inline constexpr size_t kMaxMessageIdBytes = 256;

// How long message ids are remembered by default (a day).
inline constexpr std::chrono::seconds kDefaultIdempotencyWindow{86400};

// One increment of a batch (see CounterStore::IncrementBatch): the input, then the outcome.
struct CounterIncrement {
  const std::string* name = nullptr;
  const std::string* message_id = nullptr;  // null or empty: none (always counts)
  int64_t value = 0;  // the value after this increment (or the remembered one for a repeated id)
  Status status;      // InvalidArgument for an id already used for another counter name
};

class CounterStore : public CounterBackend {
 public:
  // Opens the store named by `uri`: "sqlite:PATH" (the file is created if missing), "sqlite::memory:",
  // or "postgresql://USER@HOST:PORT/DB" (also "postgresql:///DB?host=/run/postgresql" for a socket, and
  // any libpq connection URI or "postgresql:" followed by libpq key=value pairs). Returns IOError if a
  // SQLite file cannot be opened or written, InvalidArgument for an unknown scheme. A PostgreSQL server
  // that cannot be reached now is not an error: the store connects when it can (calls answer Unavailable
  // meanwhile).
  //
  static Status Open(const std::string& uri, std::unique_ptr<CounterStore>* store);

  ~CounterStore() override;
  CounterStore(const CounterStore&) = delete;
  CounterStore& operator=(const CounterStore&) = delete;

  using CounterBackend::Increment;
  // Adds 1 to `name` (created at 0) and sets *value to the new value once committed; a repeated
  // `message_id` as CounterBackend says. Returns Unavailable if the store cannot commit (the counter
  // is then unchanged).
  Status Increment(const std::string& name, const std::string& message_id, int64_t* value) override;

  // Sets *value to the counter's value, 0 if it does not exist.
  Status Get(const std::string& name, int64_t* value) override;

  // Runs every increment of *batch in one transaction, in order, and sets each one's value and
  // status: names repeat (each counts), a message id counts once (later items of the same id,
  // in this batch or a former one within the window, get the first value, or InvalidArgument for
  // another name). Then deletes up to `purge_limit` expired message ids in the same transaction
  // and sets *purged (if not null) to their number. All or nothing: on failure (Unavailable)
  // nothing is committed.
  Status IncrementBatch(std::vector<CounterIncrement>* batch, size_t purge_limit = 0, size_t* purged = nullptr);

  // Message ids are remembered for `window`; a repeat after it counts as new. 0: message ids are
  // ignored (every increment counts). Default kDefaultIdempotencyWindow.
  void set_idempotency_window(std::chrono::milliseconds window) { window_ = window; }
  std::chrono::milliseconds idempotency_window() const { return window_; }

  // Deletes up to `limit` message ids older than the window in its own transaction and sets
  // *deleted to their number. Unavailable on a store error.
  Status PurgeExpiredMessageIds(size_t limit, size_t* deleted);

  // SQLite file: checkpoints its write-ahead log on a thread of its own (SqliteCheckpointer) instead of in the
  // commit that fills it; for the connection that commits the increments (the group committer's). IOError if
  // the file cannot be opened a second time. A no-op for PostgreSQL and ":memory:".
  Status CheckpointInBackground();
  // SQLite with CheckpointInBackground(): the checkpoints its thread ran (passive and restart), the restarts
  // among them, and those the committing thread ran itself (SqliteCheckpointer); 0 otherwise. Any thread.
  uint64_t checkpoints() const;
  uint64_t checkpoint_restarts() const;
  uint64_t inline_checkpoints() const;

  // Tests only: take the database's write lock (BEGIN EXCLUSIVE) until UnlockForTest(), to make
  // every other writer wait as behind a slow disk (SQLite only).
  Status LockForTest();
  Status UnlockForTest();

  // "sqlite" or "postgresql".
  const char* kind() const { return postgres_ ? "postgresql" : "sqlite"; }

  // PostgreSQL: batches committed as one statement (all their ids new), and batches that went through the
  // claim-first transaction (an id taken before, or a retry).
  uint64_t one_statement_batches() const { return one_statement_batches_; }
  uint64_t claim_first_batches() const { return claim_first_batches_; }

 private:
  CounterStore(bool postgres, std::string connect);
  // Opens the connection and the tables; throws Poco::Exception.
  void Connect();
  // A PostgreSQL store without a live connection tries to make one (not more often than every 200 ms).
  // Unavailable while it cannot.
  Status EnsureConnected();
  // After an error: a PostgreSQL connection is dropped, to be made again by the next call.
  Status Failed(const std::string& what);
  // The statements of IncrementBatch inside its transaction; throws Poco::Exception.
  void RunBatch(std::vector<CounterIncrement>* batch, int64_t now_ms);
  // Adds `by` to `name` (created at 0); returns the new value.
  int64_t IncrementRow(const std::string& name, int64_t by);
  // What claiming a message id came to: new (claimed), or taken before, with what it was remembered as.
  struct ClaimOutcome {
    bool claimed = false;
    std::string name;
    int64_t value = 0;
    int64_t at = 0;
  };
  // Claims each of `ids` (distinct) for an increment of names[i] at `at` (SQLite: one statement per id;
  // PostgreSQL: two statements for all of them).
  void ClaimAll(const std::vector<const std::string*>& ids, const std::vector<const std::string*>& names, int64_t at,
                std::vector<ClaimOutcome>* outcomes);
  // Records the values the claimed ids answered.
  void RememberAll(const std::vector<const std::string*>& ids, const std::vector<const std::string*>& names,
                   const std::vector<int64_t>& values, int64_t at);
  size_t DeleteExpired(int64_t now_ms, size_t limit);
  // PostgreSQL: the whole batch as one autocommitted statement, assuming every message id new: the counters'
  // increments, the ids remembered with their values, the purge. False, with nothing written, when an id was
  // taken before; throws Poco::Exception on any other failure.
  bool CountInOneStatement(std::vector<CounterIncrement>* batch, int64_t now_ms, size_t purge_limit, size_t* purged);

  bool postgres_ = false;
  std::string connect_;  // the SQLite path, or the libpq connection string
  // Declared before session_: its hook is on session_'s connection, which is closed first.
  std::unique_ptr<SqliteCheckpointer> checkpointer_;
  std::unique_ptr<Poco::Data::Session> session_;  // SQLite (Poco::Data)
  std::unique_ptr<PgConnection> pg_;              // PostgreSQL (libpq, statements prepared once)
  // SQLite: the statements of an increment and a read, compiled once on session_ (finalized before it).
  std::unique_ptr<SqliteStatements> sqlite_;
  int64_t next_connect_ns_ = 0;  // no new PostgreSQL connection is tried before then
  std::string last_error_;       // why the last connection attempt failed
  std::chrono::milliseconds window_ = kDefaultIdempotencyWindow;
  uint64_t one_statement_batches_ = 0;
  uint64_t claim_first_batches_ = 0;
};

}  // namespace lather
