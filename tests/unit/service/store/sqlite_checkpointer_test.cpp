// SqliteCheckpointer and SetBusyWait on real SQLite files: the log is copied back off the committing thread and
// stays bounded however the writer runs; a busy connection waits for a lock and gives up after its timeout.
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "service/store/counter_store.h"
#include "service/store/sqlite_busy_wait.h"
#include "service/store/sqlite_checkpointer.h"
#include "tests/unit/service/store/temp_dir.h"

using lather::CounterIncrement;
using lather::CounterStore;
using lather::SqliteCheckpointer;
using lather::test::TempDir;

namespace {
uintmax_t FileSize(const std::filesystem::path& path) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size;
}
}  // namespace

TEST_CASE("a store's log is checkpointed off the committing thread and stays bounded under a writer that never pauses",
          "[service][store][checkpoint]") {
  const TempDir dir;
  std::unique_ptr<CounterStore> store;
  REQUIRE(CounterStore::Open(dir.SqliteUri(), &store).ok());
  REQUIRE(store->CheckpointInBackground().ok());
  // Random ids, as WCF, CXF and lather-stress send them: each one dirties a leaf page of its own, so the log
  // grows by several pages a batch. Batches back to back, no pause: the thread's RESTART may never get in.
  std::mt19937_64 random(29);
  const std::string name = "ckpt";
  constexpr int kBatches = 3000;
  constexpr size_t kPerBatch = 8;
  std::vector<std::string> ids(kPerBatch);
  uintmax_t largest_log = 0;
  for (int b = 0; b < kBatches; ++b) {
    std::vector<CounterIncrement> batch(kPerBatch);
    for (size_t i = 0; i < kPerBatch; ++i) {
      ids[i] = "urn:uuid:" + std::to_string(random()) + "-" + std::to_string(random());
      batch[i].name = &name;
      batch[i].message_id = &ids[i];
    }
    REQUIRE(store->IncrementBatch(&batch).ok());
    largest_log = std::max(largest_log, FileSize(dir.path / "c.db-wal"));
  }
  INFO("largest log " << largest_log << " bytes; thread's checkpoints " << store->checkpoints() << " (restarts "
                      << store->checkpoint_restarts() << "), inline " << store->inline_checkpoints());
  // Never past the inline limit by more than one batch's frames (a frame: a 4 KiB page and its 24-byte header).
  CHECK(largest_log <= static_cast<uintmax_t>(SqliteCheckpointer::kInlinePages + 200) * (4096 + 24) + 32);
  CHECK(largest_log > 0);
  CHECK(store->checkpoints() + store->inline_checkpoints() > 0);
  int64_t value = 0;
  REQUIRE(store->Get(name, &value).ok());
  CHECK(value == kBatches * static_cast<int64_t>(kPerBatch));
  store.reset();  // closed: its last connection's checkpoint leaves everything in the file
  REQUIRE(CounterStore::Open(dir.SqliteUri(), &store).ok());
  REQUIRE(store->Get(name, &value).ok());
  CHECK(value == kBatches * static_cast<int64_t>(kPerBatch));
}

TEST_CASE("the checkpointer refuses a file that is not in WAL mode", "[service][store][checkpoint]") {
  const TempDir dir;
  const std::string path = (dir.path / "rollback.db").string();
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "CREATE TABLE t (x)", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  std::unique_ptr<SqliteCheckpointer> checkpointer;
  const lather::Status s = SqliteCheckpointer::Start(path, &checkpointer);
  CHECK(s.kind() == lather::Status::Kind::kIOError);
  CHECK(s.message().find("not wal") != std::string::npos);
  CHECK(checkpointer == nullptr);
}

TEST_CASE("a busy wait gives up on a lock held past its timeout and waits for one released within it",
          "[service][store][checkpoint]") {
  const TempDir dir;
  const std::string path = (dir.path / "busy.db").string();
  sqlite3* holder = nullptr;
  sqlite3* waiter = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &holder) == SQLITE_OK);
  REQUIRE(sqlite3_open(path.c_str(), &waiter) == SQLITE_OK);
  REQUIRE(sqlite3_exec(holder, "PRAGMA journal_mode=WAL; CREATE TABLE t (x)", nullptr, nullptr, nullptr) == SQLITE_OK);
  lather::SetBusyWait(waiter, 30);
  REQUIRE(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK);
  // Held past the timeout: the waiter gives up with BUSY, as with SQLite's own busy timeout.
  CHECK(sqlite3_exec(waiter, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_BUSY);
  REQUIRE(sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK);
  // Free: it gets the lock at once.
  CHECK(sqlite3_exec(waiter, "BEGIN IMMEDIATE; INSERT INTO t VALUES (1); COMMIT", nullptr, nullptr, nullptr) ==
        SQLITE_OK);
  // Held for a moment, well inside the timeout: the waiter waits and gets it.
  lather::SetBusyWait(waiter, 10000);
  REQUIRE(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK);
  std::thread release([holder] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
  });
  CHECK(sqlite3_exec(waiter, "BEGIN IMMEDIATE; INSERT INTO t VALUES (2); COMMIT", nullptr, nullptr, nullptr) ==
        SQLITE_OK);
  release.join();
  sqlite3_close(waiter);
  sqlite3_close(holder);
}
