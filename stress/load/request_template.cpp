#include "stress/load/request_template.h"

#include <charconv>
#include <cstring>

#include "common/huge_pages.h"

namespace lather {

size_t DecimalDigits(uint64_t n) {
  size_t digits = 1;
  while (n >= 10) {
    n /= 10;
    ++digits;
  }
  return digits;
}

namespace {

// splitmix64's finalizer: a bijection of 64-bit values that spreads neighbours over the whole range.
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

char* RenderUuid(uint64_t seed, uint64_t n, char* out) {
  // The first half is a bijection of the call number (distinct calls, distinct ids), the second drawn from it.
  const uint64_t high = Mix(seed + n * 0x9E3779B97F4A7C15ULL);
  const uint64_t low = Mix(high ^ seed ^ 0xD1B54A32D192ED03ULL);
  unsigned char bytes[16];
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<unsigned char>(high >> (56 - 8 * i));
    bytes[8 + i] = static_cast<unsigned char>(low >> (56 - 8 * i));
  }
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0F) | 0x40);  // version 4 (random)
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3F) | 0x80);  // variant 10 (RFC 4122)
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *out++ = '-';
    *out++ = kHex[bytes[i] >> 4];
    *out++ = kHex[bytes[i] & 0x0F];
  }
  return out;
}

Status RequestTemplate::Create(const TargetUrl& url, const std::vector<std::string>& headers,
                               const std::string& body, bool keep_alive, RequestTemplate* out,
                               uint64_t uuid_seed) {
  RequestTemplate t;
  t.uuid_seed_ = uuid_seed;
  t.head_ = "POST " + url.path + " HTTP/1.1\r\nHost: " + url.host_header + "\r\n";
  for (const std::string& header : headers) {
    if (header.find(':') == std::string::npos || header.find_first_of("\r\n") != std::string::npos) {
      return Status::InvalidArgument("header '" + header + "' is not 'Name: value'");
    }
    t.head_ += header + "\r\n";
  }
  if (!keep_alive) t.head_ += "Connection: close\r\n";
  t.head_ += "Content-Length: ";
  size_t pos = 0;
  for (;;) {
    // The next placeholder: ${n}, ${uuid}, or random(A..B) with A and B integers.
    size_t at = std::string::npos, length = 0;
    Slot slot;
    for (size_t p = body.find_first_of("$r", pos); p != std::string::npos; p = body.find_first_of("$r", p + 1)) {
      if (body.compare(p, 4, "${n}") == 0) {
        at = p;
        length = 4;
        break;
      }
      if (body.compare(p, 7, "${uuid}") == 0) {
        slot.kind = Kind::kUuid;
        at = p;
        length = 7;
        break;
      }
      if (body.compare(p, 7, "random(") != 0) continue;
      const char* first = body.c_str() + p + 7;
      const char* end = body.c_str() + body.size();
      int64_t lo = 0, hi = 0;
      const auto a = std::from_chars(first, end, lo);
      if (a.ec != std::errc() || end - a.ptr < 2 || a.ptr[0] != '.' || a.ptr[1] != '.') continue;
      const auto b = std::from_chars(a.ptr + 2, end, hi);
      if (b.ec != std::errc() || b.ptr == end || *b.ptr != ')') continue;
      if (lo > hi) return Status::InvalidArgument("random(" + std::to_string(lo) + ".." + std::to_string(hi) + "): the low bound is above the high one");
      slot = Slot{Kind::kRandom, lo, hi};
      at = p;
      length = static_cast<size_t>(b.ptr + 1 - (body.c_str() + p));
      break;
    }
    t.body_literals_.push_back(body.substr(pos, at == std::string::npos ? std::string::npos : at - pos));
    t.literal_bytes_ += t.body_literals_.back().size();
    if (at == std::string::npos) break;
    t.slots_.push_back(slot);
    t.any_random_ = t.any_random_ || slot.kind == Kind::kRandom;
    if (slot.kind == Kind::kNumber) ++t.number_slots_;
    if (slot.kind == Kind::kUuid) t.literal_bytes_ += kUuidBytes;
    pos = at + length;
  }
  *out = std::move(t);
  return Status::Ok();
}

char* RequestTemplate::SlotText(size_t i, uint64_t n, char* buffer) const {
  const Slot& slot = slots_[i];
  if (slot.kind == Kind::kNumber) return std::to_chars(buffer, buffer + kTextBytes, n).ptr;
  if (slot.kind == Kind::kUuid) return RenderUuid(uuid_seed_, n, buffer);
  // splitmix64 of (call, slot): a value spread over the range, the same for the same call.
  const uint64_t z = Mix(n * 0x9E3779B97F4A7C15ULL + (i + 1) * 0xBF58476D1CE4E5B9ULL);
  const uint64_t span = static_cast<uint64_t>(slot.hi) - static_cast<uint64_t>(slot.lo) + 1;  // 0: the whole range
  const uint64_t offset = span == 0 ? z : z % span;
  return std::to_chars(buffer, buffer + kTextBytes, static_cast<int64_t>(static_cast<uint64_t>(slot.lo) + offset)).ptr;
}

size_t RequestTemplate::BodySize(uint64_t n) const {
  if (!any_random_) return literal_bytes_ + number_slots_ * DecimalDigits(n);
  size_t size = literal_bytes_;  // with the ${uuid}s
  char buffer[kTextBytes];
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].kind != Kind::kUuid) size += static_cast<size_t>(SlotText(i, n, buffer) - buffer);
  }
  return size;
}

namespace {

char* Copy(char* to, const char* from, size_t size) {
  std::memcpy(to, from, size);
  return to + size;
}

}  // namespace

void RequestTemplate::Render(uint64_t n, std::string* out, size_t* head_bytes, size_t* body_bytes) const {
  char digits[24];
  const size_t digits_size =
      static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, n).ptr - digits);
  const size_t body_size = any_random_ ? BodySize(n) : literal_bytes_ + number_slots_ * digits_size;
  char length[24];
  const size_t length_size =
      static_cast<size_t>(std::to_chars(length, length + sizeof length, body_size).ptr - length);
  const size_t head_size = head_.size() + length_size + 4;
  // One resize, then plain copies: an append per segment checked the capacity and called out each time.
  const size_t start = out->size();
  // A large body (an echo of thousands of samples) in huge pages: faulted in 2 MiB at a time.
  ReserveWithHugePages(out, start + head_size + body_size);
  out->resize(start + head_size + body_size);
  char* p = out->data() + start;
  p = Copy(p, head_.data(), head_.size());
  p = Copy(p, length, length_size);
  p = Copy(p, "\r\n\r\n", 4);
  for (size_t i = 0; i < body_literals_.size(); ++i) {
    if (i > 0 && slots_[i - 1].kind == Kind::kNumber) {
      p = Copy(p, digits, digits_size);
    } else if (i > 0 && slots_[i - 1].kind == Kind::kUuid) {
      p = RenderUuid(uuid_seed_, n, p);
    } else if (i > 0) {
      char value[kTextBytes];
      p = Copy(p, value, static_cast<size_t>(SlotText(i - 1, n, value) - value));
    }
    p = Copy(p, body_literals_[i].data(), body_literals_[i].size());
  }
  *head_bytes = head_size;
  *body_bytes = body_size;
}

}  // namespace lather
