// The verdict's number formats: how counts, estimates, cores, shares, bit rates and durations read in its
// text ("20,300 calls/s", "1.97 of 2 cores", "31 Mbit/s", "1.60 ms"). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lather {

// "1,234,567" for a non-negative integer.
std::string WithSeparators(uint64_t n);

// A non-negative figure: integers with thousands separators from 100 up, else 1 or 2 decimals.
std::string FormatNumber(double value);

// An estimate: rounded to 3 significant digits, then FormatNumber ("20,304.6" -> "20,300").
std::string FormatApprox(double value);

// Cores busy, always with 2 decimals ("1.97").
std::string FormatCores(double cores);

// " core" after a count of exactly 1, " cores" otherwise.
std::string CoresWord(double count);

// A core count: "2" when whole, else 2 decimals ("1.50").
std::string FormatCoreCount(double cores);

// A share 0..1 as a whole percentage; "<1%" for small non-zero shares.
std::string FormatPercent(double share);

// A bit rate in bit/s, kbit/s, Mbit/s or Gbit/s as fits: whole from 10 up, else 1 decimal ("2.5 Gbit/s").
std::string FormatBits(double bits_per_second);

// A duration: "3.1 us", "850 us", "1.60 ms" or "2.00 s".
std::string FormatSeconds(double seconds);

// "12 calls were" / "1 call was".
std::string CallsWere(uint64_t n);

// "a", "a and b", "a, b and c".
std::string JoinAnd(const std::vector<std::string>& items);

}  // namespace lather
