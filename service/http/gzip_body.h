// GzipBody: decodes a request body sent with Content-Encoding: gzip (RFC 1952, several members
// allowed), bounded so that a "gzip bomb" costs at most the message limit: decoding stops as soon
// as the output would pass `max_bytes`, or would grow past `max_ratio` times the encoded size once
// it is over 1 MiB (SOAP messages of identical repeated elements compress about 230:1; a run of
// zeros compresses 1,030:1). Pure function over buffers; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lather {

// Largest accepted ratio of decoded to encoded size (checked once the output is over 1 MiB).
inline constexpr size_t kMaxGzipRatio = 500;

enum class GunzipResult {
  kOk,
  kTooLarge,       // the decoded body would exceed max_bytes
  kTooCompressed,  // the decoded body would exceed max_ratio times the encoded one
  kCorrupt,        // not gzip, a bad checksum, truncated, or bytes after the last member that are not gzip
};

// Decodes `encoded` into *out (replaced). On any result but kOk, *out holds what was decoded so far
// (at most max_bytes + 64 KiB) and must be discarded. `max_ratio` 0 means no ratio limit.
GunzipResult Gunzip(std::string_view encoded, size_t max_bytes, size_t max_ratio, std::string* out);

// The HTTP status for a failed Gunzip (413 too large or too compressed, 400 corrupt; 0 for kOk)
// and, in *reason, the words for the fault; `max_bytes` as given to Gunzip.
int GunzipRejection(GunzipResult result, size_t max_bytes, std::string* reason);

// Encoded bodies up to this size are decoded where they arrive; larger ones on the blocking pool
// when the server defers long bodies there (their decoded size may reach the message limit).
inline constexpr size_t kInlineGzipBytes = 4 * 1024;

// True for the content codings Gunzip decodes ("gzip", "x-gzip", any case).
bool IsGzipCoding(std::string_view coding);

}  // namespace lather
