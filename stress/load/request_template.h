// RequestTemplate: one HTTP POST precompiled into literal segments around ${n} placeholders, so
// each call renders its own request (a different value per call) with one append per segment
// and no parsing. Immutable after Create(); safe to share between threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "stress/load/target_url.h"

namespace lather {

class RequestTemplate {
 public:
  // `headers` are "Name: value" lines added after Host; `body` may hold ${n} placeholders, replaced
  // by the call number. `keep_alive` false adds "Connection: close". InvalidArgument for a header
  // without a colon or with a line break.
  static Status Create(const TargetUrl& url, const std::vector<std::string>& headers, const std::string& body,
                       bool keep_alive, RequestTemplate* out);

  // Appends the request for call `n` to *out; sets the byte counts of its head and body.
  void Render(uint64_t n, std::string* out, size_t* head_bytes, size_t* body_bytes) const;

  // Body size for call `n` (the placeholders' digits vary).
  size_t BodySize(uint64_t n) const;
  size_t placeholder_count() const { return body_literals_.size() - 1; }

 private:
  std::string head_;                        // request line and headers up to "Content-Length: "
  std::vector<std::string> body_literals_;  // the body split at each ${n}
  size_t literal_bytes_ = 0;
};

// Number of decimal digits of n.
size_t DecimalDigits(uint64_t n);

}  // namespace lather
