#include "service/operations.h"

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

Status Operations::IncCounter(const std::string& name, const std::string* message_id, int64_t* result) {
  Status s = CheckCounterName(name);
  if (!s.ok()) return s;
  if (message_id != nullptr) {
    if (message_id->empty()) return Status::InvalidArgument("wsa:MessageID is empty");
    if (message_id->size() > kMaxMessageIdBytes) {
      return Status::InvalidArgument("wsa:MessageID has " + std::to_string(message_id->size()) + " bytes; at most " +
                                     std::to_string(kMaxMessageIdBytes) + " are allowed");
    }
  }
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
  // -MM-DDThh:mm:ss
  if (p + 15 > t.size() || t[p] != '-' || !Digits(t, p + 1, 2) || t[p + 3] != '-' || !Digits(t, p + 4, 2) ||
      t[p + 6] != 'T' || !Digits(t, p + 7, 2) || t[p + 9] != ':' || !Digits(t, p + 10, 2) ||
      t[p + 12] != ':' || !Digits(t, p + 13, 2)) {
    return false;
  }
  const int month = Number(t, p + 1, 2), day = Number(t, p + 4, 2);
  const int hour = Number(t, p + 7, 2), minute = Number(t, p + 10, 2), second = Number(t, p + 13, 2);
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

}  // namespace lather
