// lather-stress against the real service: the figures must add up.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "client/soap_client.h"
#include "tests/integration/idle_listener.h"
#include "tests/integration/service_process.h"
#include "tests/integration/stress_run.h"

using lather::test::ReadJson;
using lather::test::RunStress;
using lather::test::ServiceProcess;

namespace {
using Run = lather::test::CommandResult;

}  // namespace

TEST_CASE("an IncCounter run's successful calls equal the counter's value afterwards", "[integration][stress]") {
  ServiceProcess service;
  const std::string json = service.folder() + "/run.json";
  const Run run = RunStress(service.url() + " --op inc-counter --counter adds-up -n 3000 -c 8 -t 2 --json " + json +
                            " --server-pid " + std::to_string(service.pid()));
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto report = ReadJson(json);
  CHECK(report->getValue<std::string>("schema") == "lather-stress/2");
  const auto calls = report->getObject("calls");
  CHECK(calls->getValue<uint64_t>("ok") == 3000);
  CHECK(calls->getValue<uint64_t>("failed") == 0);
  CHECK(calls->getValue<uint64_t>("unanswered_at_end") == 0);  // a run of -n calls waits for every answer

  lather::ClientOptions options;
  options.url = service.url();
  lather::Client client(options);
  int64_t value = 0;
  REQUIRE(client.GetCounter("adds-up", &value).ok());
  CHECK(value == 3000);
  CHECK(report->getObject("cpu")->getValue<double>("server_cores_used") > 0);
  CHECK(report->getObject("verdict")->getValue<std::string>("text").rfind("limit: ", 0) == 0);
}

TEST_CASE("bytes per call match the request and response sizes", "[integration][stress]") {
  ServiceProcess service;
  const std::string json = service.folder() + "/run.json";
  // Call numbers vary in digits, so compare with a fixed operation: HelloWorld.
  const Run run = RunStress(service.url() + " --op hello -n 500 -c 2 -t 1 --json " + json);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto bytes = ReadJson(json)->getObject("bytes");
  const std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\""
      " xmlns:l=\"urn:lather:v1\"><soap:Body><l:HelloWorld/></soap:Body></soap:Envelope>";
  CHECK(bytes->getValue<double>("request_body_per_call") == Approx(body.size()));
  const std::string head = "POST /soap HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(service.port()) +
                           "\r\nContent-Type: text/xml; charset=utf-8\r\nSOAPAction: \"urn:lather:v1#HelloWorld\"\r\n"
                           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  CHECK(bytes->getValue<double>("request_head_per_call") == Approx(head.size()));
  CHECK(bytes->getValue<double>("response_payload_per_call") == Approx(11));  // "Hello World"
  CHECK(bytes->getValue<double>("request_payload_per_call") == Approx(0));
  CHECK(bytes->getValue<double>("response_body_per_call") > 300);
}

TEST_CASE("an open-model run at a modest rate keeps its schedule", "[integration][stress]") {
  ServiceProcess service;
  const std::string json = service.folder() + "/run.json";
  const std::string csv = service.folder() + "/series.csv";
  const Run run = RunStress(service.url() + " -R 500 -d 2s --warmup 0.5s -c 4 -t 1 --arrival poisson --json " + json +
                            " --series " + csv);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto calls = ReadJson(json)->getObject("calls");
  CHECK(calls->getValue<uint64_t>("failed") == 0);
  CHECK(calls->getValue<uint64_t>("ok") > 500);   // ~1,000 expected; Poisson spread, not a timing assertion
  CHECK(calls->getValue<uint64_t>("ok") < 2000);
  std::ifstream series(csv);
  std::string header;
  std::getline(series, header);
  CHECK(header.rfind("second,calls_ok,errors,p50_ms,p99_ms", 0) == 0);
}

TEST_CASE("lather-stress with receive stamps times each answer at the kernel's receipt, never after its read",
          "[integration][stress]") {
  ServiceProcess service;
  const std::string with = service.folder() + "/with.json";
  const std::string without = service.folder() + "/without.json";
  Run run = RunStress(service.url() + " -R 400 -d 1s --warmup 0.2s -c 4 -t 1 --receive-stamps --json " + with);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("to the kernel's receipt of the answer") != std::string::npos);
  const auto report = ReadJson(with);
  REQUIRE(report->has("receipt_time"));
  const auto receipt = report->getObject("receipt_time");
  const auto service_time = report->getObject("service_time");
  // Each call's receipt lies between its send and the harness's read of it: a stamp on another clock, or the
  // clocks converted wrongly, would put it outside (0 after clamping, or years).
  // Every answer is timed at its receipt or counted as unstamped (the kernel switches stamping on machine-wide from
  // deferred work: a first answer may come before it is done; the harness then holds it on for its run).
  const uint64_t unstamped = receipt->getValue<uint64_t>("unstamped_answers");
  CHECK(receipt->getValue<uint64_t>("count") + unstamped == report->getObject("calls")->getValue<uint64_t>("ok"));
  CHECK(unstamped < receipt->getValue<uint64_t>("count"));
  CHECK(receipt->getValue<uint64_t>("min_ns") > 0);
  CHECK(receipt->getValue<uint64_t>("max_ns") <= service_time->getValue<uint64_t>("max_ns"));
  CHECK(receipt->getValue<uint64_t>("p50_ns") <= service_time->getValue<uint64_t>("p50_ns"));
  run = RunStress(service.url() + " -R 400 -d 0.5s --warmup 0.2s -c 4 -t 1 --json " + without);
  REQUIRE(run.exit_code == 0);
  CHECK_FALSE(ReadJson(without)->has("receipt_time"));
}

TEST_CASE("a live run's series covers its window: whole seconds, a partial last one, every call in one of them",
          "[integration][stress][series]") {
  ServiceProcess service;
  for (const auto& [duration, lengths] : {std::pair<std::string, std::vector<double>>{"1s", {1}},
                                          std::pair<std::string, std::vector<double>>{"1.5s", {1, 0.5}}}) {
    const std::string json = service.folder() + "/run-" + duration + ".json";
    const Run run = RunStress(service.url() + " -d " + duration + " --warmup 0.2s -c 4 -t 1 -q --json " + json);
    INFO(duration << ": " << run.output);
    REQUIRE(run.exit_code == 0);
    const auto report = ReadJson(json);
    const auto seconds = report->getObject("series")->getArray("seconds");
    REQUIRE(seconds->size() == lengths.size());  // none after the window, for the calls that ended as it closed
    uint64_t ok = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      CHECK(seconds->getObject(static_cast<unsigned>(i))->getValue<double>("seconds") == Approx(lengths[i]));
      ok += seconds->getObject(static_cast<unsigned>(i))->getValue<uint64_t>("calls_ok");
    }
    CHECK(ok == report->getObject("calls")->getValue<uint64_t>("ok"));
  }
}

TEST_CASE("calls still unanswered when a timed run ends are reported as such, neither ok nor failed",
          "[integration][stress]") {
  // A soak's counter check needs them: each may have been served (an IncCounter counted) after the run stopped.
  ServiceProcess service;  // for its folder
  const lather::test::IdleListener silent;
  const std::string json = service.folder() + "/unanswered.json";
  const Run run = RunStress(silent.url() + " -d 1s --warmup 0 -c 3 -t 1 --timeout 30s --no-probe -q --json " + json);
  INFO(run.output);
  const auto calls = ReadJson(json)->getObject("calls");
  CHECK(calls->getValue<uint64_t>("ok") == 0);
  CHECK(calls->getValue<uint64_t>("failed") == 0);
  CHECK(calls->getValue<uint64_t>("unanswered_at_end") == 3);  // one call on each connection, none answered
}

TEST_CASE("a run against a closed port fails at once with one line and exit 3", "[integration][stress]") {
  ServiceProcess service;
  const std::string url = service.url();
  service.Stop();
  const Run run = RunStress(url + " -d 1s");
  CHECK(run.exit_code == 3);
  CHECK(run.output.rfind("lather-stress: cannot connect to 127.0.0.1:", 0) == 0);
  CHECK(std::count(run.output.begin(), run.output.end(), '\n') == 1);
}

TEST_CASE("a wrong expectation is counted as mismatches, never as successes", "[integration][stress]") {
  ServiceProcess service;
  const std::string folder = service.folder();
  {
    std::ofstream body(folder + "/body.xml");
    body << "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:l=\"urn:lather:v1\">"
            "<soap:Body><l:Increment><l:value>${n}</l:value></l:Increment></soap:Body></soap:Envelope>";
  }
  const Run good = RunStress(service.url() + " --body " + folder + "/body.xml -n 200 -c 2 -t 1 --expect "
                             "\"//*[local-name()='result'] = \\$n1\" --max-errors 0 -q");
  INFO(good.output);
  CHECK(good.exit_code == 0);
  const Run bad = RunStress(service.url() + " --body " + folder + "/body.xml -n 200 -c 2 -t 1 --expect "
                            "\"//*[local-name()='result'] = \\$n\" --max-errors 0 --json " + folder + "/bad.json");
  CHECK(bad.exit_code == 1);
  CHECK(bad.output.find("threshold failed: 200 failed calls > --max-errors 0") != std::string::npos);
  const auto calls = ReadJson(folder + "/bad.json")->getObject("calls");
  CHECK(calls->getValue<uint64_t>("ok") == 0);
  CHECK(calls->getObject("failed_by_kind")->getValue<uint64_t>("mismatch") == 200);
}

TEST_CASE("pipelined and typed-client runs also count every increment exactly once", "[integration][stress]") {
  ServiceProcess service;
  const Run pipelined = RunStress(service.url() + " --op inc-counter --counter piped -n 2000 -c 4 -t 2 --pipeline 8 "
                                  "--max-errors 0 -q");
  INFO(pipelined.output);
  CHECK(pipelined.exit_code == 0);
  const Run typed = RunStress(service.url() + " --client gsoap --op inc-counter --counter typed -n 500 -c 4 "
                              "--max-errors 0 -q --soap12");
  INFO(typed.output);
  CHECK(typed.exit_code == 0);
  lather::ClientOptions options;
  options.url = service.url();
  lather::Client client(options);
  int64_t value = 0;
  REQUIRE(client.GetCounter("piped", &value).ok());
  CHECK(value == 2000);
  REQUIRE(client.GetCounter("typed", &value).ok());
  CHECK(value == 500);
}

TEST_CASE("lather-stress refuses bad usage with exit 64 and one line", "[integration][stress][cli]") {
  for (const char* args : {"--bogus", "-c 0", "-d forever", "--client soapui", "--op frobnicate http://127.0.0.1:1/soap",
                           "ftp://x/", "--expect //x", "--client gsoap -R 100 http://127.0.0.1:1/soap",
                           "--client gsoap --receive-stamps http://127.0.0.1:1/soap",
                           "--receive-stamps https://127.0.0.1:1/soap"}) {
    INFO(args);
    const Run run = RunStress(args);
    CHECK(run.exit_code == 64);
    CHECK(std::count(run.output.begin(), run.output.end(), '\n') == 1);
  }
}

TEST_CASE("without --server-pid the server's CPU is read from its /metrics", "[integration][stress][metrics]") {
  ServiceProcess service;
  const std::string json = service.folder() + "/run.json";
  const Run run = RunStress(service.url() + " -n 2000 -c 4 -t 1 --json " + json);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("from /metrics") != std::string::npos);
  const auto cpu = ReadJson(json)->getObject("cpu");
  CHECK(cpu->getValue<std::string>("server_cpu_source") == "/metrics");
  CHECK(cpu->getValue<double>("server_cores_used") > 0);
  CHECK(cpu->getValue<double>("server_cores") >= 1);
}
