#include "stress/load/request_template.h"

#include <charconv>

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
  constexpr std::string_view kPlaceholder = "${n}";
  size_t pos = 0;
  for (;;) {
    const size_t at = body.find(kPlaceholder, pos);
    t.body_literals_.push_back(body.substr(pos, at == std::string::npos ? std::string::npos : at - pos));
    t.literal_bytes_ += t.body_literals_.back().size();
    if (at == std::string::npos) break;
    pos = at + kPlaceholder.size();
  }
  *out = std::move(t);
  return Status::Ok();
}

size_t RequestTemplate::BodySize(uint64_t n) const {
  return literal_bytes_ + placeholder_count() * DecimalDigits(n);
}

void RequestTemplate::Render(uint64_t n, std::string* out, size_t* head_bytes, size_t* body_bytes) const {
  char digits[24];
  const auto number = std::to_chars(digits, digits + sizeof digits, n);
  const size_t body_size = BodySize(n);
  char length[24];
  const auto length_end = std::to_chars(length, length + sizeof length, body_size);
  const size_t start = out->size();
  out->append(head_);
  out->append(length, length_end.ptr);
  out->append("\r\n\r\n");
  *head_bytes = out->size() - start;
  for (size_t i = 0; i < body_literals_.size(); ++i) {
    if (i > 0) out->append(digits, number.ptr);
    out->append(body_literals_[i]);
  }
  *body_bytes = body_size;
}

}  // namespace lather
