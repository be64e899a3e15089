#include "stress/cli/start_at.h"

#include <time.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace lather {
namespace {

// A non-negative decimal number of seconds, fraction allowed; false for anything else.
bool Seconds(const std::string& text, double* seconds) {
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])))) return false;
  char* end = nullptr;
  *seconds = std::strtod(text.c_str(), &end);
  return *end == '\0' && std::isfinite(*seconds);
}

// RFC 3339's date-time, e.g. "2024-05-01T12:00:00.250Z" or "...+02:00"; false when it is not one.
bool Rfc3339Time(const std::string& text, int64_t* unix_ns) {
  int year, month, day, hour, minute, second, consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%*1[Tt ]%2d:%2d:%2d%n", &year, &month, &day, &hour, &minute, &second,
                  &consumed) != 6 || consumed != 19) {
    return false;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return false;
  size_t at = 19;
  int64_t nanos = 0;
  if (at < text.size() && text[at] == '.') {
    int64_t scale = 100000000;
    size_t digits = 0;
    for (++at; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at, ++digits) {
      nanos += (text[at] - '0') * scale;
      scale /= 10;
    }
    if (digits == 0) return false;
  }
  int64_t offset_seconds = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at + 6 == text.size() && (text[at] == '+' || text[at] == '-') && text[at + 3] == ':') {
    int oh = 0, om = 0;
    if (std::sscanf(text.c_str() + at + 1, "%2d:%2d", &oh, &om) != 2 || oh > 23 || om > 59) return false;
    offset_seconds = (text[at] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    at += 6;
  } else {
    return false;  // RFC 3339 requires the offset
  }
  if (at != text.size()) return false;
  std::tm fields{};
  fields.tm_year = year - 1900;
  fields.tm_mon = month - 1;
  fields.tm_mday = day;
  fields.tm_hour = hour;
  fields.tm_min = minute;
  fields.tm_sec = second;
  const time_t utc = timegm(&fields);
  *unix_ns = (static_cast<int64_t>(utc) - offset_seconds) * 1000000000 + nanos;
  return true;
}

}  // namespace

Status ParseStartAt(const std::string& text, int64_t now_unix_ns, int64_t* at_unix_ns) {
  double seconds = 0;
  if (!text.empty() && text[0] == '+') {
    if (!Seconds(text.substr(1), &seconds)) return Status::InvalidArgument("'" + text + "' is not +SECONDS");
    *at_unix_ns = now_unix_ns + static_cast<int64_t>(std::llround(seconds * 1e9));
  } else if (Seconds(text, &seconds)) {
    *at_unix_ns = static_cast<int64_t>(std::llround(seconds * 1e9));
  } else if (!Rfc3339Time(text, at_unix_ns)) {
    return Status::InvalidArgument("'" + text +
                                   "' is not a time: give RFC 3339 (2024-05-01T12:00:00Z), Unix seconds or +SECONDS");
  }
  if (*at_unix_ns < now_unix_ns - kMaxStartLateNs) {
    return Status::InvalidArgument("'" + text + "' is " + std::to_string((now_unix_ns - *at_unix_ns) / 1000000000) +
                                   " s in the past");
  }
  if (*at_unix_ns > now_unix_ns + kMaxStartAheadNs) {
    return Status::InvalidArgument("'" + text + "' is more than 24 h away");
  }
  return Status::Ok();
}

void SleepUntilUnixNs(int64_t at_unix_ns) {
  if (at_unix_ns <= 0) return;
  timespec at{};
  at.tv_sec = static_cast<time_t>(at_unix_ns / 1000000000);
  at.tv_nsec = static_cast<long>(at_unix_ns % 1000000000);
  while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, nullptr) == EINTR) {
  }
}

}  // namespace lather
