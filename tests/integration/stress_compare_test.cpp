// lather-stress compare and sweep against real services: every target runs in every round, the table and
// the JSON hold what the runs measured, and a sweep's steps, knee and SLO search come out of real runs.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "client/soap_client.h"
#include "tests/integration/service_process.h"
#include "tests/integration/stress_run.h"

using lather::test::ReadJson;
using lather::test::RunStress;
using lather::test::ServiceProcess;

namespace {


}  // namespace

TEST_CASE("compare runs every target in every round and reports medians and ratios", "[integration][stress][compare]") {
  ServiceProcess a;
  ServiceProcess b("", {"--engine", "classic"});
  const std::string json = a.folder() + "/compare.json";
  const auto run = RunStress("compare one=" + a.url() + " two=" + b.url() +
                             " --op inc-counter --counter compared -n 400 -c 4 -t 1 --rounds 2 --json " + json +
                             " --server-pid one=" + std::to_string(a.pid()) + " --server-pid two=" + std::to_string(b.pid()));
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("| one | ") != std::string::npos);
  CHECK(run.output.find("| two | ") != std::string::npos);
  CHECK(run.output.find("round 2/2  two") != std::string::npos);
  const auto report = ReadJson(json);
  CHECK(report->getValue<std::string>("schema") == "lather-stress-compare/1");
  const auto targets = report->getArray("targets");
  REQUIRE(targets->size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const auto t = targets->getObject(static_cast<unsigned>(i));
    const auto runs = t->getArray("runs");
    REQUIRE(runs->size() == 2);
    double lo = 1e18, hi = 0;
    for (size_t r = 0; r < 2; ++r) {
      const auto calls = runs->getObject(static_cast<unsigned>(r))->getObject("calls");
      CHECK(calls->getValue<uint64_t>("ok") == 400);
      const double rate = calls->getValue<double>("calls_per_second");
      lo = std::min(lo, rate);
      hi = std::max(hi, rate);
    }
    CHECK(t->getValue<double>("calls_per_second_min") == Approx(lo));
    CHECK(t->getValue<double>("calls_per_second_max") == Approx(hi));
    CHECK(t->getValue<double>("calls_per_second_median") == Approx((lo + hi) / 2));
    CHECK(t->getValue<double>("server_cpu_per_call_seconds") > 0);
  }
  CHECK(targets->getObject(0)->getValue<double>("ratio_to_first") == Approx(1.0));
  // Each target's counter saw exactly its 2 x 400 increments: the rounds did not mix the targets up.
  for (ServiceProcess* s : {&a, &b}) {
    lather::ClientOptions options;
    options.url = s->url();
    lather::Client client(options);
    int64_t value = 0;
    REQUIRE(client.GetCounter("compared", &value).ok());
    CHECK(value == 800);
  }
}

TEST_CASE("compare refuses a target without a name and a PID for no target", "[integration][stress][compare][cli]") {
  auto run = RunStress("compare http://127.0.0.1:1/soap b=http://127.0.0.1:2/soap");
  CHECK(run.exit_code == 64);
  CHECK(run.output.find("is not NAME=URL") != std::string::npos);
  run = RunStress("compare a=http://127.0.0.1:1/soap b=http://127.0.0.1:2/soap --server-pid c=1");
  CHECK(run.exit_code == 64);
  CHECK(run.output.find("no target is named c") != std::string::npos);
  run = RunStress("compare a=http://127.0.0.1:1/soap");
  CHECK(run.exit_code == 64);
}

TEST_CASE("a closed sweep runs its steps and finds a knee and a USL fit", "[integration][stress][sweep]") {
  ServiceProcess service;
  const std::string json = service.folder() + "/sweep.json";
  const auto run = RunStress("sweep " + service.url() + " --steps 1,2,4,8 -d 0.5s --warmup 0.2s --json " + json +
                             " --server-pid " + std::to_string(service.pid()));
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("(knee)") != std::string::npos);
  const auto report = ReadJson(json);
  CHECK(report->getValue<std::string>("schema") == "lather-stress-sweep/1");
  const auto steps = report->getArray("steps");
  REQUIRE(steps->size() == 4);
  double peak = 0;
  for (unsigned i = 0; i < 4; ++i) {
    const auto step = steps->getObject(i);
    CHECK(step->getValue<double>("load") == (1 << i));
    CHECK(step->getObject("run")->getObject("settings")->getValue<int>("connections") == (1 << i));
    peak = std::max(peak, step->getValue<double>("calls_per_second"));
  }
  const int knee = report->getValue<int>("knee_index");
  REQUIRE(knee >= 0);
  CHECK(steps->getObject(static_cast<unsigned>(knee))->getValue<double>("calls_per_second") >= 0.9 * peak);
  CHECK(report->getObject("usl")->getValue<bool>("ok"));
}

TEST_CASE("an open sweep finds the highest rate that meets a generous SLO", "[integration][stress][sweep]") {
  ServiceProcess service;
  const std::string json = service.folder() + "/sweep.json";
  const auto run = RunStress("sweep " + service.url() + " --rates 100,200 -c 4 -d 1s --warmup 0.2s --slo p99=2s --json " + json);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto report = ReadJson(json);
  CHECK(report->getValue<std::string>("model") == "open");
  REQUIRE(report->getArray("steps")->size() == 2);
  // Both modest rates are kept; the highest that met the SLO is the second.
  CHECK(report->getValue<int>("highest_meeting_slo_index") == 1);
  CHECK(run.output.find("the highest rate that met it: 200 calls/s") != std::string::npos);
}

namespace {

// A foreign SOAP server that serializes its calls (tests/topology/one_thread_server.py: one asyncio loop,
// each call holding a lock for 2 ms, so at most ~500 calls/s), on 127.0.0.1; stopped by PID at the end.
class SerializingServer {
 public:
  SerializingServer() {
    char dir_template[] = "/tmp/lather-foreign-XXXXXX";
    if (mkdtemp(dir_template) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = dir_template;
    const std::string port_file = dir_ + "/port";
    pid_ = fork();
    if (pid_ == 0) {
      const std::string script = std::string(LATHER_TESTS_DIR) + "/topology/one_thread_server.py";
      execlp("python3", "python3", script.c_str(), "--listen", "127.0.0.1:0", "--port-file", port_file.c_str(), "--mode",
             "serialize", "--sleep-ms", "2", static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 1500 && port_ == 0; ++i) {  // 15 s at most
      std::ifstream in(port_file);
      if (!(in >> port_)) port_ = 0;
      if (port_ == 0) usleep(10000);
    }
    if (port_ == 0) throw std::runtime_error("the foreign server did not start");
  }
  ~SerializingServer() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    std::filesystem::remove_all(dir_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/soap"; }

 private:
  std::string dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace

TEST_CASE("compare puts a fast and a serializing server in the right order, ratios within their ranges",
          "[integration][stress][compare]") {
  ServiceProcess lather;
  SerializingServer foreign;
  const std::string json = lather.folder() + "/order.json";
  const auto run = RunStress("compare lather=" + lather.url() + " foreign=" + foreign.url() +
                             " --op increment -d 1s --warmup 0.3s -c 4 -t 1 --rounds 2 --no-probe --json " + json);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto targets = ReadJson(json)->getArray("targets");
  REQUIRE(targets->size() == 2);
  const auto a = targets->getObject(0), b = targets->getObject(1);
  const double ratio = b->getValue<double>("ratio_to_first");
  // One lock held 2 ms per call caps the foreign server near 500 calls/s; Lather answers far more.
  CHECK(b->getValue<double>("calls_per_second_median") < 600);
  CHECK(ratio < 0.5);
  CHECK(ratio == Approx(b->getValue<double>("calls_per_second_median") / a->getValue<double>("calls_per_second_median")));
  // The ratio of medians lies within what the rounds' ranges allow.
  CHECK(ratio >= b->getValue<double>("calls_per_second_min") / a->getValue<double>("calls_per_second_max") * 0.999);
  CHECK(ratio <= b->getValue<double>("calls_per_second_max") / a->getValue<double>("calls_per_second_min") * 1.001);
  CHECK(b->getValue<uint64_t>("failed") == 0);
}
