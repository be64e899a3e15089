// lather-stress compare and sweep against real services: every target runs in every round, the table and
// the JSON hold what the runs measured, and a sweep's steps, knee and SLO search come out of real runs.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "client/soap_client.h"
#include "tests/integration/service_process.h"

using lather::test::ServiceProcess;

namespace {

lather::test::CommandResult RunStress(const std::string& args) {
  return lather::test::RunCommand(lather::test::StressBinary() + " " + args, 180);
}

Poco::JSON::Object::Ptr ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  Poco::JSON::Parser parser;
  return parser.parse(ss.str()).extract<Poco::JSON::Object::Ptr>();
}

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
