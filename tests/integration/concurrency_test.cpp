// Concurrent IncCounter calls over keep-alive connections, and durability across a restart.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include "client/soap_client.h"
#include "tests/integration/service_process.h"

using lather::Client;
using lather::ClientOptions;
using lather::test::ServiceProcess;

TEST_CASE("8 threads x 1,000 IncCounter calls on one name end at exactly 8,000, and survive a restart",
          "[integration][concurrency]") {
  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 1000;
  auto service = std::make_unique<ServiceProcess>();
  const std::string store = service->store_uri();

  std::atomic<int> failures{0};
  std::atomic<int64_t> max_seen{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      ClientOptions options;
      options.url = service->url();
      options.timeout_seconds = 30;
      Client client(options);  // one keep-alive connection per thread
      for (int i = 0; i < kCallsPerThread; ++i) {
        int64_t value = 0;
        if (!client.IncCounter("shared", &value).ok()) {
          ++failures;
          continue;
        }
        int64_t seen = max_seen.load();
        while (value > seen && !max_seen.compare_exchange_weak(seen, value)) {
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(failures == 0);
  CHECK(max_seen == kThreads * kCallsPerThread);

  ClientOptions options;
  options.url = service->url();
  int64_t value = 0;
  {
    Client client(options);
    REQUIRE(client.GetCounter("shared", &value).ok());
    CHECK(value == kThreads * kCallsPerThread);
  }
  REQUIRE(service->Stop() == 0);

  // The same store, a new process: the value is still there and keeps counting.
  ServiceProcess restarted(store);
  options.url = restarted.url();
  Client client(options);
  REQUIRE(client.GetCounter("shared", &value).ok());
  CHECK(value == kThreads * kCallsPerThread);
  REQUIRE(client.IncCounter("shared", &value).ok());
  CHECK(value == kThreads * kCallsPerThread + 1);
  CHECK(restarted.Stop() == 0);
  service.reset();
}
