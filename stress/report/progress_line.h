// ProgressLine: the live line lather-stress redraws on a terminal about once a second: a bar and the time
// left (a -d run) or the share of calls done (a -n run), then calls, calls/s, the recent p99, failures and
// cores busy, cut to the terminal's width so that it never wraps (a wrapped line cannot be redrawn in place
// and leaves its tail on screen). Pure functions but TerminalColumns(); thread-safe.
#pragma once

#include <cstdint>
#include <string>

namespace lather {

struct ProgressFigures {
  double seconds = 0;           // of the measured window so far
  double planned_seconds = 0;   // -d; 0 when the run stops after a number of calls
  uint64_t planned_calls = 0;   // -n; 0 for a -d run
  uint64_t ok = 0, failed = 0;  // calls so far
  uint64_t recent_p99_ns = 0;   // p99 of the last second; 0 none
  double client_cores = 0;      // busy in the last second
  double server_cores = -1;     // < 0 unknown
};

// The line, without "\r" or a newline, at most `columns - 1` characters (0: no limit).
std::string ProgressLine(const ProgressFigures& figures, int columns);

// The columns of the terminal on `fd`, or 0 when it is not one or does not say.
int TerminalColumns(int fd);

// What erases the live line on a terminal: a carriage return and "erase to the end of the line".
inline constexpr char kEraseLine[] = "\r\x1b[K";

}  // namespace lather
