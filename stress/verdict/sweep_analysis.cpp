#include "stress/verdict/sweep_analysis.h"

#include <algorithm>
#include <cstdio>

#include "stress/verdict/verdict_format.h"

namespace lather {
namespace {

// A step's load as read: whole numbers without decimals ("16 connections").
std::string Load(double load) {
  return load == static_cast<double>(static_cast<uint64_t>(load)) ? WithSeparators(static_cast<uint64_t>(load))
                                                                  : FormatNumber(load);
}

}  // namespace

bool ClosedSweepDone(const std::vector<SweepStep>& steps, double slo, std::string* why) {
  if (steps.empty()) return false;
  const SweepStep& last = steps.back();
  if (last.failed_share > kMaxFailedShare) {
    *why = FormatPercent(last.failed_share) + " of calls failed at " + Load(last.load) + " connections";
    return true;
  }
  if (slo > 0 && last.p99_seconds > slo) {
    *why = "p99 " + FormatSeconds(last.p99_seconds) + " at " + Load(last.load) + " connections passed the SLO of " +
           FormatSeconds(slo);
    return true;
  }
  // Flat: each of the last two steps grew calls/s by less than kFlatGrowth over the best before it.
  if (steps.size() < 3) return false;
  for (size_t i = steps.size() - 2; i < steps.size(); ++i) {
    double best = 0;
    for (size_t j = 0; j < i; ++j) best = std::max(best, steps[j].calls_per_second);
    if (steps[i].calls_per_second > best * (1 + kFlatGrowth)) return false;
  }
  *why = "calls/s stopped growing: " + FormatNumber(steps[steps.size() - 2].calls_per_second) + " and " +
         FormatNumber(last.calls_per_second) + " calls/s at " + Load(steps[steps.size() - 2].load) + " and " +
         Load(last.load) + " connections, less than " + FormatPercent(kFlatGrowth) + " above the best before";
  return true;
}

int KneeIndex(const std::vector<SweepStep>& steps) {
  if (steps.empty()) return -1;
  double peak = 0;
  for (const SweepStep& s : steps) peak = std::max(peak, s.calls_per_second);
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].calls_per_second >= kKneeShare * peak) return static_cast<int>(i);
  }
  return static_cast<int>(steps.size()) - 1;
}

bool MeetsSlo(const SweepStep& step, double slo) {
  return step.kept_schedule && step.failed_share <= kMaxFailedShare && (slo <= 0 || (step.p99_seconds >= 0 && step.p99_seconds <= slo));
}

double NextOpenRate(const std::vector<SweepStep>& steps, double start_rate, double slo, int max_steps) {
  if (steps.empty()) return start_rate;
  if (static_cast<int>(steps.size()) >= max_steps) return 0;
  double met = 0, missed = 0;  // the highest rate that met the SLO, the lowest that did not (0: none)
  for (const SweepStep& s : steps) {
    if (MeetsSlo(s, slo)) {
      met = std::max(met, s.load);
    } else if (missed == 0 || s.load < missed) {
      missed = s.load;
    }
  }
  if (missed == 0) return steps.back().load * 2;
  if (met == 0) {
    // Even the first rate missed: halve down, at most to a hundredth of the start.
    const double lower = missed / 2;
    return lower >= start_rate / 100 ? lower : 0;
  }
  if (missed <= met * 1.05) return 0;
  return (met + missed) / 2;
}

int HighestMeeting(const std::vector<SweepStep>& steps, double slo) {
  int best = -1;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (MeetsSlo(steps[i], slo) && (best < 0 || steps[i].load > steps[static_cast<size_t>(best)].load))
      best = static_cast<int>(i);
  }
  return best;
}

}  // namespace lather
