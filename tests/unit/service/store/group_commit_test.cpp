#include "service/store/group_commit.h"

#include <catch2/catch.hpp>

#include <atomic>
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
