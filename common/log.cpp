#include "common/log.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <string>

namespace lather {
namespace {
std::string& ProgramName() {
  static std::string name = "lather";
  return name;
}
}  // namespace

void SetLogProgramName(std::string_view name) { ProgramName() = std::string(name); }

void LogLine(std::string_view message) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[40];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string line;
  line.reserve(message.size() + 64);
  line.append(stamp);
  line.append(".").append(std::to_string(1000 + millis).substr(1)).append("Z ");
  line.append(ProgramName()).append(": ");
  line.append(message);
  line.push_back('\n');
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;  // nowhere left to report a failed write to stderr
}

}  // namespace lather
