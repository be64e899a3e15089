// The report of `lather-stress sweep`: one row per step (connections, or a target rate), calls/s, latency,
// client and server CPU, the link's share per direction and the verdict's limit; then the knee, why the
// sweep stopped, the highest rate that met the SLO (open model) and the Universal Scalability Law fitted
// to the closed-model curve. Text and JSON. Functions over finished runs; thread-safe.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "stress/report/report.h"
#include "stress/verdict/sweep_analysis.h"
#include "stress/verdict/usl_fit.h"

namespace lather {

inline constexpr char kSweepSchema[] = "lather-stress-sweep/1";

struct SweepResult {
  std::string url;
  bool open_model = false;
  double slo_p99_seconds = 0;   // 0: none
  std::vector<SweepStep> steps;
  std::vector<RunReport> runs;  // one per step
  std::string stop_reason;
  int knee = -1;                // closed model: index into steps
  int highest_meeting = -1;     // open model: the highest rate that met the SLO
  UslFit fit;                   // closed model
};

// Fills knee, highest_meeting and fit from the steps.
void AnalyzeSweep(SweepResult* result);

// A step's figures from its finished run.
SweepStep StepOf(const RunReport& run, double load, bool open_model);

void PrintSweep(const SweepResult& result, std::FILE* out);
std::string SweepJson(const SweepResult& result);

}  // namespace lather
