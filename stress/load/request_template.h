// RequestTemplate: one HTTP POST precompiled into literal segments around its placeholders, so each
// call renders its own request (a different value per call) with one append per segment and no
// parsing: ${n} is the call number, random(A..B) an integer in [A, B] drawn from the call number
// (the same call always gets the same value). Immutable after Create(); safe to share between threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "stress/load/target_url.h"

namespace lather {

class RequestTemplate {
 public:
  // `headers` are "Name: value" lines added after Host; `body` may hold ${n} and random(A..B)
  // placeholders. `keep_alive` false adds "Connection: close". InvalidArgument for a header without a
  // colon or with a line break, or a random(A..B) with A > B.
  static Status Create(const TargetUrl& url, const std::vector<std::string>& headers, const std::string& body,
                       bool keep_alive, RequestTemplate* out);

  // Appends the request for call `n` to *out; sets the byte counts of its head and body.
  void Render(uint64_t n, std::string* out, size_t* head_bytes, size_t* body_bytes) const;

  // Body size for call `n` (the placeholders' digits vary).
  size_t BodySize(uint64_t n) const;
  size_t placeholder_count() const { return body_literals_.size() - 1; }

 private:
  struct Slot {          // the placeholder after body_literals_[i]
    bool random = false;  // random(lo..hi); otherwise ${n}
    int64_t lo = 0, hi = 0;
  };
  // The decimal text of slot `i`'s value for call `n` into `buffer` (24 bytes); its end.
  char* SlotText(size_t i, uint64_t n, char* buffer) const;

  std::string head_;                        // request line and headers up to "Content-Length: "
  std::vector<std::string> body_literals_;  // the body split at each placeholder
  std::vector<Slot> slots_;
  bool any_random_ = false;
  size_t literal_bytes_ = 0;
};

// Number of decimal digits of n.
size_t DecimalDigits(uint64_t n);

}  // namespace lather
