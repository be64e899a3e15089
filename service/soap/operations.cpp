#include "service/soap/operations.h"

#include <limits>

namespace lather {

Operations::Operations(std::unique_ptr<CounterBackend> counters) : store_(std::move(counters)) {}

Status Operations::Increment(int32_t value, int32_t* result) const {
  if (value == std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument("Increment: value 2147483647 is the largest xsd:int; value + 1 would overflow");
  }
  *result = value + 1;
  return Status::Ok();
}

namespace {
Status CheckCounterName(const std::string& name) {
  const long chars = Utf8Length(name);
  if (chars < 0) return Status::InvalidArgument("counter name is not valid UTF-8");
  if (chars == 0) return Status::InvalidArgument("counter name is empty (1 to 64 characters)");
  if (static_cast<size_t>(chars) > kMaxCounterNameChars) {
    return Status::InvalidArgument("counter name has " + std::to_string(chars) +
                                   " characters; at most 64 are allowed");
  }
  return Status::Ok();
}
}  // namespace

Status Operations::CheckIncrement(const std::string& name, const std::string* message_id) {
  Status s = CheckCounterName(name);
  if (!s.ok()) return s;
  if (message_id != nullptr) {
    if (message_id->empty()) return Status::InvalidArgument("wsa:MessageID is empty");
    if (message_id->size() > kMaxMessageIdBytes) {
      return Status::InvalidArgument("wsa:MessageID has " + std::to_string(message_id->size()) + " bytes; at most " +
                                     std::to_string(kMaxMessageIdBytes) + " are allowed");
    }
  }
  return Status::Ok();
}

Status Operations::IncCounter(const std::string& name, const std::string* message_id, int64_t* result) {
  Status s = CheckIncrement(name, message_id);
  if (!s.ok()) return s;
  if (!store_) return Status::Unavailable("no counter store is configured");
  return store_->Increment(name, message_id != nullptr ? *message_id : std::string(), result);
}

Status Operations::GetCounter(const std::string& name, int64_t* result) {
  if (!store_) return Status::Unavailable("no counter store is configured");
  return store_->Get(name, result);
}

long Utf8Length(std::string_view text) {
  long count = 0;
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t extra;
    uint32_t cp;
    if (c < 0x80) { extra = 0; cp = c; }
    else if ((c & 0xE0) == 0xC0) { extra = 1; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { extra = 2; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { extra = 3; cp = c & 0x07; }
    else return -1;
    if (i + extra >= text.size() && extra > 0) return -1;  // truncated sequence
    for (size_t k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xC0) != 0x80) return -1;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
    i += extra + 1;
    ++count;
  }
  return count;
}

}  // namespace lather
