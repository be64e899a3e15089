// One-line log messages to stderr with a UTC timestamp and the program name.
// Thread-safe: each line is written with a single write(2).
#pragma once

#include <string_view>

namespace lather {

// Sets the name printed at the start of each line (e.g. "lather-service").
void SetLogProgramName(std::string_view name);

// Writes "<time> <program>: <message>\n" to stderr.
void LogLine(std::string_view message);

}  // namespace lather
