// A sweep's decisions and findings: when a closed-model sweep over connections stops (calls/s stopped
// growing, p99 passed the SLO, or calls failed), which step is the knee, which rate an open-model sweep tries
// next (doubling until a step misses, then bisection), and the highest rate that met the SLO. Pure
// functions over the steps measured so far; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace lather {

struct SweepStep {
  double load = 0;              // connections (closed model) or the target calls/s (open model)
  double calls_per_second = 0;  // successful calls/s achieved
  double p99_seconds = -1;      // p99 latency (open model: from the schedule); < 0 unknown
  double failed_share = 0;      // failed calls / calls
  bool kept_schedule = true;    // open model: achieved >= 95% of the target and the harness kept its schedule
  std::string limit;            // the verdict's limit at this step
};

// Growth below this (5%) over the best before counts as "calls/s stopped growing".
inline constexpr double kFlatGrowth = 0.05;
// The knee: the lowest load whose calls/s reach this share (90%) of the sweep's peak.
inline constexpr double kKneeShare = 0.90;
// A step with more than this share of failed calls (1%) ends a sweep and misses any SLO.
inline constexpr double kMaxFailedShare = 0.01;

// True when a closed-model sweep should stop after `steps`; `why` says why ("calls/s stopped growing: ...",
// "p99 5.2 ms passed the SLO of 5 ms", "2% of calls failed"). `slo_p99_seconds` <= 0: no SLO.
bool ClosedSweepDone(const std::vector<SweepStep>& steps, double slo_p99_seconds, std::string* why);

// Index of the knee (the lowest load reaching kKneeShare of the peak calls/s); -1 when there are no steps.
int KneeIndex(const std::vector<SweepStep>& steps);

// True when an open-model step met the SLO: the schedule was kept, failures within kMaxFailedShare, p99 <= SLO
// (when one is given).
bool MeetsSlo(const SweepStep& step, double slo_p99_seconds);

// The next target rate of an open-model sweep that started at `start_rate`: doubling while every step meets
// the SLO, then bisecting between the highest rate that met it and the lowest that did not, until they are
// within 5% of each other. 0 when done (or after `max_steps` steps).
double NextOpenRate(const std::vector<SweepStep>& steps, double start_rate, double slo_p99_seconds, int max_steps);

// Index of the step with the highest target rate that met the SLO; -1 when none did.
int HighestMeeting(const std::vector<SweepStep>& steps, double slo_p99_seconds);

}  // namespace lather
