#include "stress/report/progress_line.h"

#include <sys/ioctl.h>

#include <algorithm>
#include <cstdio>

#include "stress/report/units.h"

namespace lather {

std::string ProgressLine(const ProgressFigures& f, int columns) {
  std::string line = "  ";
  double done = -1;
  std::string left;
  char text[64];
  if (f.planned_seconds > 0) {
    done = f.seconds / f.planned_seconds;
    std::snprintf(text, sizeof text, "%.0f s left", std::max(0.0, f.planned_seconds - f.seconds) + 0.499);
    left = text;
  } else if (f.planned_calls > 0) {
    done = static_cast<double>(f.ok + f.failed) / static_cast<double>(f.planned_calls);
    std::snprintf(text, sizeof text, "%.0f%% of the calls", 100 * std::min(1.0, done));
    left = text;
  }
  if (done >= 0) {
    constexpr int kWidth = 20;
    const int filled = static_cast<int>(std::min(1.0, done) * kWidth + 0.5);
    line += "[" + std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(kWidth - filled), '.') +
            "] " + left + "  ";
  }
  std::snprintf(text, sizeof text, "%.1f s  ", f.seconds);
  line += text;
  line += WithThousands(static_cast<double>(f.ok)) + " calls  ";
  line += WithThousands(f.seconds > 0 ? static_cast<double>(f.ok) / f.seconds : 0) + " calls/s  ";
  line += "p99 ~" + (f.recent_p99_ns > 0 ? FormatNanos(static_cast<double>(f.recent_p99_ns)) : std::string("-")) + "  ";
  line += WithThousands(static_cast<double>(f.failed)) + " failed  ";
  std::snprintf(text, sizeof text, "client %.2f cores", f.client_cores);
  line += text;
  if (f.server_cores >= 0) {
    std::snprintf(text, sizeof text, ", server %.2f", f.server_cores);
    line += text;
  }
  if (columns > 1 && line.size() > static_cast<size_t>(columns - 1)) line.resize(static_cast<size_t>(columns - 1));
  return line;
}

int TerminalColumns(int fd) {
  winsize w{};
  if (ioctl(fd, TIOCGWINSZ, &w) != 0) return 0;
  return w.ws_col;
}

}  // namespace lather
