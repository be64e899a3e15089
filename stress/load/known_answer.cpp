#include "stress/load/known_answer.h"

#include <charconv>
#include <cstring>

namespace lather {

void KnownAnswer::Learn(const char* body, size_t size, size_t number_at, size_t number_size,
                        size_t payload_bytes) {
  if (!WouldLearn(size)) return;
  ++learns_without_match_;
  has_number_ = number_at < size && number_size <= size - number_at && payload_bytes >= number_size;
  if (has_number_) {
    before_.assign(body, number_at);
    after_.assign(body + number_at + number_size, size - number_at - number_size);
    other_payload_ = payload_bytes - number_size;
  } else {
    before_.assign(body, size);
    after_.clear();
    other_payload_ = payload_bytes;
  }
  known_ = true;
}

bool KnownAnswer::Matches(const char* body, size_t size, int64_t number, size_t* payload_bytes) {
  if (!known_) return false;
  if (!has_number_) {
    if (size != before_.size() || std::memcmp(body, before_.data(), size) != 0) return false;
    *payload_bytes = other_payload_;
    learns_without_match_ = 0;
    return true;
  }
  char digits[24];
  const size_t digits_size =
      static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, number).ptr - digits);
  if (size != before_.size() + digits_size + after_.size()) return false;
  if (std::memcmp(body + before_.size(), digits, digits_size) != 0 ||
      std::memcmp(body, before_.data(), before_.size()) != 0 ||
      std::memcmp(body + before_.size() + digits_size, after_.data(), after_.size()) != 0) {
    return false;
  }
  *payload_bytes = other_payload_ + digits_size;
  learns_without_match_ = 0;
  return true;
}

}  // namespace lather
