// RequestTemplate: one HTTP POST precompiled into literal segments around its placeholders, so each
// call renders its own request (a different value per call) with one append per segment and no
// parsing: ${n} is the call number, random(A..B) an integer in [A, B] drawn from the call number
// (the same call always gets the same value), ${uuid} a UUID in RFC 4122's version-4 form (36
// characters) drawn from the call number and the run's seed: a different one for every call of a run
// and of every other run, spread over the whole range as real clients' random ids are (a wsa:MessageID
// as WCF or CXF sends it). Immutable after Create(); safe to share between threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "stress/load/target_url.h"

namespace lather {

class RequestTemplate {
 public:
  // `headers` are "Name: value" lines added after Host; `body` may hold ${n}, ${uuid} and random(A..B)
  // placeholders; `uuid_seed` makes this run's ${uuid}s (give each run its own). `keep_alive` false adds
  // "Connection: close". InvalidArgument for a header without a colon or with a line break, or a
  // random(A..B) with A > B.
  static Status Create(const TargetUrl& url, const std::vector<std::string>& headers, const std::string& body,
                       bool keep_alive, RequestTemplate* out, uint64_t uuid_seed = 0);

  // Appends the request for call `n` to *out; sets the byte counts of its head and body.
  void Render(uint64_t n, std::string* out, size_t* head_bytes, size_t* body_bytes) const;

  // Body size for call `n` (the placeholders' digits vary).
  size_t BodySize(uint64_t n) const;
  size_t placeholder_count() const { return body_literals_.size() - 1; }

 private:
  enum class Kind : char { kNumber, kRandom, kUuid };
  struct Slot {  // the placeholder after body_literals_[i]
    Kind kind = Kind::kNumber;
    int64_t lo = 0, hi = 0;  // kRandom's range
  };
  // The text of slot `i`'s value for call `n` into `buffer` (kTextBytes); its end.
  static constexpr size_t kTextBytes = 40;
  static constexpr size_t kUuidBytes = 36;
  char* SlotText(size_t i, uint64_t n, char* buffer) const;

  std::string head_;                        // request line and headers up to "Content-Length: "
  std::vector<std::string> body_literals_;  // the body split at each placeholder
  std::vector<Slot> slots_;
  bool any_random_ = false;   // a random(A..B): its length varies with its value
  size_t number_slots_ = 0;   // ${n}s: as long as the call number
  size_t literal_bytes_ = 0;  // the literals and the ${uuid}s (36 bytes each)
  uint64_t uuid_seed_ = 0;
};

// Number of decimal digits of n.
size_t DecimalDigits(uint64_t n);

// Writes call `n`'s UUID for `seed` (36 characters, lower-case hex, version 4, variant 10) to `out`; returns its end.
char* RenderUuid(uint64_t seed, uint64_t n, char* out);

}  // namespace lather
