#include "wsdl/xsd_values.h"

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace lather {

namespace {

bool Digits(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) return false;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

int Number(std::string_view s, size_t pos, size_t n) {
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) v = v * 10 + (s[i] - '0');
  return v;
}

}  // namespace

bool IsXsdDateTime(std::string_view t) {
  size_t p = 0;
  if (p < t.size() && t[p] == '-') ++p;
  size_t year_digits = 0;
  while (p + year_digits < t.size() && t[p + year_digits] >= '0' && t[p + year_digits] <= '9') ++year_digits;
  if (year_digits < 4) return false;
  p += year_digits;
  // -MM-DDThh:mm:ss, checked against a pattern ('0' stands for a digit)
  if (p + 15 > t.size()) return false;
  const char* d = t.data() + p;
  const auto digit = [](char c) { return static_cast<unsigned>(c - '0') <= 9; };
  if (d[0] != '-' || d[3] != '-' || d[6] != 'T' || d[9] != ':' || d[12] != ':' || !digit(d[1]) || !digit(d[2]) ||
      !digit(d[4]) || !digit(d[5]) || !digit(d[7]) || !digit(d[8]) || !digit(d[10]) || !digit(d[11]) ||
      !digit(d[13]) || !digit(d[14])) {
    return false;
  }
  const auto two = [](const char* c) { return (c[0] - '0') * 10 + (c[1] - '0'); };
  const int month = two(d + 1), day = two(d + 4), hour = two(d + 7), minute = two(d + 10), second = two(d + 13);
  if (month < 1 || month > 12 || day < 1 || day > 31 || minute > 59 || second > 59) return false;
  if (hour > 24 || (hour == 24 && (minute != 0 || second != 0))) return false;
  p += 15;
  if (p < t.size() && t[p] == '.') {
    ++p;
    const size_t start = p;
    while (p < t.size() && t[p] >= '0' && t[p] <= '9') ++p;
    if (p == start) return false;
  }
  if (p == t.size()) return true;
  if (t[p] == 'Z') return p + 1 == t.size();
  if ((t[p] == '+' || t[p] == '-') && p + 6 == t.size() && Digits(t, p + 1, 2) && t[p + 3] == ':' &&
      Digits(t, p + 4, 2)) {
    const int oh = Number(t, p + 1, 2), om = Number(t, p + 4, 2);
    return om <= 59 && (oh < 14 || (oh == 14 && om == 0));
  }
  return false;
}

bool ParseXsdUnsignedInt(std::string_view text, uint32_t* value) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  if (i == text.size()) return false;
  uint64_t v = 0;
  for (; i < text.size(); ++i) {
    const unsigned d = static_cast<unsigned char>(text[i]) - '0';
    if (d > 9) return false;
    v = v * 10 + d;
    if (v > 0xFFFFFFFFull) return false;
  }
  if (negative && v != 0) return false;  // "-0" is a nonNegativeInteger, "-1" is not
  *value = static_cast<uint32_t>(v);
  return true;
}

bool ParseXsdInt(std::string_view text, int32_t* value) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  if (i == text.size()) return false;
  const uint64_t limit = negative ? 2147483648ull : 2147483647ull;
  uint64_t v = 0;
  for (; i < text.size(); ++i) {
    const unsigned d = static_cast<unsigned char>(text[i]) - '0';
    if (d > 9) return false;
    v = v * 10 + d;
    if (v > limit) return false;
  }
  *value = negative ? static_cast<int32_t>(-static_cast<int64_t>(v)) : static_cast<int32_t>(v);
  return true;
}

bool ParseXsdDouble(std::string_view text, double* value) {
  if (text.empty()) return false;
  if (text == "INF" || text == "+INF") {
    *value = std::numeric_limits<double>::infinity();
    return true;
  }
  if (text == "-INF") {
    *value = -std::numeric_limits<double>::infinity();
    return true;
  }
  if (text == "NaN") {
    *value = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  // (+|-)? (d+ (. d*)? | . d+) ((e|E) (+|-)? d+)?
  size_t i = 0;
  const bool negative = text[0] == '-';
  if (text[0] == '+' || negative) ++i;
  const size_t number = text[0] == '+' ? 1 : 0;
  size_t mantissa_digits = 0, fraction_digits = 0;
  uint64_t mantissa = 0;  // exact while mantissa_digits <= 15
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    mantissa = mantissa * 10 + static_cast<uint64_t>(text[i++] - '0');
    ++mantissa_digits;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      mantissa = mantissa * 10 + static_cast<uint64_t>(text[i++] - '0');
      ++mantissa_digits;
      ++fraction_digits;
    }
  }
  if (mantissa_digits == 0) return false;
  if (i == text.size() && mantissa_digits <= 15) {
    // Clinger's fast path: the digits (below 2^53) and 10^k (k <= 22) are exact doubles, so one
    // IEEE division rounds correctly, as from_chars would.
    static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const double v = static_cast<double>(mantissa) / kPow10[fraction_digits];
    *value = negative ? -v : v;
    return true;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    const size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == start) return false;
  }
  if (i != text.size()) return false;
  const char* first = text.data() + number;
  const char* last = text.data() + text.size();
  const std::from_chars_result r = std::from_chars(first, last, *value);
  if (r.ec == std::errc() && r.ptr == last) return true;
  if (r.ec != std::errc::result_out_of_range) return false;
  // Beyond the double range: rounds to +-INF or +-0 (as strtod does; XSD 1.1 says the same).
  const std::string copy(first, last);
  *value = std::strtod(copy.c_str(), nullptr);
  return true;
}

bool ParseXsdBoolean(std::string_view text, bool* value) {
  if (text == "true" || text == "1") {
    *value = true;
    return true;
  }
  if (text == "false" || text == "0") {
    *value = false;
    return true;
  }
  return false;
}

}  // namespace lather
