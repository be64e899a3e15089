#include "common/log_limiter.h"

#include <string>

#include "common/log.h"

namespace lather {

bool LogLimiter::Admit(Clock::time_point now, uint64_t* suppressed) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (now - window_start_ >= std::chrono::seconds(1)) {
    window_start_ = now;
    admitted_in_window_ = 0;
  }
  if (admitted_in_window_ >= lines_per_second_) {
    ++suppressed_;
    return false;
  }
  ++admitted_in_window_;
  *suppressed = suppressed_;
  suppressed_ = 0;
  return true;
}

void LogClientCausedLine(std::string_view message) {
  static LogLimiter limiter(50);
  uint64_t suppressed = 0;
  if (!limiter.Admit(LogLimiter::Clock::now(), &suppressed)) return;
  if (suppressed > 0) {
    LogLine(std::to_string(suppressed) + " log lines caused by clients were left out (at most 50 a second are written)");
  }
  LogLine(message);
}

}  // namespace lather
