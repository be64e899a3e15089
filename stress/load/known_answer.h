// KnownAnswer: the bytes of a response body that ResponseChecker's full check (parse, walk, compare)
// passed, kept so that the next answer with the same bytes is judged by a byte comparison instead of a
// second parse. When the expected result depends on the call (Increment: n + 1), the body is kept as the
// text before and after the result's digits, and an answer matches only with the digits of the value
// this call expects in between. The full check depends on nothing but the status, the bytes and that
// value, so a match is an answer the full check passes, with the payload bytes it would count; anything
// else goes to the full check. One per ResponseChecker; not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lather {

class KnownAnswer {
 public:
  // The largest body kept (an Increment's answer is about 400 bytes): larger ones are always parsed.
  static constexpr size_t kMaxBytes = 16 * 1024;
  // Learning stops after this many answers learned (or found unusable) since the last match: answers
  // that differ every time (a timestamp's) then cost no copy per call. A match starts it again.
  static constexpr int kMaxLearnsWithoutMatch = 16;

  // Keeps `body` (as received, before any in-place parse) as the known answer, whose full check counted
  // `payload_bytes`. With `number_at` < size, the `number_size` bytes there are the expected value's
  // decimal digits, which vary per call. Does nothing once learning has stopped or for a body over
  // kMaxBytes.
  void Learn(const char* body, size_t size, size_t number_at, size_t number_size, size_t payload_bytes);
  // Counts an answer that passed but cannot be kept (its digits are not the expected value's plain form).
  void Unusable() { ++learns_without_match_; }

  // True when `body` is the known answer (with `number`'s decimal digits where they vary); then
  // *payload_bytes gets the payload the full check counts. False when nothing is known or the bytes differ.
  bool Matches(const char* body, size_t size, int64_t number, size_t* payload_bytes);

  // Whether a body of `size` bytes would be learned (not too large, learning not stopped).
  bool WouldLearn(size_t size) const {
    return size <= kMaxBytes && learns_without_match_ < kMaxLearnsWithoutMatch;
  }

 private:
  bool known_ = false;
  bool has_number_ = false;       // the digits between before_ and after_ vary with the call
  int learns_without_match_ = 0;  // answers learned or found unusable since the last match
  std::string before_, after_;    // the whole body is before_ when !has_number_
  size_t other_payload_ = 0;      // payload bytes besides the varying digits
};

}  // namespace lather
