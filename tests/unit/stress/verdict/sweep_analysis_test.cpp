// A sweep's decisions: when the closed model stops, where the knee is, which rate the open model tries
// next and the highest rate that met the SLO.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "stress/verdict/sweep_analysis.h"

using lather::ClosedSweepDone;
using lather::HighestMeeting;
using lather::KneeIndex;
using lather::MeetsSlo;
using lather::NextOpenRate;
using lather::SweepStep;

namespace {

SweepStep Step(double load, double rate, double p99 = 0.001, double failed = 0, bool kept = true) {
  SweepStep s;
  s.load = load;
  s.calls_per_second = rate;
  s.p99_seconds = p99;
  s.failed_share = failed;
  s.kept_schedule = kept;
  return s;
}

}  // namespace

TEST_CASE("a closed sweep stops when calls/s stop growing for two steps", "[stress][verdict][sweep]") {
  std::vector<SweepStep> steps = {Step(1, 1000), Step(2, 1900), Step(4, 3500)};
  std::string why;
  CHECK(!ClosedSweepDone(steps, 0, &why));
  steps.push_back(Step(8, 3600));  // +3%: one flat step is not enough
  CHECK(!ClosedSweepDone(steps, 0, &why));
  steps.push_back(Step(16, 3550));
  REQUIRE(ClosedSweepDone(steps, 0, &why));
  CHECK(why.find("stopped growing") != std::string::npos);
  CHECK(why.find("8 and 16 connections") != std::string::npos);
  CHECK(KneeIndex(steps) == 2);  // 3,500 is within 90% of the 3,600 peak
}

TEST_CASE("a closed sweep stops at the SLO and at failures", "[stress][verdict][sweep]") {
  std::string why;
  CHECK(ClosedSweepDone({Step(1, 1000), Step(2, 1900, 0.020)}, 0.010, &why));
  CHECK(why.find("passed the SLO of 10.00 ms") != std::string::npos);
  CHECK(ClosedSweepDone({Step(1, 1000, 0.001, 0.05)}, 0, &why));
  CHECK(why.find("5% of calls failed") != std::string::npos);
}

TEST_CASE("an open sweep doubles while it meets the SLO, then bisects", "[stress][verdict][sweep]") {
  std::vector<SweepStep> steps;
  CHECK(NextOpenRate(steps, 1000, 0.005, 12) == 1000);
  steps.push_back(Step(1000, 1000));
  CHECK(NextOpenRate(steps, 1000, 0.005, 12) == 2000);
  steps.push_back(Step(2000, 2000));
  steps.push_back(Step(4000, 3000, 0.050, 0, false));  // missed: fell behind and p99 over
  CHECK(NextOpenRate(steps, 1000, 0.005, 12) == 3000);
  steps.push_back(Step(3000, 3000, 0.004));
  CHECK(NextOpenRate(steps, 1000, 0.005, 12) == 3500);
  steps.push_back(Step(3500, 3500, 0.009));  // on schedule but over the SLO
  CHECK(!MeetsSlo(steps.back(), 0.005));
  CHECK(NextOpenRate(steps, 1000, 0.005, 12) == 3250);
  steps.push_back(Step(3250, 3250, 0.004));
  CHECK(NextOpenRate(steps, 1000, 0.005, 12) == 3375);  // 3,250 met, 3,500 missed: 7.7% apart
  steps.push_back(Step(3375, 3375, 0.0045));
  CHECK(NextOpenRate(steps, 1000, 0.005, 12) == 0);  // bracketed within 5%
  CHECK(HighestMeeting(steps, 0.005) == 6);
  CHECK(NextOpenRate(steps, 1000, 0.005, 7) == 0);  // and never beyond --max-steps
}

TEST_CASE("an open sweep whose first rate misses halves down", "[stress][verdict][sweep]") {
  std::vector<SweepStep> steps = {Step(1000, 600, 0.2, 0, false)};
  CHECK(NextOpenRate(steps, 1000, 0.005, 12) == 500);
  CHECK(HighestMeeting(steps, 0.005) == -1);
}
