#include "service/store/group_commit.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <filesystem>
#include <thread>
#include <unistd.h>
#include <vector>

using lather::CounterStore;
using lather::GroupCommitter;

TEST_CASE("increments from many threads are all committed, in fewer transactions than increments",
          "[service][store][group-commit]") {
  const auto path = std::filesystem::temp_directory_path() / ("lather-gc-" + std::to_string(::getpid()) + ".db");
  const std::string uri = "sqlite:" + path.string();
  std::unique_ptr<CounterStore> store;
  REQUIRE(CounterStore::Open(uri, &store).ok());
  constexpr int kThreads = 16, kEach = 50;
  std::atomic<int> failures{0};
  std::vector<int64_t> seen(kThreads * kEach, 0);
  uint64_t commits = 0;
  {
    GroupCommitter committer(std::move(store));
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        const std::string name = "gc";
        for (int i = 0; i < kEach; ++i) {
          int64_t value = 0;
          if (!committer.Increment(name, &value).ok()) ++failures;
          seen[static_cast<size_t>(t * kEach + i)] = value;
        }
      });
    }
    for (auto& t : threads) t.join();
    commits = committer.commits();
  }
  CHECK(failures == 0);
  // Every acknowledged value is distinct: each increment got its own place in the sequence.
  std::sort(seen.begin(), seen.end());
  for (size_t i = 0; i < seen.size(); ++i) REQUIRE(seen[i] == static_cast<int64_t>(i + 1));
  CHECK(commits >= 1);
  CHECK(commits <= static_cast<uint64_t>(kThreads * kEach));
  std::unique_ptr<CounterStore> reader;
  REQUIRE(CounterStore::Open(uri, &reader).ok());
  int64_t value = 0;
  REQUIRE(reader->Get("gc", &value).ok());
  CHECK(value == kThreads * kEach);
  reader.reset();
  std::filesystem::remove(path);
  std::filesystem::remove(path.string() + "-wal");
  std::filesystem::remove(path.string() + "-shm");
}

namespace {
std::unique_ptr<CounterStore> FreshStore(const std::string& tag) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("lather-gc-" + tag + "-" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(path);
  std::unique_ptr<CounterStore> store;
  REQUIRE(CounterStore::Open("sqlite:" + path.string(), &store).ok());
  return store;
}

int64_t NowRealtimeNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

TEST_CASE("submitted increments beside waiting callers all get distinct values, each answered once",
          "[service][store][group-commit]") {
  // The event loops Submit(); pool threads wait in Increment(): both share batches. A waiting caller's
  // request lives on its stack, so the writer must not touch it once woken (ASan catches it if it does).
  constexpr int kSubmitted = 400, kThreads = 4, kEach = 100;
  std::mutex mutex;
  std::vector<int64_t> values;
  std::atomic<int> answered{0}, failed{0};
  {
    GroupCommitter committer(FreshStore("mixed"));
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kEach; ++i) {
          int64_t value = 0;
          if (!committer.Increment("m", &value).ok()) ++failed;
          const std::lock_guard<std::mutex> lock(mutex);
          values.push_back(value);
        }
      });
    }
    for (int i = 0; i < kSubmitted; ++i) {
      REQUIRE(committer.Submit("m", "", NowRealtimeNanos(), 0, [&](const GroupCommitter::Answer& answer) {
        if (!answer.status.ok() || answer.busy) ++failed;
        ++answered;
        const std::lock_guard<std::mutex> lock(mutex);
        values.push_back(answer.value);
      }));
    }
    for (auto& t : threads) t.join();
  }  // the destructor answers what is still queued
  CHECK(failed == 0);
  CHECK(answered == kSubmitted);
  std::sort(values.begin(), values.end());
  REQUIRE(values.size() == static_cast<size_t>(kSubmitted + kThreads * kEach));
  for (size_t i = 0; i < values.size(); ++i) CHECK(values[i] == static_cast<int64_t>(i + 1));
}

TEST_CASE("Submit refuses past its queue limit, and one that waited too long is answered busy and not counted",
          "[service][store][group-commit]") {
  auto store = FreshStore("limits");
  const std::string uri = "sqlite:" + (std::filesystem::temp_directory_path() /
                                       ("lather-gc-limits-" + std::to_string(::getpid()) + ".db")).string();
  std::unique_ptr<CounterStore> blocker;
  REQUIRE(CounterStore::Open(uri, &blocker).ok());
  REQUIRE(blocker->LockForTest().ok());  // the writer's first batch waits for this lock
  std::atomic<int> busy{0}, counted{0};
  {
    GroupCommitter committer(std::move(store));
    committer.set_max_queued(1);
    auto done = [&](const GroupCommitter::Answer& answer) { ++(answer.busy ? busy : counted); };
    REQUIRE(committer.Submit("l", "", NowRealtimeNanos(), 0, done));  // taken at once, waits for the lock
    for (int i = 0; i < 100 && committer.queued() != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    // Waits behind it with a 0.1 s limit; one more finds the queue full.
    REQUIRE(committer.Submit("l", "", NowRealtimeNanos(), 0.1, done));
    CHECK_FALSE(committer.Submit("l", "", NowRealtimeNanos(), 0, done));
    CHECK(committer.queued() == 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the second is now over its limit
    REQUIRE(blocker->UnlockForTest().ok());
  }
  CHECK(counted == 1);
  CHECK(busy == 1);
  int64_t value = 0;
  REQUIRE(blocker->Get("l", &value).ok());
  CHECK(value == 1);  // the late one changed nothing
}
