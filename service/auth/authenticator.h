// Authenticator: checks a user name and password against the password file given to
// lather-service --auth-file, whose lines are `user:HASH`, HASH a crypt(3) string made by a real
// password-hashing library (yescrypt `$y$`, bcrypt `$2b$`, sha512crypt `$6$`; checked with
// libxcrypt). Verify() is slow by design (one hash: milliseconds); IsKnownGood() is the fast path,
// a bounded cache of the (user, password) pairs Verify() accepted, keyed by a SHA-256 with a
// secret random prefix chosen at start (so the cache holds nothing a stolen memory dump could
// test guesses against offline faster than the real hashes). Thread-safe: const methods may be
// called from any thread at once (the cache has its own mutex).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/status.h"

struct evp_md_st;

namespace lather {

// One `user:HASH` line of an auth file.
struct AuthEntry {
  std::string user;
  std::string hash;
  int line = 0;  // 1-based line number in the file
};

// Parses the text of an auth file named `file_name` (for messages) into *entries: `user:HASH` per
// line, '#' comments and blank lines allowed. InvalidArgument "FILE:LINE: reason" for the first
// malformed line (no colon, empty or duplicate user, a user with a blank or control character, a
// HASH that is not a crypt string of a supported, non-legacy method). Checks the syntax only; Load()
// also checks that each hash can be computed.
Status ParseAuthFile(std::string_view text, const std::string& file_name, std::vector<AuthEntry>* entries);

// Splits an HTTP `Authorization: Basic <base64(user:password)>` value (scheme case-insensitive)
// into *user and *password; false if it is not Basic or not valid base64 with a ':'.
bool ParseBasicAuthorization(std::string_view value, std::string* user, std::string* password);

// The value of an `Authorization` header carrying HTTP Basic credentials ("Basic " + base64(user:password)).
std::string BasicAuthorization(std::string_view user, std::string_view password);

// Which operations need credentials when an auth file is given (--auth).
enum class AuthScope {
  kIncCounter,  // only IncCounter, the operation that changes state (default)
  kAll,         // every operation
};

class Authenticator {
 public:
  // Reads and parses `path` (IOError "cannot read FILE: ..." if unreadable; InvalidArgument
  // "FILE:LINE: ..." for a malformed line or a hash that libxcrypt cannot compute) and returns
  // the authenticator in *out.
  static Status Load(const std::string& path, std::unique_ptr<Authenticator>* out);
  // The same from entries already parsed (tests); InvalidArgument as Load for a bad hash.
  static Status FromEntries(std::vector<AuthEntry> entries, const std::string& file_name,
                            std::unique_ptr<Authenticator>* out);

  // True if this (user, password) pair was verified before and is still cached. Fast (one
  // SHA-256 and a hash-table lookup under a mutex); safe on an event loop.
  bool IsKnownGood(std::string_view user, std::string_view password) const;

  // True if `user` is in the file and crypt(password, its hash) equals its hash, compared in
  // constant time. An unknown user costs one hash too (no timing oracle for user names). Slow by
  // design: run it on the blocking pool. Caches a success for IsKnownGood().
  bool Verify(std::string_view user, std::string_view password) const;

  size_t user_count() const { return hashes_.size(); }

 private:
  using Key = std::array<unsigned char, 32>;
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  Authenticator() = default;
  Key CacheKey(std::string_view user, std::string_view password) const;

  static constexpr size_t kMaxCached = 4096;  // pairs; when full, the cache starts over

  std::unordered_map<std::string, std::string> hashes_;  // user -> crypt string
  std::string dummy_hash_;                               // hashed for unknown users
  std::array<unsigned char, 32> cache_secret_{};
  struct MdFree {
    void operator()(evp_md_st* md) const;
  };
  std::unique_ptr<evp_md_st, MdFree> sha256_;  // OpenSSL's EVP_MD for SHA-256
  mutable std::mutex cache_mutex_;
  mutable std::unordered_set<Key, KeyHash> cache_;
};

}  // namespace lather
