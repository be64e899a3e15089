#include "stress/report/hgrm.h"

#include <charconv>
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

// `value` with `decimals` decimals as Java's Formatter writes "%.Nf", which HdrHistogram's text is printed
// with: the shortest decimal that reads back as the double, rounded half up (C's printf rounds the binary
// value instead, so 0.9997802734375 would be 0.999780273437 there and 0.999780273438 in HdrHistogram's).
std::string JavaFixed(double value, int decimals) {
  char buffer[400];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  if (error != std::errc()) return Format("%.*f", decimals, value);
  std::string text(buffer, end);
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) text.erase(0, 1);
  const size_t dot = text.find('.');
  std::string whole = dot == std::string::npos ? text : text.substr(0, dot);
  std::string fraction = dot == std::string::npos ? "" : text.substr(dot + 1);
  const size_t wanted = static_cast<size_t>(decimals);
  if (fraction.size() <= wanted) {
    fraction.append(wanted - fraction.size(), '0');
  } else {
    const bool up = fraction[wanted] >= '5';
    fraction.resize(wanted);
    if (up) {
      std::string digits = whole + fraction;
      size_t i = digits.size();
      while (i > 0 && digits[i - 1] == '9') digits[--i] = '0';
      if (i == 0) {
        digits.insert(0, "1");
      } else {
        ++digits[i - 1];
      }
      whole = digits.substr(0, digits.size() - wanted);
      fraction = digits.substr(digits.size() - wanted);
    }
  }
  return (negative ? "-" : "") + whole + (wanted > 0 ? "." + fraction : "");
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
    const std::string columns = Format("%12s %2s %10" PRIu64, JavaFixed(value, d).c_str(),
                                       JavaFixed(fraction, 12).c_str(), s.total);
    if (s.percentile != 100.0) {
      out += columns + Format(" %14s\n", JavaFixed(1.0 / (1.0 - fraction), 2).c_str());
    } else {
      out += columns + "\n";
    }
  }
  // The exact largest value (as HdrHistogram's JavaScript port prints it; the Java one prints its bucket's top).
  const uint64_t max = h.max();
  out += Format("#[Mean    = %12s, StdDeviation   = %12s]\n", JavaFixed(h.Mean() / ratio, d).c_str(),
                JavaFixed(h.StdDev() / ratio, d).c_str());
  out += Format("#[Max     = %12s, Total count    = %12" PRIu64 "]\n", JavaFixed(static_cast<double>(max) / ratio, d).c_str(),
                h.count());
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
