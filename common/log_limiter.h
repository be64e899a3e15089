// LogLimiter: a budget of log lines per second for lines a client can cause (rejections, failed TLS
// handshakes, failed logins), so that a flood of bad requests cannot flood the log: beyond the budget
// lines are counted instead of written, and the next line written says how many were left out.
// Thread-safe (one mutex, taken only for such lines, never on a successful call).
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string_view>

namespace lather {

class LogLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // At most `lines_per_second` lines are admitted in any one-second window (counted from the first
  // line of the window).
  explicit LogLimiter(uint32_t lines_per_second) : lines_per_second_(lines_per_second) {}

  // True if a line at `now` may be written; then *suppressed is the number of lines refused since the
  // last admitted one (to be reported), else it is left alone.
  bool Admit(Clock::time_point now, uint64_t* suppressed);

 private:
  const uint32_t lines_per_second_;
  std::mutex mutex_;
  Clock::time_point window_start_{};
  uint32_t admitted_in_window_ = 0;
  uint64_t suppressed_ = 0;
};

// LogLine() for a line a client can cause: at most 50 such lines a second for the whole process; the
// first line after some were left out is preceded by one saying how many.
void LogClientCausedLine(std::string_view message);

}  // namespace lather
