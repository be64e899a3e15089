#include "wsdl/double_text.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace lather {

size_t FormatXsdDouble(double value, char* out) {
  const char* special = std::isnan(value) ? "NaN" : !std::isinf(value) ? nullptr : value > 0 ? "INF" : "-INF";
  if (special != nullptr) {
    const size_t n = std::strlen(special);
    std::memcpy(out, special, n + 1);
    return n;
  }
  char* const last = out + kXsdDoubleTextBytes - 1;
  std::to_chars_result r = std::to_chars(out, last, value, std::chars_format::scientific);
  const char* e = out;
  while (*e != 'e') ++e;
  int exponent = 0;
  std::from_chars(e + (e[1] == '+' ? 2 : 1), r.ptr, exponent);
  if (exponent >= -4 && exponent < 17) {
    r = std::to_chars(out, last, value, std::chars_format::fixed);
  } else {
    out[e - out] = 'E';
  }
  *r.ptr = '\0';
  return static_cast<size_t>(r.ptr - out);
}

}  // namespace lather
