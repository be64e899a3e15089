#include "service/store/sqlite_checkpointer.h"

#include <pthread.h>
#include <sqlite3.h>
#include <time.h>

#include <cstdint>
#include <string>

#include "common/clock.h"
#include "common/log.h"
#include "service/store/sqlite_busy_wait.h"

namespace lather {

namespace {
// How long a RESTART checkpoint waits for the writer to pause (its connection's busy timeout), and how long
// the thread sleeps between passes when no hook woke it (a log left over from another process's commits).
constexpr int kBusyTimeoutMs = 2000;
constexpr auto kIdleWake = boost::chrono::seconds(1);
constexpr int kInlineTries = 1000;  // a millisecond apart
// A pass at least this long is logged (a RESTART holds new commits for its whole length).
constexpr int64_t kSlowPassNs = 100'000'000;

std::string Millis(int64_t ns) { return std::to_string(ns / 1'000'000) + " ms"; }

const char* Outcome(int rc) { return rc == SQLITE_OK ? "done" : rc == SQLITE_BUSY ? "busy" : "failed"; }
}  // namespace

Status SqliteCheckpointer::Start(const std::string& path, std::unique_ptr<SqliteCheckpointer>* out) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    const std::string why = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return Status::IOError("cannot open store '" + path + "' for its checkpoints: " + why);
  }
  SetBusyWait(db, kBusyTimeoutMs);
  sqlite3_wal_autocheckpoint(db, 0);  // it commits nothing; and its close leaves the last checkpoint to SQLite
  // A new connection learns that the file is in WAL mode only when it first reads it; until then a checkpoint
  // on it does nothing (and says so only by a log size of -1).
  std::string mode;
  char* error = nullptr;
  sqlite3_exec(
      db, "PRAGMA journal_mode",
      [](void* into, int, char** values, char**) {
        if (values[0] != nullptr) *static_cast<std::string*>(into) = values[0];
        return 0;
      },
      &mode, &error);
  if (mode != "wal") {
    const std::string why = error != nullptr ? error : "journal mode '" + mode + "', not wal";
    sqlite3_free(error);
    sqlite3_close(db);
    return Status::IOError("cannot checkpoint store '" + path + "': " + why);
  }
  out->reset(new SqliteCheckpointer(db));
  return Status::Ok();
}

SqliteCheckpointer::SqliteCheckpointer(sqlite3* db) : db_(db), thread_([this] { Run(); }) {}

SqliteCheckpointer::~SqliteCheckpointer() {
  {
    boost::lock_guard<boost::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
  sqlite3_close(db_);
}

void SqliteCheckpointer::Attach(sqlite3* db) { sqlite3_wal_hook(db, &SqliteCheckpointer::OnCommit, this); }

int SqliteCheckpointer::OnCommit(void* self, sqlite3* db, const char*, int pages) {
  auto* checkpointer = static_cast<SqliteCheckpointer*>(self);
  if (pages >= kInlinePages) {
    // The thread's RESTART could not get in (a writer that never pauses): the committing thread restarts the
    // log itself, as SQLite's autocheckpoint would have, but with most frames copied already. A checkpoint
    // running elsewhere (the thread's next pass, another worker's) makes it BUSY at once, without the busy
    // handler: it tries again every millisecond for up to a second, then leaves it to the next commit.
    const int64_t started = MonotonicNanos();
    int rc = SQLITE_BUSY;
    for (int tries = 0; tries < kInlineTries; ++tries) {
      rc = sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_RESTART, nullptr, nullptr);
      if (rc != SQLITE_BUSY) break;
      timespec pause{0, 1000000};
      nanosleep(&pause, nullptr);
    }
    if (rc == SQLITE_OK) checkpointer->inline_restarts_.fetch_add(1, std::memory_order_relaxed);
    const int64_t took = MonotonicNanos() - started;
    if (took >= kSlowPassNs || rc != SQLITE_OK) {
      LogLine("store checkpoint: the log reached " + std::to_string(pages) + " pages; the committing thread's "
              "RESTART " + Outcome(rc) + " after " + Millis(took) + " (commits waited meanwhile)");
    }
    return SQLITE_OK;
  }
  // `pages` is the log's length, not what is left to copy: a pass is wanted once kWakePages more frames were
  // written since the last one was asked for (or the log started again from its beginning). One wake-up per
  // pass: the thread clears `wanted_` when it starts.
  const int asked_at = checkpointer->asked_at_pages_.load(std::memory_order_relaxed);
  if (pages < asked_at || pages - asked_at >= kWakePages) {
    checkpointer->asked_at_pages_.store(pages < kWakePages ? 0 : pages, std::memory_order_relaxed);
    if (pages >= kWakePages && !checkpointer->wanted_.exchange(true, std::memory_order_acq_rel)) {
      boost::lock_guard<boost::mutex> lock(checkpointer->mutex_);
      checkpointer->wake_.notify_one();
    }
  }
  return SQLITE_OK;
}

void SqliteCheckpointer::Run() {
  pthread_setname_np(pthread_self(), "lather-ckpt");  // named in top -H, /proc/PID/task/*/comm
  for (;;) {
    {
      boost::unique_lock<boost::mutex> lock(mutex_);
      if (!stopping_ && !wanted_.load(std::memory_order_acquire)) wake_.wait_for(lock, kIdleWake);
      if (stopping_) return;
    }
    wanted_.store(false, std::memory_order_release);
    int log = 0, copied = 0;
    const int64_t started = MonotonicNanos();
    int rc = sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
    const int64_t passive_ns = MonotonicNanos() - started;
    if (rc == SQLITE_OK) checkpoints_.fetch_add(1, std::memory_order_relaxed);
    if (passive_ns >= kSlowPassNs) {
      LogLine("store checkpoint: a PASSIVE pass took " + Millis(passive_ns) + " (" + Outcome(rc) + ", " +
              std::to_string(copied) + " of " + std::to_string(log) + " log pages in the database file)");
    }
    if (rc == SQLITE_OK && log >= kRestartPages) {
      const int passive_log = log, passive_copied = copied;
      const int64_t restart_started = MonotonicNanos();
      rc = sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_RESTART, &log, &copied);
      const int64_t restart_ns = MonotonicNanos() - restart_started;
      if (rc == SQLITE_OK) {
        checkpoints_.fetch_add(1, std::memory_order_relaxed);
        restarts_.fetch_add(1, std::memory_order_relaxed);
      }
      if (restart_ns >= kSlowPassNs) {
        LogLine("store checkpoint: a RESTART held new commits for " + Millis(restart_ns) + " (" + Outcome(rc) +
                "; the passive pass before it had " + std::to_string(passive_copied) + " of " +
                std::to_string(passive_log) + " log pages in the database file)");
      }
    }
    // Busy: another process's checkpoint holds the file, or the writer did not pause in time; the log's next
    // kWakePages ask again (or the idle pass). Anything else is worth a line (the log then grows until a
    // checkpoint works, up to kInlinePages).
    if (rc != SQLITE_OK && rc != SQLITE_BUSY && rc != SQLITE_LOCKED) {
      LogLine(std::string("store checkpoint failed: ") + sqlite3_errmsg(db_));
    }
  }
}

}  // namespace lather
