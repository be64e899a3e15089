#include "stress/report/hgrm.h"

#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <vector>

namespace lather {
namespace {

std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* format, ...) {
  char buffer[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

}  // namespace

// HdrHistogram's PercentileIterator: its incrementIterationLevel() and reachedIterationLevel().
std::vector<PercentileStep> PercentileSteps(const LatencyHistogram& h, int ticks_per_half_distance) {
  std::vector<PercentileStep> steps;
  const uint64_t count = h.count();
  if (count == 0) return steps;
  double level = 0;
  uint64_t total = 0;
  uint64_t last_value = 0;
  bool done = false;
  h.ForEachBucket([&](uint64_t, uint64_t highest, uint64_t n) {
    if (done || n == 0) return;
    total += n;
    last_value = highest;
    while (100.0 * static_cast<double>(total) / static_cast<double>(count) >= level) {
      steps.push_back({highest, level, total});
      const auto halvings = static_cast<int64_t>(std::log(100.0 / (100.0 - level)) / std::log(2.0));
      const auto ticks = static_cast<int64_t>(ticks_per_half_distance) *
                         static_cast<int64_t>(std::pow(2.0, static_cast<double>(halvings + 1)));
      level += 100.0 / static_cast<double>(ticks);
      // Once every value is counted, HdrHistogram's iterator gives one step here and then the last at 100%.
      if (total >= count) {
        done = true;
        break;
      }
    }
  });
  steps.push_back({last_value, 100.0, count});
  return steps;
}

std::string PercentileDistribution(const LatencyHistogram& h, const HgrmOptions& o) {
  const double ratio = o.unit_scaling_ratio;
  const int d = o.decimals;
  std::string out = Format("%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)");
  for (const PercentileStep& s : PercentileSteps(h, o.ticks_per_half_distance)) {
    const double value = static_cast<double>(s.value) / ratio;
    const double fraction = s.percentile / 100.0;
    if (s.percentile != 100.0) {
      out += Format("%12.*f %2.12f %10" PRIu64 " %14.2f\n", d, value, fraction, s.total, 1.0 / (1.0 - fraction));
    } else {
      out += Format("%12.*f %2.12f %10" PRIu64 "\n", d, value, fraction, s.total);
    }
  }
  // The exact largest value (as HdrHistogram's JavaScript port prints it; the Java one prints its bucket's top).
  const uint64_t max = h.max();
  out += Format("#[Mean    = %12.*f, StdDeviation   = %12.*f]\n", d, h.Mean() / ratio, d, h.StdDev() / ratio);
  out += Format("#[Max     = %12.*f, Total count    = %12" PRIu64 "]\n", d, static_cast<double>(max) / ratio, h.count());
  out += Format("#[Buckets = %12d, SubBuckets     = %12d]\n", LatencyHistogram::BucketCount(),
                static_cast<int>(LatencyHistogram::kSubBucketCount));
  return out;
}

Status WriteHgrm(const LatencyHistogram& histogram, const std::string& path) {
  std::ofstream out(path);
  out << PercentileDistribution(histogram);
  out.close();
  if (!out) return Status::IOError("cannot write " + path);
  return Status::Ok();
}

}  // namespace lather
