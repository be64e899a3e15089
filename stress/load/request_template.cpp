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

Status RequestTemplate::Create(const TargetUrl& url, const std::vector<std::string>& headers,
                               const std::string& body, bool keep_alive, RequestTemplate* out) {
  RequestTemplate t;
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
    // The next placeholder: ${n}, or random(A..B) with A and B integers.
    size_t at = std::string::npos, length = 0;
    Slot slot;
    for (size_t p = body.find_first_of("$r", pos); p != std::string::npos; p = body.find_first_of("$r", p + 1)) {
      if (body.compare(p, 4, "${n}") == 0) {
        at = p;
        length = 4;
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
      slot = Slot{true, lo, hi};
      at = p;
      length = static_cast<size_t>(b.ptr + 1 - (body.c_str() + p));
      break;
    }
    t.body_literals_.push_back(body.substr(pos, at == std::string::npos ? std::string::npos : at - pos));
    t.literal_bytes_ += t.body_literals_.back().size();
    if (at == std::string::npos) break;
    t.slots_.push_back(slot);
    t.any_random_ = t.any_random_ || slot.random;
    pos = at + length;
  }
  *out = std::move(t);
  return Status::Ok();
}

char* RequestTemplate::SlotText(size_t i, uint64_t n, char* buffer) const {
  const Slot& slot = slots_[i];
  if (!slot.random) return std::to_chars(buffer, buffer + 24, n).ptr;
  // splitmix64 of (call, slot): a value spread over the range, the same for the same call.
  uint64_t z = n * 0x9E3779B97F4A7C15ULL + (i + 1) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  const uint64_t span = static_cast<uint64_t>(slot.hi) - static_cast<uint64_t>(slot.lo) + 1;  // 0: the whole range
  const uint64_t offset = span == 0 ? z : z % span;
  return std::to_chars(buffer, buffer + 24, static_cast<int64_t>(static_cast<uint64_t>(slot.lo) + offset)).ptr;
}

size_t RequestTemplate::BodySize(uint64_t n) const {
  if (!any_random_) return literal_bytes_ + placeholder_count() * DecimalDigits(n);
  size_t size = literal_bytes_;
  char buffer[24];
  for (size_t i = 0; i < slots_.size(); ++i) size += static_cast<size_t>(SlotText(i, n, buffer) - buffer);
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
  const size_t body_size = any_random_ ? BodySize(n) : literal_bytes_ + placeholder_count() * digits_size;
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
    if (i > 0 && !slots_[i - 1].random) {
      p = Copy(p, digits, digits_size);
    } else if (i > 0) {
      char value[24];
      p = Copy(p, value, static_cast<size_t>(SlotText(i - 1, n, value) - value));
    }
    p = Copy(p, body_literals_[i].data(), body_literals_[i].size());
  }
  *head_bytes = head_size;
  *body_bytes = body_size;
}

}  // namespace lather
