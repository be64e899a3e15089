#include "stress/verdict/verdict_format.h"

#include <cmath>
#include <cstdio>

namespace lather {
namespace {

// printf into a std::string (short results only).
std::string Printf(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

}  // namespace

// "1,234,567" for a non-negative integer.
std::string WithSeparators(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  const size_t first_group = digits.size() % 3 == 0 ? 3 : digits.size() % 3;
  out.append(digits, 0, first_group);
  for (size_t i = first_group; i < digits.size(); i += 3) {
    out += ',';
    out.append(digits, i, 3);
  }
  return out;
}

// A non-negative figure: integers with thousands separators from 100 up, else 1 or 2 decimals.
std::string FormatNumber(double value) {
  if (value < 0) value = 0;
  if (value >= 1e18) return Printf("%.3g", value);
  if (value >= 99.5) return WithSeparators(static_cast<uint64_t>(std::llround(value)));
  if (value >= 9.95) return Printf("%.1f", value);
  return Printf("%.2f", value);
}

// An estimate: rounded to 3 significant digits, then FormatNumber ("20,304.6" -> "20,300").
std::string FormatApprox(double value) {
  if (value <= 0) return FormatNumber(value);
  const double magnitude = std::pow(10.0, std::floor(std::log10(value)) - 2);
  return FormatNumber(std::round(value / magnitude) * magnitude);
}

// Cores busy, always with 2 decimals ("1.97").
std::string FormatCores(double cores) { return Printf("%.2f", cores); }

// " core" after a count of exactly 1, " cores" otherwise.
std::string CoresWord(double count) { return count == 1 ? " core" : " cores"; }

// A core count: "2" when whole, else 2 decimals ("1.50").
std::string FormatCoreCount(double cores) {
  return cores == std::floor(cores) ? Printf("%.0f", cores) : Printf("%.2f", cores);
}

// A share 0..1 as a whole percentage; "<1%" for small non-zero shares.
std::string FormatPercent(double share) {
  if (share > 0 && share < 0.005) return "<1%";
  return Printf("%.0f", share * 100) + "%";
}

// A bit rate in bit/s, kbit/s, Mbit/s or Gbit/s as fits: whole from 10 up, else 1 decimal ("2.5 Gbit/s").
std::string FormatBits(double bits_per_second) {
  static const char* const kUnits[] = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"};
  double value = bits_per_second < 0 ? 0 : bits_per_second;
  size_t unit = 0;
  while (value >= 999.5 && unit + 1 < sizeof(kUnits) / sizeof(kUnits[0])) {
    value /= 1000;
    ++unit;
  }
  std::string number = value >= 9.95 ? Printf("%.0f", value) : Printf("%.1f", value);
  if (number.size() > 2 && number.compare(number.size() - 2, 2, ".0") == 0) number.resize(number.size() - 2);
  return number + " " + kUnits[unit];
}

// A duration: "850 us", "1.60 ms" or "2.00 s".
std::string FormatSeconds(double seconds) {
  if (seconds < 1e-5) return Printf("%.1f", seconds * 1e6) + " us";
  if (seconds < 1e-3) return Printf("%.0f", seconds * 1e6) + " us";
  if (seconds < 1) return Printf("%.2f", seconds * 1e3) + " ms";
  return Printf("%.2f", seconds) + " s";
}

// "12 calls were" / "1 call was".
std::string CallsWere(uint64_t n) { return WithSeparators(n) + (n == 1 ? " call was" : " calls were"); }

// "a", "a and b", "a, b and c".
std::string JoinAnd(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

}  // namespace lather
