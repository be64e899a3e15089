#include "stress/report/progress_line.h"

#include <catch2/catch.hpp>

TEST_CASE("the live line of a -d run shows a bar and the time left", "[stress][report][progress]") {
  lather::ProgressFigures f;
  f.seconds = 5;
  f.planned_seconds = 20;
  f.ok = 50000;
  f.client_cores = 0.5;
  f.server_cores = 1;
  const std::string line = lather::ProgressLine(f, 0);
  CHECK(line.rfind("  [#####...............] 15 s left  5.0 s  50,000 calls  10,000 calls/s", 0) == 0);
  CHECK(line.find("client 0.50 cores, server 1.00") != std::string::npos);
}

TEST_CASE("the live line of a -n run shows the share of calls done", "[stress][report][progress]") {
  lather::ProgressFigures f;
  f.seconds = 2;
  f.planned_calls = 1000;
  f.ok = 450;
  f.failed = 50;
  CHECK(lather::ProgressLine(f, 0).rfind("  [##########..........] 50% of the calls", 0) == 0);
}

TEST_CASE("the live line never reaches the terminal's last column", "[stress][report][progress]") {
  lather::ProgressFigures f;
  f.seconds = 1;
  f.planned_seconds = 10;
  CHECK(lather::ProgressLine(f, 40).size() == 39);
  CHECK(lather::ProgressLine(f, 0).size() > 60);
}
