#include "service/store/counter_store.h"
#include "tests/unit/service/store/temp_dir.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

using lather::CounterStore;
using lather::Status;

using lather::test::TempDir;

TEST_CASE("a fresh counter reads 0 and its first increment returns 1", "[service][store]") {
  TempDir dir;
  std::unique_ptr<CounterStore> store;
  REQUIRE(CounterStore::Open(dir.SqliteUri(), &store).ok());
  int64_t value = -1;
  REQUIRE(store->Get("fresh", &value).ok());
  CHECK(value == 0);
  REQUIRE(store->Increment("fresh", &value).ok());
  CHECK(value == 1);
  REQUIRE(store->Get("fresh", &value).ok());
  CHECK(value == 1);
}

TEST_CASE("many increments count exactly and names are independent", "[service][store]") {
  TempDir dir;
  std::unique_ptr<CounterStore> store;
  REQUIRE(CounterStore::Open(dir.SqliteUri(), &store).ok());
  int64_t value = 0;
  for (int i = 1; i <= 200; ++i) {
    REQUIRE(store->Increment("a", &value).ok());
    REQUIRE(value == i);
  }
  REQUIRE(store->Increment("b", &value).ok());
  CHECK(value == 1);
  REQUIRE(store->Get("a", &value).ok());
  CHECK(value == 200);
}

TEST_CASE("two stores on the same file see each other's increments", "[service][store]") {
  TempDir dir;
  const std::string uri = "sqlite:" + (dir.path / "shared.db").string();
  std::unique_ptr<CounterStore> first, second;
  REQUIRE(CounterStore::Open(uri, &first).ok());
  REQUIRE(CounterStore::Open(uri, &second).ok());
  int64_t value = 0;
  REQUIRE(first->Increment("shared", &value).ok());
  REQUIRE(second->Increment("shared", &value).ok());
  CHECK(value == 2);
  REQUIRE(first->Increment("shared", &value).ok());
  CHECK(value == 3);
  // Reopened after both are closed, the value is still there.
  first.reset();
  second.reset();
  REQUIRE(CounterStore::Open(uri, &first).ok());
  REQUIRE(first->Get("shared", &value).ok());
  CHECK(value == 3);
}

TEST_CASE("an unwritable store path and an unknown scheme fail to open", "[service][store]") {
  std::unique_ptr<CounterStore> store;
  const Status unwritable = CounterStore::Open("sqlite:/proc/lather-no-such-dir/c.db", &store);
  CHECK(unwritable.kind() == Status::Kind::kIOError);
  CHECK(store == nullptr);
  CHECK(CounterStore::Open("redis://x", &store).kind() == Status::Kind::kInvalidArgument);
  CHECK(CounterStore::Open("sqlite:", &store).kind() == Status::Kind::kInvalidArgument);
}

TEST_CASE("eight processes opening one new SQLite file at once all open it (the workers of --workers)",
          "[service][store]") {
  TempDir dir;
  const std::string uri = "sqlite:" + (dir.path / "shared.db").string();
  // Processes, not threads: each has its own SQLite, as two workers do (their first open switched the new
  // file to WAL under the other's lock: "database is locked", and a worker died at start).
  std::vector<pid_t> children;
  for (int i = 0; i < 8; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      std::unique_ptr<CounterStore> store;
      int64_t value = 0;
      const bool ok = CounterStore::Open(uri, &store).ok() && store->Increment("opened", &value).ok();
      ::_exit(ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    failed += WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
  }
  CHECK(failed == 0);
  std::unique_ptr<CounterStore> store;
  REQUIRE(CounterStore::Open(uri, &store).ok());
  int64_t value = 0;
  REQUIRE(store->Get("opened", &value).ok());
  CHECK(value == 8);
}

TEST_CASE("one batch's increments of a counter get consecutive values in queue order, each counter its own",
          "[service][store]") {
  // A batch adds each counter's increments with one statement; every caller still gets its own value.
  TempDir dir;
  std::unique_ptr<CounterStore> store;
  REQUIRE(CounterStore::Open(dir.SqliteUri(), &store).ok());
  int64_t value = 0;
  REQUIRE(store->Increment("a", &value).ok());  // a = 1 before the batch; b is new
  const std::string a = "a", b = "b";
  const std::string* names[] = {&a, &b, &a, &a, &b, &a};
  std::vector<lather::CounterIncrement> batch(6);
  for (size_t i = 0; i < batch.size(); ++i) batch[i].name = names[i];
  REQUIRE(store->IncrementBatch(&batch).ok());
  const int64_t expected[] = {2, 1, 3, 4, 2, 5};
  for (size_t i = 0; i < batch.size(); ++i) {
    CHECK(batch[i].status.ok());
    CHECK(batch[i].value == expected[i]);
  }
  REQUIRE(store->Get("a", &value).ok());
  CHECK(value == 5);
  REQUIRE(store->Get("b", &value).ok());
  CHECK(value == 2);
}

TEST_CASE("a batch waits for another connection's write lock instead of failing (the busy timeout holds "
          "for the compiled statements)",
          "[service][store]") {
  TempDir dir;
  std::unique_ptr<CounterStore> store;
  REQUIRE(CounterStore::Open(dir.SqliteUri(), &store).ok());
  int64_t value = 0;
  REQUIRE(store->Increment("a", &value).ok());
  // Another connection holds the write lock: BEGIN IMMEDIATE waits its busy timeout and fails cleanly.
  std::unique_ptr<CounterStore> other;
  REQUIRE(CounterStore::Open(dir.SqliteUri(), &other).ok());
  REQUIRE(other->LockForTest().ok());
  const std::string a = "a";
  std::vector<lather::CounterIncrement> batch(2);
  for (auto& item : batch) item.name = &a;
  // (busy_timeout is 10 s: unlock from another thread after a moment so the test stays short)
  std::thread unlock([&other] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK(other->UnlockForTest().ok());
  });
  const Status s = store->IncrementBatch(&batch);
  unlock.join();
  REQUIRE(s.ok());  // it waited for the lock instead of failing
  CHECK(batch[0].value == 2);
  CHECK(batch[1].value == 3);
  REQUIRE(store->Increment("a", &value).ok());
  CHECK(value == 4);
}
