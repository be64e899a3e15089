// Idempotent increments in the store: a message id counts once, in one batch or across batches,
// reopened stores and threads; its window; the bounded purge; the checks of Operations.
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <set>
#include <thread>
#include <vector>

#include "service/soap/operations.h"
#include "service/store/counter_store.h"
#include "service/store/group_commit.h"

using lather::CounterIncrement;
using lather::CounterStore;
using lather::GroupCommitter;
using lather::Status;

namespace {

std::unique_ptr<CounterStore> MemoryStore() {
  std::unique_ptr<CounterStore> store;
  REQUIRE(CounterStore::Open("sqlite::memory:", &store).ok());
  return store;
}

// A store file in the temp folder, removed (with its WAL files) at the end of the test.
class TempStoreFile {
 public:
  explicit TempStoreFile(const std::string& tag)
      : path_(std::filesystem::temp_directory_path() /
              ("lather-idem-" + tag + "-" + std::to_string(::getpid()) + ".db")) {
    Remove();
  }
  ~TempStoreFile() { Remove(); }
  std::string uri() const { return "sqlite:" + path_.string(); }

 private:
  void Remove() {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + suffix, ec);
  }
  std::filesystem::path path_;
};

int64_t Counter(CounterStore* store, const std::string& name) {
  int64_t value = -1;
  REQUIRE(store->Get(name, &value).ok());
  return value;
}

}  // namespace

TEST_CASE("a repeated message id answers the first value and counts once", "[service][store][idempotency]") {
  auto store = MemoryStore();
  int64_t first = 0, again = 0, other = 0;
  REQUIRE(store->Increment("visits", "uuid:a", &first).ok());
  REQUIRE(store->Increment("visits", "uuid:a", &again).ok());
  CHECK(first == 1);
  CHECK(again == 1);
  REQUIRE(store->Increment("visits", "uuid:b", &other).ok());
  CHECK(other == 2);
  CHECK(Counter(store.get(), "visits") == 2);
}

TEST_CASE("increments without a message id all count", "[service][store][idempotency]") {
  auto store = MemoryStore();
  int64_t value = 0;
  for (int i = 0; i < 3; ++i) REQUIRE(store->Increment("plain", "", &value).ok());
  CHECK(value == 3);
  CHECK(Counter(store.get(), "plain") == 3);
}

TEST_CASE("a message id reused for another counter is refused and changes nothing",
          "[service][store][idempotency]") {
  auto store = MemoryStore();
  int64_t value = 0;
  REQUIRE(store->Increment("a", "uuid:shared", &value).ok());
  const Status s = store->Increment("b", "uuid:shared", &value);
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK(Counter(store.get(), "a") == 1);
  CHECK(Counter(store.get(), "b") == 0);
  // The id still names the first request.
  REQUIRE(store->Increment("a", "uuid:shared", &value).ok());
  CHECK(value == 1);
}

TEST_CASE("repeats of a message id inside one batch count once and all get the same value",
          "[service][store][idempotency]") {
  auto store = MemoryStore();
  const std::string a = "a", b = "b", id1 = "uuid:1", id2 = "uuid:2", none;
  std::vector<CounterIncrement> batch(6);
  const std::pair<const std::string*, const std::string*> items[] = {{&a, &id1}, {&a, &id1}, {&a, &none},
                                                                     {&b, &id1}, {&a, &id2}, {&a, nullptr}};
  for (size_t i = 0; i < batch.size(); ++i) {
    batch[i].name = items[i].first;
    batch[i].message_id = items[i].second;
  }
  REQUIRE(store->IncrementBatch(&batch).ok());
  CHECK(batch[0].value == 1);
  CHECK(batch[1].value == 1);
  CHECK(batch[2].value == 2);
  CHECK(batch[3].status.kind() == Status::Kind::kInvalidArgument);
  CHECK(batch[4].value == 3);
  CHECK(batch[5].value == 4);
  for (size_t i : {0, 1, 2, 4, 5}) CHECK(batch[i].status.ok());
  CHECK(Counter(store.get(), "a") == 4);
  CHECK(Counter(store.get(), "b") == 0);
}

TEST_CASE("a window of 0 ignores message ids", "[service][store][idempotency]") {
  auto store = MemoryStore();
  store->set_idempotency_window(std::chrono::milliseconds(0));
  int64_t value = 0;
  REQUIRE(store->Increment("c", "uuid:x", &value).ok());
  REQUIRE(store->Increment("c", "uuid:x", &value).ok());
  CHECK(value == 2);
}

TEST_CASE("a message id older than the window counts as new", "[service][store][idempotency]") {
  auto store = MemoryStore();
  store->set_idempotency_window(std::chrono::milliseconds(200));
  int64_t value = 0;
  REQUIRE(store->Increment("w", "uuid:old", &value).ok());
  CHECK(value == 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(store->Increment("w", "uuid:old", &value).ok());
  CHECK(value == 2);
  // ... and the id now names the new increment.
  REQUIRE(store->Increment("w", "uuid:old", &value).ok());
  CHECK(value == 2);
  // An expired id may also be reused for another counter.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(store->Increment("other", "uuid:old", &value).ok());
  CHECK(value == 1);
}

TEST_CASE("expired message ids are deleted in bounded batches", "[service][store][idempotency]") {
  auto store = MemoryStore();
  store->set_idempotency_window(std::chrono::milliseconds(100));
  int64_t value = 0;
  for (int i = 0; i < 5; ++i) REQUIRE(store->Increment("p", "uuid:" + std::to_string(i), &value).ok());
  size_t deleted = 99;
  REQUIRE(store->PurgeExpiredMessageIds(2, &deleted).ok());
  CHECK(deleted == 0);  // none has expired yet
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  REQUIRE(store->Increment("p", "uuid:fresh", &value).ok());
  REQUIRE(store->PurgeExpiredMessageIds(2, &deleted).ok());
  CHECK(deleted == 2);
  std::vector<CounterIncrement> batch(1);
  const std::string name = "p";
  batch[0].name = &name;
  size_t purged = 0;
  REQUIRE(store->IncrementBatch(&batch, 2, &purged).ok());
  CHECK(purged == 2);
  REQUIRE(store->PurgeExpiredMessageIds(2, &deleted).ok());
  CHECK(deleted == 1);
  REQUIRE(store->PurgeExpiredMessageIds(2, &deleted).ok());
  CHECK(deleted == 0);  // uuid:fresh is still inside the window
  REQUIRE(store->Increment("p", "uuid:fresh", &value).ok());
  CHECK(value == 6);
}

TEST_CASE("a message id is remembered by a reopened store file", "[service][store][idempotency]") {
  TempStoreFile file("reopen");
  int64_t value = 0;
  {
    std::unique_ptr<CounterStore> store;
    REQUIRE(CounterStore::Open(file.uri(), &store).ok());
    REQUIRE(store->Increment("durable", "uuid:kept", &value).ok());
    REQUIRE(store->Increment("durable", "", &value).ok());
  }
  std::unique_ptr<CounterStore> reopened;
  REQUIRE(CounterStore::Open(file.uri(), &reopened).ok());
  REQUIRE(reopened->Increment("durable", "uuid:kept", &value).ok());
  CHECK(value == 1);
  CHECK(Counter(reopened.get(), "durable") == 2);
}

TEST_CASE("the same message id from 8 threads through the group committer counts once",
          "[service][store][group-commit][idempotency]") {
  TempStoreFile file("gc");
  std::unique_ptr<CounterStore> store;
  REQUIRE(CounterStore::Open(file.uri(), &store).ok());
  constexpr int kThreads = 8, kRounds = 20;
  std::vector<int64_t> values(kThreads * kRounds, -1);
  std::atomic<int> failures{0};
  {
    GroupCommitter committer(std::move(store));
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        const std::string name = "gc-idem";
        for (int r = 0; r < kRounds; ++r) {
          const std::string id = "uuid:round-" + std::to_string(r);
          int64_t value = 0;
          if (!committer.Increment(name, id, &value).ok()) ++failures;
          values[static_cast<size_t>(r * kThreads + t)] = value;
        }
      });
    }
    for (auto& t : threads) t.join();
  }
  CHECK(failures == 0);
  // Round r's id was counted once: every thread got the same value, and the values are 1..kRounds.
  std::set<int64_t> distinct;
  for (int r = 0; r < kRounds; ++r) {
    for (int t = 1; t < kThreads; ++t) {
      CHECK(values[static_cast<size_t>(r * kThreads + t)] == values[static_cast<size_t>(r * kThreads)]);
    }
    distinct.insert(values[static_cast<size_t>(r * kThreads)]);
  }
  CHECK(distinct.size() == kRounds);
  CHECK(*distinct.begin() == 1);
  CHECK(*distinct.rbegin() == kRounds);
  std::unique_ptr<CounterStore> reader;
  REQUIRE(CounterStore::Open(file.uri(), &reader).ok());
  CHECK(Counter(reader.get(), "gc-idem") == kRounds);
}

TEST_CASE("IncCounter refuses an empty or overlong message id before the store",
          "[service][operations][idempotency]") {
  lather::Operations ops(MemoryStore());
  int64_t value = 0;
  const std::string empty, longest(lather::kMaxMessageIdBytes, 'x'),
      too_long(lather::kMaxMessageIdBytes + 1, 'x');
  CHECK(ops.IncCounter("n", &empty, &value).kind() == Status::Kind::kInvalidArgument);
  CHECK(ops.IncCounter("n", &too_long, &value).kind() == Status::Kind::kInvalidArgument);
  REQUIRE(ops.GetCounter("n", &value).ok());
  CHECK(value == 0);
  REQUIRE(ops.IncCounter("n", &longest, &value).ok());
  REQUIRE(ops.IncCounter("n", &longest, &value).ok());
  CHECK(value == 1);
}
