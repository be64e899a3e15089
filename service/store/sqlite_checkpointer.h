// SqliteCheckpointer: a SQLite database's write-ahead log copied back into the database file by a thread of
// its own, a little at a time, instead of a thousand pages at once by whichever commit crosses the log's 1,000
// pages (SQLite's autocheckpoint). That commit wrote the thousand random pages into the file and synced it, and
// every increment queued behind it waited: on a table of a million random message ids, IncCounter's p99 was
// 8-13 ms against 2.6-3.1 ms with no checkpoint at all (session 29, docs/benchmarks.md).
//
// Attach() puts a WAL hook on the committing connection in place of its autocheckpoint; each time the log has
// grown by kWakePages the hook wakes the thread (one wake-up per pass, never one per commit, and never a second
// pass at once: on a slow disk the passes grow instead of queueing). The thread checkpoints on a connection of
// its own: PASSIVE (it copies without taking the write lock, so commits go on meanwhile), then RESTART when the
// log has reached kRestartPages anyway - a writer that never pauses keeps a passive checkpoint from ever
// catching up, and the log starts again from its beginning only after one did - which holds new commits only
// for the few frames written during the passive pass. Should even that not get in (a writer that never pauses
// between transactions), the commit that finds kInlinePages in the log restarts it itself. Small passes matter
// as much as leaving the commit path: the same passes every 1,000 pages kept the p99 at 8-11 ms (each pass's
// burst of writes stalled the commits' own syncs), every 300 at 5-6 ms, every 100 at 2.5-4.3, every 30 at
// 1.5-1.8. Checkpoints never touch durability: every commit is synced to the log before it is acknowledged
// (synchronous=FULL).
//
// Thread-safe: the hook runs on the committing thread, everything else on the checkpointer's.
#pragma once

#include <boost/thread/condition_variable.hpp>
#include <boost/thread/mutex.hpp>
#include <boost/thread/thread.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"

struct sqlite3;

namespace lather {

class SqliteCheckpointer {
 public:
  static constexpr int kWakePages = 32;       // 128 KiB of log at 4 KiB pages (SQLite's autocheckpoint: 1,000)
  static constexpr int kRestartPages = 4000;  // 16 MiB of log at 4 KiB pages
  static constexpr int kInlinePages = 8000;   // the most the log holds: 32 MiB

  // Opens a connection of its own to the database file `path` (in WAL mode already) and starts the thread.
  // IOError if the file cannot be opened.
  static Status Start(const std::string& path, std::unique_ptr<SqliteCheckpointer>* out);
  // Stops the thread and closes its connection. Detach the hook first (close the committing connection).
  ~SqliteCheckpointer();
  SqliteCheckpointer(const SqliteCheckpointer&) = delete;
  SqliteCheckpointer& operator=(const SqliteCheckpointer&) = delete;

  // Replaces `db`'s autocheckpoint with the hook that wakes this checkpointer. `db` must be closed before
  // this object is destroyed.
  void Attach(sqlite3* db);

  // Checkpoints the thread ran (passive and restart), those of them that were RESTART, and the RESTARTs the
  // committing thread ran itself (kInlinePages).
  uint64_t checkpoints() const { return checkpoints_.load(std::memory_order_relaxed); }
  uint64_t restarts() const { return restarts_.load(std::memory_order_relaxed); }
  uint64_t inline_restarts() const { return inline_restarts_.load(std::memory_order_relaxed); }

 private:
  explicit SqliteCheckpointer(sqlite3* db);
  static int OnCommit(void* self, sqlite3* db, const char* name, int pages);
  void Run();

  sqlite3* db_;  // the checkpointer's own connection
  std::atomic<bool> wanted_{false};  // set by the hook, cleared by the thread before a pass
  std::atomic<int> asked_at_pages_{0};  // the log's length when the hook last asked for a pass (hook's thread)
  std::atomic<uint64_t> checkpoints_{0};
  std::atomic<uint64_t> restarts_{0};
  std::atomic<uint64_t> inline_restarts_{0};
  boost::mutex mutex_;
  boost::condition_variable wake_;
  bool stopping_ = false;  // under mutex_
  boost::thread thread_;
};

}  // namespace lather
