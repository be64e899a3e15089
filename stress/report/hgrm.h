// Hgrm: a latency histogram as HdrHistogram's percentile distribution text (the ".hgrm" file that
// AbstractHistogram.outputPercentileDistribution prints and HdrHistogram's plotters read): a header,
// one line per percentile step (Value, Percentile, TotalCount, 1/(1-Percentile)), then the Mean /
// StdDeviation, Max / Total count and Buckets / SubBuckets footer. The steps and the values follow
// HdrHistogram's PercentileIterator: from 0% in `ticks_per_half_distance` steps per halving of the
// distance to 100%, each value the highest value of the bucket where the step is reached, and a last
// line at 100%; tests/interop/node/hgrm_interop.js holds the text against HdrHistogram's JavaScript port.
// Numbers are rounded as Java's Formatter rounds them (half up on the shortest decimal), as HdrHistogram's
// are. Differences: the mean is exact (HdrHistogram's is from bucket middles) and Max is the exact largest
// value; Value has 3 decimals by default (HdrHistogram prints as many as its significant digits, 2 for
// this layout). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "stress/measure/latency_histogram.h"

namespace lather {

struct HgrmOptions {
  int ticks_per_half_distance = 5;  // HdrHistogram's default
  double unit_scaling_ratio = 1e6;  // values are divided by this: ns -> ms
  int decimals = 3;                 // of Value, Mean, StdDeviation and Max (HdrHistogram: its significant digits)
};

// One line of the distribution: the highest value of the bucket where the percentile step was reached, the
// step (0..100) and the count of values up to that bucket.
struct PercentileStep {
  uint64_t value = 0;
  double percentile = 0;
  uint64_t total = 0;
};

// HdrHistogram's PercentileIterator over `histogram`: the steps of the distribution, the last at 100%.
// Empty when the histogram is.
std::vector<PercentileStep> PercentileSteps(const LatencyHistogram& histogram, int ticks_per_half_distance = 5);

// The distribution text; an empty histogram gives the header and the footer only.
std::string PercentileDistribution(const LatencyHistogram& histogram, const HgrmOptions& options = HgrmOptions());

// Writes PercentileDistribution() to `path`; IOError naming the path when it cannot.
Status WriteHgrm(const LatencyHistogram& histogram, const std::string& path);

}  // namespace lather
