#include "client/message_id.h"

#include <cstdint>
#include <cstdio>
#include <random>

namespace lather {

std::string NewMessageId() {
  thread_local std::mt19937_64 random{std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32)};
  uint64_t high = random(), low = random();
  high = (high & ~uint64_t{0xF000}) | 0x4000;                    // version 4
  low = (low & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);  // variant 10xx
  char text[48];
  std::snprintf(text, sizeof text, "urn:uuid:%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(high >> 32),
                static_cast<unsigned>((high >> 16) & 0xFFFF), static_cast<unsigned>(high & 0xFFFF),
                static_cast<unsigned>(low >> 48), static_cast<unsigned long long>(low & 0xFFFFFFFFFFFFULL));
  return text;
}

}  // namespace lather
