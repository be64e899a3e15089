// Parsing and printing of the quantities lather-stress talks in: durations, bit rates, counts.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace lather {

// "10s", "500ms", "2m", "1.5s", "250us", or a bare number of seconds. InvalidArgument otherwise.
Status ParseDuration(const std::string& text, double* seconds);

// "100Mbit", "1Gbit", "10gbit", "512kbit", "1e9" (bits/s). InvalidArgument otherwise.
Status ParseBitRate(const std::string& text, double* bits_per_second);

// 1234567.8 -> "1,234,568"
std::string WithThousands(double value);

// Nanoseconds as "850 us", "1.25 ms", "3.2 s".
std::string FormatNanos(double nanos);

// Bits/s as "31.2 Mbit/s".
std::string FormatBitRate(double bits_per_second);

}  // namespace lather
