// Acknowledged means durable: the service is killed with SIGKILL in the middle of IncCounter traffic,
// restarted on the same store (SQLite, and PostgreSQL), and every increment whose answer was received must
// be there. With a wsa:MessageID on every call, re-sending each one after the restart counts exactly once:
// the counter then equals the number of requests, whichever of them the kill cut.
#include <catch2/catch.hpp>

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "client/soap_client.h"
#include "tests/integration/crash_store.h"
#include "tests/integration/service_process.h"

using lather::Client;
using lather::ClientOptions;
using lather::test::CrashStore;
using lather::test::ServiceProcess;

namespace {

constexpr int kNames = 4;
constexpr int kThreadsPerName = 3;

// Drives IncCounter on `name` until a call fails (the service was killed); returns the values acknowledged.
std::vector<int64_t> IncrementUntilKilled(const std::string& url, const std::string& name) {
  ClientOptions options;
  options.url = url;
  options.timeout_seconds = 10;
  Client client(options);
  std::vector<int64_t> acknowledged;
  for (int i = 0; i < 100000; ++i) {  // bounded; the kill comes long before
    int64_t value = 0;
    if (!client.IncCounter(name, &value).ok()) break;
    acknowledged.push_back(value);
  }
  return acknowledged;
}

int64_t ReadCounter(const ServiceProcess& service, const std::string& name) {
  ClientOptions options;
  options.url = service.url();
  Client client(options);
  int64_t value = -1;
  REQUIRE(client.GetCounter(name, &value).ok());
  return value;
}

// Rounds of: IncCounter traffic from kNames x kThreadsPerName clients, SIGKILL at a random moment, restart
// on the same store; after each, the counters hold every acknowledged value and at most the in-flight calls
// more, and no value was handed out twice.
void KillDuringTraffic(CrashStore* store, int rounds) {
  std::mt19937 random(20261130);
  ServiceProcess* service = store->Start();
  std::map<std::string, std::set<int64_t>> handed_out;  // every acknowledged value, per name
  std::map<std::string, int64_t> stored;                // the counters after the last restart
  for (int round = 0; round < rounds; ++round) {
    INFO(store->name() << " round " << round);
    std::mutex mutex;
    std::map<std::string, std::vector<int64_t>> acknowledged;
    std::vector<std::thread> clients;
    for (int n = 0; n < kNames; ++n) {
      for (int t = 0; t < kThreadsPerName; ++t) {
        const std::string name = "crash-" + std::to_string(n);
        clients.emplace_back([&, name, url = service->url()] {
          std::vector<int64_t> values = IncrementUntilKilled(url, name);
          std::lock_guard<std::mutex> lock(mutex);
          auto& all = acknowledged[name];
          all.insert(all.end(), values.begin(), values.end());
        });
      }
    }
    // A random moment, sometimes at the very start of the traffic, mostly in the middle of it.
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(5, 400)(random)));
    REQUIRE(::kill(service->pid(), SIGKILL) == 0);
    for (std::thread& c : clients) c.join();
    CHECK(service->Stop() == -SIGKILL);
    REQUIRE(store->Settle());

    service = store->Start();
    for (int n = 0; n < kNames; ++n) {
      const std::string name = "crash-" + std::to_string(n);
      const std::vector<int64_t>& values = acknowledged[name];
      const int64_t now = ReadCounter(*service, name);
      const int64_t highest = values.empty() ? stored[name] : *std::max_element(values.begin(), values.end());
      INFO(name << ": " << values.size() << " acknowledged this round, highest " << highest << ", stored " << now);
      // Every acknowledged increment is in the store ...
      CHECK(now >= highest);
      // ... and no more than the acknowledged ones plus those in flight when the kill came.
      CHECK(now <= stored[name] + static_cast<int64_t>(values.size()) + kThreadsPerName);
      for (int64_t v : values) CHECK(handed_out[name].insert(v).second);  // no value handed out twice
      stored[name] = now;
    }
  }
  int64_t total = 0;
  for (const auto& [name, values] : handed_out) total += static_cast<int64_t>(values.size());
  CHECK(total > 0);  // the traffic really ran
}

// One client's calls with a fresh wsa:MessageID each, until one fails: what was acknowledged, and the id
// of the call that failed (sent, maybe counted, never answered; empty if none failed).
struct IdentifiedCalls {
  std::vector<std::pair<std::string, int64_t>> acknowledged;
  std::string unanswered;
};

IdentifiedCalls IncrementWithIdsUntilKilled(const std::string& url, const std::string& name,
                                            const std::string& id_prefix) {
  ClientOptions options;
  options.url = url;
  options.timeout_seconds = 10;
  Client client(options);
  IdentifiedCalls calls;
  for (int i = 0; i < 100000; ++i) {  // bounded; the kill comes long before
    const std::string id = id_prefix + std::to_string(i);
    int64_t value = 0;
    if (!client.IncCounter(name, id, &value).ok()) {
      calls.unanswered = id;
      break;
    }
    calls.acknowledged.emplace_back(id, value);
  }
  return calls;
}

// Rounds of: IncCounter traffic with a wsa:MessageID on every call, SIGKILL at a random moment, restart;
// then every call is sent again with its id (as a client that did not get, or did not trust, its answer
// would): an acknowledged one answers its first value, a cut one counts at most once, and the counter
// ends equal to the number of distinct requests.
void KillDuringIdentifiedTraffic(CrashStore* store, int rounds) {
  std::mt19937 random(20261207);
  ServiceProcess* service = store->Start();
  std::map<std::string, int64_t> requests;  // distinct message ids sent so far, per name
  for (int round = 0; round < rounds; ++round) {
    INFO(store->name() << " round " << round);
    std::mutex mutex;
    std::map<std::string, std::vector<IdentifiedCalls>> calls;
    std::vector<std::thread> clients;
    for (int n = 0; n < kNames; ++n) {
      for (int t = 0; t < kThreadsPerName; ++t) {
        const std::string name = "crash-id-" + std::to_string(n);
        const std::string prefix = "urn:crash:" + std::to_string(round) + ":" + std::to_string(n) + ":" +
                                   std::to_string(t) + ":";
        clients.emplace_back([&, name, prefix, url = service->url()] {
          IdentifiedCalls made = IncrementWithIdsUntilKilled(url, name, prefix);
          std::lock_guard<std::mutex> lock(mutex);
          calls[name].push_back(std::move(made));
        });
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(5, 300)(random)));
    REQUIRE(::kill(service->pid(), SIGKILL) == 0);
    for (std::thread& c : clients) c.join();
    CHECK(service->Stop() == -SIGKILL);
    REQUIRE(store->Settle());

    service = store->Start();
    ClientOptions options;
    options.url = service->url();
    Client client(options);
    for (int n = 0; n < kNames; ++n) {
      const std::string name = "crash-id-" + std::to_string(n);
      const int64_t before = requests[name];
      std::set<int64_t> values;  // this round's: distinct, after the former rounds' ones
      size_t acknowledged = 0;
      for (const IdentifiedCalls& made : calls[name]) {
        for (const auto& [id, value] : made.acknowledged) {
          int64_t again = -1;
          REQUIRE(client.IncCounter(name, id, &again).ok());
          CHECK(again == value);  // the first answer, not a new increment
          CHECK(value > before);
          CHECK(values.insert(value).second);
          ++acknowledged;
        }
        if (!made.unanswered.empty()) {
          int64_t again = -1;
          REQUIRE(client.IncCounter(name, made.unanswered, &again).ok());  // counted now, or before the kill
          CHECK(again > before);
          CHECK(values.insert(again).second);
          ++requests[name];
        }
      }
      requests[name] += static_cast<int64_t>(acknowledged);
      const int64_t now = ReadCounter(*service, name);
      INFO(name << ": " << acknowledged << " acknowledged this round, " << requests[name] << " requests so far, counter "
                << now);
      CHECK(now == requests[name]);  // every request counted exactly once
    }
  }
  int64_t total = 0;
  for (const auto& [name, count] : requests) total += count;
  CHECK(total > 0);  // the traffic really ran
}

}  // namespace

TEST_CASE("kill -9 during IncCounter traffic loses no acknowledged increment and hands out no value twice",
          "[integration][crash]") {
  CrashStore store(CrashStore::Kind::kSqlite);
  KillDuringTraffic(&store, 20);
}

TEST_CASE("PostgreSQL: SIGKILL during IncCounter traffic loses no acknowledged increment and hands out no value twice",
          "[postgres][crash]") {
  CrashStore store(CrashStore::Kind::kPostgres);
  KillDuringTraffic(&store, 8);
}

TEST_CASE("kill -9 during IncCounter traffic with a wsa:MessageID on every call: each call sent again after "
          "the restart counts exactly once",
          "[integration][crash][idempotency]") {
  CrashStore store(CrashStore::Kind::kSqlite);
  KillDuringIdentifiedTraffic(&store, 6);
}

TEST_CASE("PostgreSQL: SIGKILL during IncCounter traffic with a wsa:MessageID on every call: each call sent again "
          "after the restart counts exactly once",
          "[postgres][crash][idempotency]") {
  CrashStore store(CrashStore::Kind::kPostgres);
  KillDuringIdentifiedTraffic(&store, 6);
}
