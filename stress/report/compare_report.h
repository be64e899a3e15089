// The report of `lather-stress compare`: several targets measured in interleaved rounds (A B C A B C ...),
// per target the median and range of calls/s over the rounds, mean and p99 latency, bytes and CPU per call
// and the verdict of its median run, with ratios to the first target; one table, as text and as JSON.
// Functions over finished runs; thread-safe.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "stress/report/report.h"

namespace lather {

inline constexpr char kCompareSchema[] = "lather-stress-compare/1";

struct CompareTarget {
  std::string name;
  std::string url;
  std::vector<RunReport> runs;  // one per round, in round order
};

// What the table shows of one target: medians over its rounds (of the figures known in every round).
struct CompareRow {
  std::string name;
  double calls_per_second = 0, min_calls_per_second = 0, max_calls_per_second = 0;  // median and range
  double mean_latency_seconds = 0, p99_seconds = 0;
  double wire_bytes_per_call = 0;
  double client_cpu_per_call = -1, server_cpu_per_call = -1;  // seconds; -1 unknown
  uint64_t failed = 0;                                        // failed calls over all rounds
  size_t median_run = 0;                                      // the round whose calls/s is the median
  std::string limit;                                          // the median run's verdict limit
  std::string verdict;                                        // and its text
};

CompareRow SummarizeTarget(const CompareTarget& target);

void PrintCompare(const std::vector<CompareTarget>& targets, int rounds, std::FILE* out);
std::string CompareJson(const std::vector<CompareTarget>& targets, int rounds);

}  // namespace lather
