// Acknowledged means durable: the service is killed with SIGKILL in the middle of IncCounter traffic,
// restarted on the same SQLite store, and every increment whose answer was received must be there.
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
#include "tests/integration/service_process.h"

using lather::Client;
using lather::ClientOptions;
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

}  // namespace

TEST_CASE("kill -9 during IncCounter traffic loses no acknowledged increment and hands out no value twice",
          "[integration][crash]") {
  const int rounds = 20;
  std::mt19937 random(20261130);
  // Every process of the test is kept until the end: the first one's folder holds the store.
  std::vector<std::unique_ptr<ServiceProcess>> processes;
  processes.push_back(std::make_unique<ServiceProcess>());
  ServiceProcess* service = processes.back().get();
  const std::string store = service->store_uri();
  std::map<std::string, std::set<int64_t>> handed_out;  // every acknowledged value, per name
  std::map<std::string, int64_t> stored;                // the counters after the last restart
  for (int round = 0; round < rounds; ++round) {
    INFO("round " << round);
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

    processes.push_back(std::make_unique<ServiceProcess>(store));
    service = processes.back().get();
    for (int n = 0; n < kNames; ++n) {
      const std::string name = "crash-" + std::to_string(n);
      const std::vector<int64_t>& values = acknowledged[name];
      const int64_t now = ReadCounter(*service, name);
      const int64_t highest = values.empty() ? stored[name] : *std::max_element(values.begin(), values.end());
      INFO(name << ": " << values.size() << " acknowledged this round, highest " << highest << ", stored " << now);
      // Every acknowledged increment is on disk ...
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
