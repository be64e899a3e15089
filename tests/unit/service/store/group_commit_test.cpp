#include "service/store/group_commit.h"
#include "tests/unit/captured_stderr.h"
#include "tests/unit/service/store/temp_dir.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

using lather::CounterStore;
using lather::GroupCommitter;

using lather::test::TempDir;

TEST_CASE("increments from many threads are all committed, in fewer transactions than increments",
          "[service][store][group-commit]") {
  const TempDir dir;
  const std::string uri = dir.SqliteUri();
  std::unique_ptr<CounterStore> store;
  REQUIRE(CounterStore::Open(uri, &store).ok());
  constexpr int kThreads = 16, kEach = 50;
  std::atomic<int> failures{0};
  std::vector<int64_t> seen(kThreads * kEach, 0);
  GroupCommitter::Totals totals;
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
    totals = committer.totals();
  }
  CHECK(failures == 0);
  // Every acknowledged value is distinct: each increment got its own place in the sequence.
  std::sort(seen.begin(), seen.end());
  for (size_t i = 0; i < seen.size(); ++i) REQUIRE(seen[i] == static_cast<int64_t>(i + 1));
  CHECK(totals.committed >= 1);
  CHECK(totals.committed <= static_cast<uint64_t>(kThreads * kEach));
  CHECK(totals.failed == 0);
  CHECK(totals.increments == static_cast<uint64_t>(kThreads * kEach));  // every increment counted once
  uint64_t timed = 0;
  for (uint64_t n : totals.transaction_buckets) timed += n;
  CHECK(timed == totals.committed);  // each transaction timed once
  CHECK(totals.transaction_nanos > 0);
  std::unique_ptr<CounterStore> reader;
  REQUIRE(CounterStore::Open(uri, &reader).ok());
  int64_t value = 0;
  REQUIRE(reader->Get("gc", &value).ok());
  CHECK(value == kThreads * kEach);
}

namespace {
std::unique_ptr<CounterStore> FreshStore(const TempDir& dir) {
  std::unique_ptr<CounterStore> store;
  REQUIRE(CounterStore::Open(dir.SqliteUri(), &store).ok());
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
    const TempDir dir;
    GroupCommitter committer(FreshStore(dir));
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
  const TempDir dir;
  auto store = FreshStore(dir);
  const std::string uri = dir.SqliteUri();
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

TEST_CASE("a submitted group is queued up to the limit, the rest refused, and its callback runs once with every answer",
          "[service][store][group-commit]") {
  const TempDir dir;
  auto store = FreshStore(dir);
  const std::string uri = dir.SqliteUri();
  std::unique_ptr<CounterStore> blocker;
  REQUIRE(CounterStore::Open(uri, &blocker).ok());
  REQUIRE(blocker->LockForTest().ok());  // the writer's first batch waits for this lock
  std::atomic<int> callbacks{0};
  std::vector<GroupCommitter::Answer> answers;
  std::mutex mutex;
  auto group_of = [&](int n, const std::string& name) {
    auto group = std::make_unique<GroupCommitter::Group>();
    group->items.resize(static_cast<size_t>(n));
    for (auto& item : group->items) {
      item.name = name;
      item.arrival_ns = NowRealtimeNanos();
    }
    group->done = [&](std::unique_ptr<GroupCommitter::Group> answered) {
      ++callbacks;
      const std::lock_guard<std::mutex> lock(mutex);
      for (const auto& item : answered->items) answers.push_back(item.answer);
    };
    return group;
  };
  {
    GroupCommitter committer(std::move(store));
    committer.set_max_queued(3);
    REQUIRE(committer.Submit("g", "", NowRealtimeNanos(), 0, [](const GroupCommitter::Answer&) {}));
    for (int i = 0; i < 100 && committer.queued() != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    // The writer holds the first one (waiting for the lock): three of five fit, two are refused at once.
    CHECK(committer.SubmitGroup(group_of(5, "g")) == 3);
    CHECK(committer.queued() == 3);
    // A full queue: nothing fits, and the callback has run before SubmitGroup returns.
    CHECK(committer.SubmitGroup(group_of(2, "g")) == 0);
    CHECK(callbacks == 1);
    REQUIRE(blocker->UnlockForTest().ok());
  }  // the destructor commits what is queued
  CHECK(callbacks == 2);
  REQUIRE(answers.size() == 7);
  // The full queue's two first (refused), then the group of five: three counted, two refused.
  CHECK(answers[0].refused);
  CHECK(answers[1].refused);
  std::vector<int64_t> values;
  for (size_t i = 2; i < 5; ++i) {
    CHECK_FALSE(answers[i].refused);
    CHECK(answers[i].status.ok());
    values.push_back(answers[i].value);
  }
  CHECK(answers[5].refused);
  CHECK(answers[6].refused);
  std::sort(values.begin(), values.end());
  CHECK(values == std::vector<int64_t>{2, 3, 4});  // after the first one's 1
  int64_t value = 0;
  REQUIRE(blocker->Get("g", &value).ok());
  CHECK(value == 4);
}

TEST_CASE("a group larger than one batch is answered once, after its last item commits",
          "[service][store][group-commit]") {
  std::atomic<int> callbacks{0};
  std::vector<int64_t> values;
  const TempDir dir;
  {
    GroupCommitter committer(FreshStore(dir));
    auto group = std::make_unique<GroupCommitter::Group>();
    group->items.resize(1500);  // three batches of at most 512
    for (auto& item : group->items) item.name = "big";
    group->done = [&](std::unique_ptr<GroupCommitter::Group> answered) {
      ++callbacks;
      for (const auto& item : answered->items) {
        if (item.answer.status.ok() && !item.answer.refused && !item.answer.busy) values.push_back(item.answer.value);
      }
    };
    CHECK(committer.SubmitGroup(std::move(group)) == 1500);
    for (int i = 0; i < 500 && callbacks == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(committer.totals().committed >= 3);
    CHECK(committer.totals().increments == 1500);
  }
  CHECK(callbacks == 1);
  REQUIRE(values.size() == 1500);
  for (size_t i = 0; i < values.size(); ++i) CHECK(values[i] == static_cast<int64_t>(i + 1));
}

TEST_CASE("a transaction held up by another connection's lock is logged with the part of it spent waiting",
          "[service][store][group-commit]") {
  const TempDir dir;
  auto store = FreshStore(dir);
  std::unique_ptr<CounterStore> blocker;
  REQUIRE(CounterStore::Open(dir.SqliteUri(), &blocker).ok());
  REQUIRE(blocker->LockForTest().ok());  // another worker's commit, or a checkpoint, as the writer meets it
  std::string text;
  {
    lather::test::CapturedStderr log;
    std::atomic<int> answered{0};
    {
      GroupCommitter committer(std::move(store));
      REQUIRE(committer.Submit("w", "", NowRealtimeNanos(), 0, [&](const GroupCommitter::Answer&) { ++answered; }));
      for (int i = 0; i < 100 && committer.queued() != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      REQUIRE(committer.queued() == 0);  // taken into a transaction: it waits for the lock from here on
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      REQUIRE(blocker->UnlockForTest().ok());
    }
    CHECK(answered == 1);
    text = log.Text();
  }
  INFO(text);
  const size_t at = text.find("store: a transaction of 1 increments took ");
  REQUIRE(at != std::string::npos);
  // The wait is counted by the wait's own schedule (not a clock): some of it, whatever the machine's load.
  const size_t waited = text.find(" ms of it waiting for SQLite's lock", at);
  REQUIRE(waited != std::string::npos);
  const size_t comma = text.rfind(", ", waited);
  REQUIRE(comma != std::string::npos);
  CHECK(std::stol(text.substr(comma + 2, waited - comma - 2)) > 0);
}
