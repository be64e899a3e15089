// Slow clients: a thousand connections dribbling their head and a thousand stopping halfway through
// their body are all cut off by the header and body deadlines with 408, while a normal client keeps
// being served.
#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client/soap_client.h"
#include "tests/integration/raw_http.h"
#include "tests/integration/service_process.h"

using lather::test::RawConnection;
using lather::test::RawResponse;
using lather::test::ServiceProcess;

TEST_CASE("2,000 slow clients are cut off by the header and body deadlines while others are served",
          "[integration][slow]") {
  constexpr int kSlowHeads = 1000;
  constexpr int kHalfBodies = 1000;
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  if (files.rlim_max < 2 * (kSlowHeads + kHalfBodies) + 200) {
    WARN("skipped: the descriptor limit (" << files.rlim_max << ") is too low for 2,000 connections");
    return;
  }
  files.rlim_cur = files.rlim_max;  // for this process and the service it starts
  REQUIRE(setrlimit(RLIMIT_NOFILE, &files) == 0);
  ServiceProcess service("", {"--header-timeout", "1000", "--body-timeout", "1000"});
  // The normal client's keep-alive connection is open (and used) before the slow ones arrive.
  lather::ClientOptions options;
  options.url = service.url();
  options.timeout_seconds = 10;
  lather::Client client(options);
  int32_t first = 0;
  REQUIRE(client.Increment(1, &first).ok());

  std::vector<std::unique_ptr<RawConnection>> heads, bodies;
  for (int i = 0; i < kSlowHeads; ++i) {
    heads.push_back(std::make_unique<RawConnection>(service.port()));
    REQUIRE(heads.back()->Send("POST /soap HTTP/1.1\r\nHost: x\r\nX-Slow: "));
  }
  for (int i = 0; i < kHalfBodies; ++i) {
    bodies.push_back(std::make_unique<RawConnection>(service.port()));
    REQUIRE(bodies.back()->Send("POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 1000\r\n\r\n" +
                                std::string(500, 'x')));
  }

  // Meanwhile a normal client calls Increment; the slow heads send a byte every 200 ms.
  std::atomic<int> ok{0}, failed{0};
  std::atomic<bool> done{false};
  std::string first_failure;
  std::thread normal([&] {
    while (!done.load()) {
      int32_t result = 0;
      const lather::Status s = client.Increment(41, &result);
      if (s.ok() && result == 42) {
        ++ok;
      } else if (failed++ == 0) {
        first_failure = s.ToString() + " (result " + std::to_string(result) + ")";
      }
    }
  });
  for (int tick = 0; tick < 10; ++tick) {  // 2 s: twice the deadlines
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    for (auto& c : heads) c->Send("x");  // may fail once the service has answered and closed
  }
  done = true;
  normal.join();
  INFO("first failure: " << first_failure << "\nservice log:\n" << service.Log().substr(0, 4000));
  CHECK(failed == 0);
  CHECK(ok > 0);

  int head_408 = 0, body_408 = 0;
  for (auto& c : heads) head_408 += c->Receive().status == 408;
  for (auto& c : bodies) body_408 += c->Receive().status == 408;
  CHECK(head_408 == kSlowHeads);
  CHECK(body_408 == kHalfBodies);
  const std::string metrics =
      lather::test::SendRaw(service.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").body;
  CHECK(metrics.find("\nlather_http_rejections_total{status=\"408\"} 2000\n") != std::string::npos);
}
