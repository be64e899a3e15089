#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
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

TEST_CASE("the verdict names the byte split as the payload line does: SOAP envelope and HTTP at the sockets",
          "[stress][report][verdict]") {
  const lather::RunReport r = lather_test::SyntheticRun(lather_test::Latencies(10, 2000), "host", 1);
  const std::string text = Printed(r);
  INFO(text);
  // 18 bytes of payload in 372 + 520 at the sockets: 97.98% is the rest; the TCP/IP bytes are not in it.
  CHECK(text.find("envelope and HTTP are 98.0% of the bytes\n") != std::string::npos);
  CHECK(r.verdict.text.find("SOAP envelope and HTTP are 98% of the bytes at the sockets (payload 2%; TCP/IP not "
                            "counted)") != std::string::npos);
  CHECK(r.verdict.text.find("on the wire") == std::string::npos);
  CHECK(r.verdict.text.find("envelope is") == std::string::npos);
}

TEST_CASE("the series CSV gives each second's bytes per second of its real length, and the length",
          "[stress][report][series]") {
  lather::RunReport run = lather_test::SyntheticRun(lather_test::Latencies(9, 2000), "host", 1);
  lather_test::SteadySeries(2.3, 1000, &run);
  run.cpu_per_second.resize(2);
  const std::string path =
      (std::filesystem::temp_directory_path() / ("lather-series-" + std::to_string(::getpid()) + ".csv")).string();
  REQUIRE(lather::WriteSeriesCsv(run, path).ok());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(path);
  CHECK(text.str() ==
        "second,calls_ok,errors,p50_ms,p99_ms,bytes_sent_per_s,bytes_received_per_s,client_cores,server_cores,seconds\n"
        "1,1000,0,1.000,1.000,372000,520000,0.500,0.800,1.000\n"
        "2,1000,0,1.000,1.000,372000,520000,0.500,0.800,1.000\n"
        "3,300,0,1.000,1.000,372000,520000,,,0.300\n");
}
