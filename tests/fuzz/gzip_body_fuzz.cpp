// libFuzzer target: the gzip request-body decoder (service/gzip_body) on any bytes, and a round trip:
// the input, gzip-compressed by zlib, must decode back to itself.
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "service/http/gzip_body.h"

namespace {

std::string Compress(std::string_view in) {
  z_stream z{};
  if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&z, in.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string out;
  lather::Gunzip(input, 1 << 20, lather::kMaxGzipRatio, &out);  // any bytes: no crash, bounded output
  if (out.size() > (1 << 20) + 64 * 1024) std::abort();
  std::string round_trip;
  if (lather::Gunzip(Compress(input), 1 << 20, lather::kMaxGzipRatio, &round_trip) != lather::GunzipResult::kOk ||
      round_trip != input) {
    std::abort();
  }
  return 0;
}
