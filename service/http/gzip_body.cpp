#include "service/http/gzip_body.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace lather {
namespace {
constexpr size_t kStep = 64 * 1024;            // output grown by this much per inflate() call
constexpr size_t kRatioFloor = 1024 * 1024;  // the ratio limit applies beyond this output size
}  // namespace

bool IsGzipCoding(std::string_view coding) {
  auto equals = [coding](std::string_view name) {
    return coding.size() == name.size() &&
           std::equal(coding.begin(), coding.end(), name.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == b;
           });
  };
  return equals("gzip") || equals("x-gzip");
}

int GunzipRejection(GunzipResult result, size_t max_bytes, std::string* reason) {
  switch (result) {
    case GunzipResult::kOk:
      return 0;
    case GunzipResult::kTooLarge:
      *reason = "the gzip-decoded message exceeds the limit of " + std::to_string(max_bytes) + " bytes";
      return 413;
    case GunzipResult::kTooCompressed:
      *reason = "the gzip body expands more than " + std::to_string(kMaxGzipRatio) + " times: refused as a gzip bomb";
      return 413;
    case GunzipResult::kCorrupt:
      break;
  }
  *reason = "the gzip body is not valid gzip data (corrupt, truncated or followed by other bytes)";
  return 400;
}

GunzipResult Gunzip(std::string_view encoded, size_t max_bytes, size_t max_ratio, std::string* out) {
  out->clear();
  if (encoded.empty()) return GunzipResult::kCorrupt;
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return GunzipResult::kCorrupt;  // 16: gzip wrapper only
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(encoded.data()));
  z.avail_in = static_cast<uInt>(std::min<size_t>(encoded.size(), UINT32_MAX));
  size_t in_left = encoded.size() - z.avail_in;  // beyond 4 GiB (never: the message limit is below)
  const size_t ratio_limit = max_ratio == 0 ? SIZE_MAX : max_ratio * encoded.size();
  GunzipResult result = GunzipResult::kOk;
  for (;;) {
    const size_t used = out->size();
    if (used > max_bytes) {
      result = GunzipResult::kTooLarge;
      break;
    }
    if (used > kRatioFloor && used > ratio_limit) {
      result = GunzipResult::kTooCompressed;
      break;
    }
    out->resize(used + kStep);
    z.next_out = reinterpret_cast<Bytef*>(out->data() + used);
    z.avail_out = static_cast<uInt>(kStep);
    const int rc = inflate(&z, Z_NO_FLUSH);
    out->resize(used + kStep - z.avail_out);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0 && in_left == 0) break;  // the last member: done
      if (inflateReset(&z) != Z_OK) {              // another member follows
        result = GunzipResult::kCorrupt;
        break;
      }
      continue;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0 && in_left == 0) {  // input ended inside a member
      result = GunzipResult::kCorrupt;
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      result = GunzipResult::kCorrupt;
      break;
    }
    if (z.avail_in == 0 && in_left > 0) {
      const size_t next = std::min<size_t>(in_left, UINT32_MAX);
      z.avail_in = static_cast<uInt>(next);
      in_left -= next;
    }
  }
  inflateEnd(&z);
  if (result == GunzipResult::kOk && out->size() > max_bytes) result = GunzipResult::kTooLarge;
  return result;
}

}  // namespace lather
