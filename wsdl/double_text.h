// The xsd:double text Lather writes: the fewest digits that read back as the same double, laid out as
// gSOAP's "%.17lG" lays them out (plain for decimal exponents -4..16, else d.dddE+XX; NaN, INF, -INF).
// Shared by gSOAP's custom serializer (lather_double.cpp) and the hand-written sample writer. Pure.
#pragma once

#include <cstddef>

namespace lather {

// Longest text FormatXsdDouble writes, plus room for a terminating NUL.
inline constexpr size_t kXsdDoubleTextBytes = 40;

// Writes the text of `value` to `out` (at least kXsdDoubleTextBytes), NUL-terminated; returns its length.
size_t FormatXsdDouble(double value, char* out);

}  // namespace lather
