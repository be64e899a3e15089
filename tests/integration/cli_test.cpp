// lather-service and lather-call as a user runs them: output lines and exit codes.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "tests/integration/raw_http.h"
#include "tests/integration/service_process.h"

using lather::test::CallBinary;
using lather::test::ServiceBinary;
using lather::test::ServiceProcess;

using lather::test::CommandResult;
using lather::test::RunCommand;

TEST_CASE("lather-call prints results, faults with exit 2 and connection errors with exit 3", "[cli]") {
  ServiceProcess service;
  const std::string call = CallBinary() + " --url " + service.url();
  CHECK(RunCommand(call + " increment 41").output == "42\n");
  CHECK(RunCommand(call + " --soap12 increment -1").output == "0\n");
  CHECK(RunCommand(call + " hello").output == "Hello World\n");
  CHECK(RunCommand(call + " inc-counter cli").output == "1\n");
  CHECK(RunCommand(call + " inc-counter cli").output == "2\n");
  CHECK(RunCommand(call + " get-counter cli").output == "2\n");

  const CommandResult fault = RunCommand(call + " increment 2147483647");
  CHECK(fault.exit_code == 2);
  CHECK(fault.output.rfind("fault: SOAP-ENV:Client: ", 0) == 0);
  const CommandResult fault12 = RunCommand(call + " --soap12 increment 2147483647");
  CHECK(fault12.exit_code == 2);
  CHECK(fault12.output.rfind("fault: SOAP-ENV:Sender: ", 0) == 0);

  const CommandResult echo = RunCommand(call + " echo-samples --count 200 --depth 2");
  CHECK(echo.exit_code == 0);
  CHECK(echo.output.find("echoed 200 samples: equal") == 0);

  service.Stop();
  const CommandResult refused = RunCommand(call + " hello");
  CHECK(refused.exit_code == 3);
  CHECK(refused.output.find("lather-call: ") == 0);
  CHECK(std::count(refused.output.begin(), refused.output.end(), '\n') == 1);
}

TEST_CASE("lather-call rejects bad usage with exit 64 and one line", "[cli]") {
  for (const char* args : {"", "frobnicate", "increment", "increment abc", "increment 1 2", "--bogus hello",
                           "--url ftp://x/soap hello", "--url 127.0.0.1:8080/soap hello"}) {
    INFO(args);
    const CommandResult r = RunCommand(CallBinary() + " " + args);
    CHECK(r.exit_code == 64);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
  // An unsupported scheme is named, not looked up as a host.
  const CommandResult ftp = RunCommand(CallBinary() + " --url ftp://x/soap hello");
  CHECK(ftp.output.find("the scheme ftp is not supported (use http:// or https://)") != std::string::npos);
}

TEST_CASE("lather-service refuses a used port, an unwritable store and a bad flag with one line",
          "[cli][service]") {
  ServiceProcess service;
  const std::string used = std::to_string(service.port());
  const CommandResult in_use =
      RunCommand(ServiceBinary() + " --listen 127.0.0.1:" + used + " --store sqlite:" + service.folder() + "/b.db");
  CHECK(in_use.exit_code == 1);
  CHECK(in_use.output.find("cannot listen on 127.0.0.1:" + used + ": Address already in use") != std::string::npos);
  CHECK(std::count(in_use.output.begin(), in_use.output.end(), '\n') == 1);

  const CommandResult unwritable =
      RunCommand(ServiceBinary() + " --listen 127.0.0.1:0 --store sqlite:/proc/lather-denied/x.db");
  CHECK(unwritable.exit_code == 1);
  CHECK(unwritable.output.find("cannot open store") != std::string::npos);

  const CommandResult bad_flag = RunCommand(ServiceBinary() + " --threads many");
  CHECK(bad_flag.exit_code == 64);
  CHECK(bad_flag.output == "lather-service: --threads: 'many' is not a whole number\n");

  const CommandResult bad_listen = RunCommand(ServiceBinary() + " --listen nonsense");
  CHECK(bad_listen.exit_code == 64);
  CHECK(bad_listen.output.find("is not HOST:PORT") != std::string::npos);
}

TEST_CASE("lather-service logs start and stop and exits 0 on SIGTERM", "[cli][service]") {
  ServiceProcess service;
  CHECK(service.Stop() == 0);
  const std::string log = service.Log();
  CHECK(log.find("lather-service: listening on http://127.0.0.1:") != std::string::npos);
  CHECK(log.find("lather-service: stopping on SIGTERM") != std::string::npos);
  CHECK(log.find("lather-service: stopped") != std::string::npos);
}

TEST_CASE("a request in flight when SIGTERM arrives is answered before the service exits",
          "[cli][service][shutdown]") {
  ServiceProcess service;
  lather::test::RawConnection idle(service.port());  // an idle keep-alive connection: closed at stop
  lather::test::RawConnection busy(service.port());
  const std::string body =
      "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:l=\"urn:lather:v1\">"
      "<s:Body><l:IncCounter><l:name>in-flight</l:name></l:IncCounter></s:Body></s:Envelope>";
  const std::string request = lather::test::SoapPost("text/xml", body);
  const size_t half = request.size() - 20;
  REQUIRE(busy.Send(request.substr(0, half)));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the service has read the first half
  REQUIRE(::kill(service.pid(), SIGTERM) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  REQUIRE(busy.Send(request.substr(half)));
  const lather::test::RawResponse r = busy.Receive();
  CHECK(r.status == 200);
  CHECK(lather::test::ElementText(r.body, "result") == "1");
  CHECK(r.Header("connection") == "close");
  CHECK(idle.Receive().closed);
  CHECK(service.Stop() == 0);
}
