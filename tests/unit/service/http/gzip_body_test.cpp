#include "service/http/gzip_body.h"

#include <catch2/catch.hpp>
#include <zlib.h>

#include <string>

using lather::Gunzip;
using lather::GunzipResult;

namespace {

// `text` as one gzip member (zlib's deflate with the gzip wrapper, best compression).
std::string Gzip(const std::string& text) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

constexpr size_t kMiB = 1024 * 1024;

}  // namespace

TEST_CASE("a gzip body decodes to what was encoded, also in several members", "[service][gzip]") {
  const std::string message = "<s:Envelope xmlns:s=\"urn:x\"><s:Body>hello</s:Body></s:Envelope>";
  std::string out;
  CHECK(Gunzip(Gzip(message), kMiB, lather::kMaxGzipRatio, &out) == GunzipResult::kOk);
  CHECK(out == message);
  CHECK(Gunzip(Gzip("first ") + Gzip("second"), kMiB, lather::kMaxGzipRatio, &out) == GunzipResult::kOk);
  CHECK(out == "first second");
  // Repetitive SOAP (5,000 identical samples compress about 220:1) is under the ratio limit.
  std::string samples;
  for (int i = 0; i < 5000; ++i) samples += "<l:sample><l:firstname>a</l:firstname><l:zip>1</l:zip><l:isMarried>false</l:isMarried></l:sample>";
  CHECK(Gunzip(Gzip(samples), 64 * kMiB, lather::kMaxGzipRatio, &out) == GunzipResult::kOk);
  CHECK(out == samples);
}

TEST_CASE("a gzip bomb stops at the size limit or the ratio limit, having decoded little more", "[service][gzip][limits]") {
  const std::string bomb = Gzip(std::string(64 * kMiB, '\0'));  // about 65 KB
  std::string out;
  CHECK(Gunzip(bomb, kMiB, 0, &out) == GunzipResult::kTooLarge);
  CHECK(out.size() <= kMiB + 64 * 1024);
  CHECK(Gunzip(bomb, 64 * kMiB, lather::kMaxGzipRatio, &out) == GunzipResult::kTooCompressed);
  CHECK(out.size() <= lather::kMaxGzipRatio * bomb.size() + 64 * 1024);
  CHECK(Gunzip(bomb, 64 * kMiB, 0, &out) == GunzipResult::kOk);  // exactly at the limit, no ratio limit
  CHECK(out.size() == 64 * kMiB);
}

TEST_CASE("bytes that are not gzip, truncated gzip and trailing garbage are corrupt", "[service][gzip]") {
  const std::string good = Gzip("<a>hello</a>");
  std::string out;
  CHECK(Gunzip("x", kMiB, 0, &out) == GunzipResult::kCorrupt);
  CHECK(Gunzip("", kMiB, 0, &out) == GunzipResult::kCorrupt);
  CHECK(Gunzip(good.substr(0, good.size() - 4), kMiB, 0, &out) == GunzipResult::kCorrupt);  // no length trailer
  CHECK(Gunzip(good + "garbage", kMiB, 0, &out) == GunzipResult::kCorrupt);
  std::string flipped = good;
  flipped[flipped.size() - 6] ^= 0x55;  // the CRC-32
  CHECK(Gunzip(flipped, kMiB, 0, &out) == GunzipResult::kCorrupt);
}

TEST_CASE("gzip and x-gzip in any case are the codings decoded", "[service][gzip]") {
  CHECK(lather::IsGzipCoding("gzip"));
  CHECK(lather::IsGzipCoding("GZip"));
  CHECK(lather::IsGzipCoding("x-gzip"));
  CHECK_FALSE(lather::IsGzipCoding("deflate"));
  CHECK_FALSE(lather::IsGzipCoding("br"));
  CHECK_FALSE(lather::IsGzipCoding("gzip, br"));
  CHECK_FALSE(lather::IsGzipCoding(""));
}
