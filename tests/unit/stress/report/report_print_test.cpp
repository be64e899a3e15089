#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "stress/report/report.h"
#include "synthetic_run.h"

namespace {

std::string Printed(const lather::RunReport& r) {
  std::FILE* f = std::tmpfile();
  lather::PrintReport(r, f);
  std::rewind(f);
  std::string text;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
  std::fclose(f);
  return text;
}

}  // namespace

TEST_CASE("a run where every call failed shows the CPU it measured, not -1 cores", "[stress][report]") {
  lather::RunReport r = lather_test::SyntheticRun({1000}, "host", 1);
  r.load.total.latency.Reset();
  r.load.total.service_time.Reset();
  r.load.total.outcomes[0] = 0;  // every call failed
  lather::Conclude(&r);
  REQUIRE(r.verdict.client_cores_used < 0);
  const std::string text = Printed(r);
  INFO(text);
  CHECK(text.find("client CPU   0.50 of 2 cores (no call succeeded)") != std::string::npos);
  CHECK(text.find("server CPU   0.80 of 2 cores (no call succeeded, from /metrics)") != std::string::npos);
  CHECK(text.find("-1.00") == std::string::npos);
}
