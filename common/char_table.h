// CharTable: a byte class as a 256-entry table built at compile time from its predicate, for the scanners on
// a call's hot path (the HTTP head, the Host value, the SOAP fast path's names and attribute values): one
// load per byte where the predicate was a chain of comparisons. Constant data; thread-safe.
#pragma once

#include <array>

namespace lather {

class CharTable {
 public:
  // The class of the bytes for which `in_class(char)` is true (evaluated once per byte value at compile time).
  template <typename Predicate>
  constexpr explicit CharTable(Predicate in_class) : table_{} {
    for (int c = 0; c < 256; ++c) table_[c] = in_class(static_cast<char>(c));
  }

  // True if `c` is in the class.
  constexpr bool operator()(char c) const { return table_[static_cast<unsigned char>(c)]; }

 private:
  std::array<bool, 256> table_;
};

}  // namespace lather
