// A retry is not a second increment: IncCounter requests that carry a WS-Addressing wsa:MessageID,
// sent to the real service as raw envelopes, count once per id (also concurrently, after a restart
// and after kill -9, on SQLite and on PostgreSQL), answer the first value, and are refused when the id
// is reused for another counter; ids expire after --idempotency-window.
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/crash_store.h"
#include "tests/integration/raw_http.h"
#include "tests/integration/service_process.h"

using lather::test::CallBinary;
using lather::test::CrashStore;
using lather::test::ElementText;
using lather::test::RawResponse;
using lather::test::RunCommand;
using lather::test::SendRaw;
using lather::test::ServiceProcess;
using lather::test::SoapPost;

namespace {

constexpr char kWsa[] = "http://www.w3.org/2005/08/addressing";
constexpr char kWsa2004[] = "http://schemas.xmlsoap.org/ws/2004/08/addressing";

// The header block <wsa:MessageID> with `id` (and `attributes` on its start tag).
std::string MessageIdHeader(const std::string& id, const std::string& attributes = "") {
  return "<wsa:MessageID" + attributes + ">" + id + "</wsa:MessageID>";
}

// POSTs operation `operation` (IncCounter or GetCounter) on `name` with `header` blocks.
RawResponse Call(int port, const std::string& operation, const std::string& name, const std::string& header,
                 int version = 1, const std::string& wsa_ns = kWsa) {
  const std::string env =
      version == 2 ? "http://www.w3.org/2003/05/soap-envelope" : "http://schemas.xmlsoap.org/soap/envelope/";
  const std::string body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<s:Envelope xmlns:s=\"" + env +
                           "\" xmlns:l=\"urn:lather:v1\" xmlns:wsa=\"" + wsa_ns + "\"><s:Header>" + header +
                           "</s:Header><s:Body><l:" + operation + "><l:name>" + name +
                           "</l:name></l:" + operation + "></s:Body></s:Envelope>";
  const char* type = version == 2 ? "application/soap+xml; charset=utf-8" : "text/xml; charset=utf-8";
  return SendRaw(port, SoapPost(type, body));
}

// IncCounter on `name` with `header`; the answered value, or -1 (with the response in the log) if it failed.
int64_t Inc(int port, const std::string& name, const std::string& header, int version = 1,
            const std::string& wsa_ns = kWsa) {
  const RawResponse r = Call(port, "IncCounter", name, header, version, wsa_ns);
  INFO(r.status << " " << r.body);
  CHECK(r.status == 200);
  return r.status == 200 ? std::stoll(ElementText(r.body, "result")) : -1;
}

int64_t Get(int port, const std::string& name) {
  const RawResponse r = Call(port, "GetCounter", name, "");
  REQUIRE(r.status == 200);
  return std::stoll(ElementText(r.body, "result"));
}

// An id answered, the service stopped and started again; another id answered just before a SIGKILL: each
// id sent again after the restarts answers its first value and counts nothing.
void RememberedAcrossRestartAndKill(CrashStore* store) {
  ServiceProcess* service = store->Start();
  CHECK(Inc(service->port(), "durable", MessageIdHeader("uuid:before-restart")) == 1);
  CHECK(service->Stop() == 0);

  service = store->Start();
  CHECK(Inc(service->port(), "durable", MessageIdHeader("uuid:before-restart")) == 1);
  CHECK(Inc(service->port(), "durable", MessageIdHeader("uuid:before-kill")) == 2);
  REQUIRE(::kill(service->pid(), SIGKILL) == 0);
  CHECK(service->Stop() == -SIGKILL);
  REQUIRE(store->Settle());

  service = store->Start();
  const int port = service->port();
  CHECK(Inc(port, "durable", MessageIdHeader("uuid:before-kill")) == 2);
  CHECK(Inc(port, "durable", MessageIdHeader("uuid:before-restart")) == 1);
  CHECK(Get(port, "durable") == 2);
}

}  // namespace

TEST_CASE("the same wsa:MessageID twice answers the same value and counts once",
          "[integration][idempotency]") {
  ServiceProcess service;
  const int port = service.port();
  const int64_t first = Inc(port, "visits", MessageIdHeader("uuid:0a1b-1"));
  CHECK(first == 1);
  CHECK(Inc(port, "visits", MessageIdHeader("uuid:0a1b-1")) == first);
  // Also as SOAP 1.2, with mustUnderstand (the header is understood), white space around the id,
  // and in the 2004/08 submission namespace.
  CHECK(Inc(port, "visits", MessageIdHeader(" uuid:0a1b-1\n", " s:mustUnderstand=\"true\""), 2) == first);
  CHECK(Inc(port, "visits", MessageIdHeader("uuid:0a1b-1", " s:mustUnderstand=\"1\"")) == first);
  CHECK(Inc(port, "visits", MessageIdHeader("uuid:0a1b-1"), 1, kWsa2004) == first);
  CHECK(Get(port, "visits") == 1);
  // Different ids are different requests.
  CHECK(Inc(port, "visits", MessageIdHeader("uuid:0a1b-2")) == 2);
  CHECK(Inc(port, "visits", MessageIdHeader("uuid:0a1b-3")) == 3);
  CHECK(Get(port, "visits") == 3);
  // GetCounter ignores the header.
  CHECK(Call(port, "GetCounter", "visits", MessageIdHeader("uuid:0a1b-1")).status == 200);
}

TEST_CASE("without a wsa:MessageID every IncCounter counts", "[integration][idempotency]") {
  ServiceProcess service;
  for (int64_t i = 1; i <= 3; ++i) CHECK(Inc(service.port(), "plain", "") == i);
  // Other WS-Addressing headers do not make a request idempotent.
  CHECK(Inc(service.port(), "plain", "<wsa:Action>urn:lather:v1#IncCounter</wsa:Action>") == 4);
  CHECK(Get(service.port(), "plain") == 4);
}

TEST_CASE("8 threads sending the same wsa:MessageID at once count once and all get the same value",
          "[integration][idempotency]") {
  ServiceProcess service;
  constexpr int kThreads = 8, kRounds = 10;
  for (int round = 0; round < kRounds; ++round) {
    INFO("round " << round);
    std::vector<int64_t> values(kThreads, -2);
    std::vector<std::thread> threads;
    const std::string header = MessageIdHeader("uuid:concurrent-" + std::to_string(round));
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        const RawResponse r = Call(service.port(), "IncCounter", "together", header);
        values[static_cast<size_t>(t)] = r.status == 200 ? std::stoll(ElementText(r.body, "result")) : -1;
      });
    }
    for (auto& t : threads) t.join();
    for (int64_t v : values) CHECK(v == round + 1);
    CHECK(Get(service.port(), "together") == round + 1);
  }
}

TEST_CASE("a wsa:MessageID reused for another counter is a Client or Sender fault and changes nothing",
          "[integration][idempotency]") {
  ServiceProcess service;
  const int port = service.port();
  CHECK(Inc(port, "first", MessageIdHeader("uuid:reused")) == 1);
  const RawResponse r11 = Call(port, "IncCounter", "second", MessageIdHeader("uuid:reused"));
  CHECK(r11.status == 500);
  CHECK(ElementText(r11.body, "faultcode").find("Client") != std::string::npos);
  CHECK(ElementText(r11.body, "faultstring").find("another counter") != std::string::npos);
  const RawResponse r12 = Call(port, "IncCounter", "second", MessageIdHeader("uuid:reused"), 2);
  CHECK(r12.status == 400);
  CHECK(ElementText(r12.body, "Value").find("Sender") != std::string::npos);
  CHECK(Get(port, "first") == 1);
  CHECK(Get(port, "second") == 0);
  // Malformed ids are faults too: empty, over 256 bytes, two of them, an element inside.
  for (const std::string& header :
       {MessageIdHeader(""), MessageIdHeader(std::string(257, 'x')),
        MessageIdHeader("uuid:a") + MessageIdHeader("uuid:b"), MessageIdHeader("<wsa:Nested/>")}) {
    INFO(header.substr(0, 80));
    const RawResponse bad = Call(port, "IncCounter", "second", header);
    CHECK(bad.status == 500);
    CHECK(ElementText(bad.body, "faultcode").find("Client") != std::string::npos);
  }
  CHECK(Inc(port, "second", MessageIdHeader(std::string(256, 'x'))) == 1);
  CHECK(Get(port, "second") == 1);
}

TEST_CASE("a wsa:MessageID is remembered across a restart and a kill -9 after the answer",
          "[integration][idempotency]") {
  CrashStore store(CrashStore::Kind::kSqlite);
  RememberedAcrossRestartAndKill(&store);
}

TEST_CASE("PostgreSQL: a wsa:MessageID is remembered across a restart and a SIGKILL after the answer",
          "[postgres][idempotency]") {
  CrashStore store(CrashStore::Kind::kPostgres);
  RememberedAcrossRestartAndKill(&store);
}

TEST_CASE("a wsa:MessageID older than --idempotency-window counts as a new request",
          "[integration][idempotency]") {
  ServiceProcess service("", {"--idempotency-window", "1"});
  const int port = service.port();
  CHECK(Inc(port, "windowed", MessageIdHeader("uuid:short-lived")) == 1);
  CHECK(Inc(port, "windowed", MessageIdHeader("uuid:short-lived")) == 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // past the 1 s window
  CHECK(Inc(port, "windowed", MessageIdHeader("uuid:short-lived")) == 2);
  CHECK(Get(port, "windowed") == 2);
}

TEST_CASE("with --idempotency-window 0 a wsa:MessageID is ignored and a mustUnderstand one refused",
          "[integration][idempotency]") {
  ServiceProcess service("", {"--idempotency-window", "0"});
  const int port = service.port();
  CHECK(Inc(port, "ignored", MessageIdHeader("uuid:same")) == 1);
  CHECK(Inc(port, "ignored", MessageIdHeader("uuid:same")) == 2);
  const RawResponse r =
      Call(port, "IncCounter", "ignored", MessageIdHeader("uuid:same", " s:mustUnderstand=\"1\""));
  CHECK(r.status == 500);
  CHECK(ElementText(r.body, "faultcode").find("MustUnderstand") != std::string::npos);
  CHECK(Get(port, "ignored") == 2);
}

TEST_CASE("lather-call inc-counter --message-id counts a repeated id once, over SOAP 1.1 and 1.2",
          "[integration][idempotency][cli]") {
  ServiceProcess service;
  const std::string call = CallBinary() + " --url " + service.url();
  CHECK(RunCommand(call + " inc-counter cli --message-id uuid:cli-1").output == "1\n");
  CHECK(RunCommand(call + " inc-counter cli --message-id uuid:cli-1").output == "1\n");
  CHECK(RunCommand(call + " --soap12 inc-counter cli --message-id uuid:cli-1").output == "1\n");
  CHECK(RunCommand(call + " inc-counter cli").output == "2\n");
  const auto reused = RunCommand(call + " inc-counter other --message-id uuid:cli-1");
  CHECK(reused.exit_code == 2);
  CHECK(reused.output.find("fault: SOAP-ENV:Client: wsa:MessageID") == 0);
  // auto: a fresh urn:uuid each time, printed on stderr.
  const auto fresh = RunCommand(call + " inc-counter cli --message-id auto");
  CHECK(fresh.exit_code == 0);
  CHECK(fresh.output.find("message id: urn:uuid:") != std::string::npos);
  CHECK(fresh.output.find("3\n") != std::string::npos);
  CHECK(RunCommand(call + " get-counter cli").output == "3\n");
  CHECK(RunCommand(call + " get-counter cli --message-id x").exit_code == 64);
}
