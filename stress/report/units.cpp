#include "stress/report/units.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace lather {
namespace {

bool SplitNumber(const std::string& text, double* number, std::string* unit) {
  if (text.empty()) return false;
  char* end = nullptr;
  *number = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(*number) || *number < 0) return false;
  *unit = std::string(end);
  for (char& c : *unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return true;
}

}  // namespace

Status ParseDuration(const std::string& text, double* seconds) {
  double number = 0;
  std::string unit;
  if (!SplitNumber(text, &number, &unit)) return Status::InvalidArgument("'" + text + "' is not a duration");
  if (unit.empty() || unit == "s") *seconds = number;
  else if (unit == "ms") *seconds = number / 1e3;
  else if (unit == "us") *seconds = number / 1e6;
  else if (unit == "m" || unit == "min") *seconds = number * 60;
  else if (unit == "h") *seconds = number * 3600;
  else return Status::InvalidArgument("'" + text + "' is not a duration (e.g. 10s, 500ms, 2m)");
  return Status::Ok();
}

Status ParseBitRate(const std::string& text, double* bits_per_second) {
  double number = 0;
  std::string unit;
  if (!SplitNumber(text, &number, &unit) || number == 0) {
    return Status::InvalidArgument("'" + text + "' is not a bit rate (e.g. 100Mbit, 1Gbit)");
  }
  if (unit.size() > 3 && unit.substr(unit.size() - 3) == "bit") unit.resize(unit.size() - 3);
  if (unit.size() > 2 && unit.substr(unit.size() - 2) == "/s") unit.resize(unit.size() - 2);
  double scale;
  if (unit.empty()) scale = 1;
  else if (unit == "k") scale = 1e3;
  else if (unit == "m") scale = 1e6;
  else if (unit == "g") scale = 1e9;
  else if (unit == "t") scale = 1e12;
  else return Status::InvalidArgument("'" + text + "' is not a bit rate (e.g. 100Mbit, 1Gbit)");
  *bits_per_second = number * scale;
  return Status::Ok();
}

std::string WithThousands(double value) {
  if (!std::isfinite(value)) return "-";
  char digits[64];
  std::snprintf(digits, sizeof digits, "%.0f", std::fabs(value));
  std::string s(digits);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return (value < 0 && s != "0" ? "-" : "") + s;
}

std::string FormatNanos(double nanos) {
  char out[32];
  if (nanos < 1e3) std::snprintf(out, sizeof out, "%.0f ns", nanos);
  else if (nanos < 1e6) std::snprintf(out, sizeof out, "%.0f us", nanos / 1e3);
  else if (nanos < 1e9) std::snprintf(out, sizeof out, "%.2f ms", nanos / 1e6);
  else std::snprintf(out, sizeof out, "%.2f s", nanos / 1e9);
  return out;
}

std::string FormatBitRate(double bps) {
  char out[32];
  if (bps < 1e3) std::snprintf(out, sizeof out, "%.0f bit/s", bps);
  else if (bps < 1e6) std::snprintf(out, sizeof out, "%.1f kbit/s", bps / 1e3);
  else if (bps < 1e9) std::snprintf(out, sizeof out, "%.1f Mbit/s", bps / 1e6);
  else std::snprintf(out, sizeof out, "%.2f Gbit/s", bps / 1e9);
  return out;
}

}  // namespace lather
