#include "service/soap/utf16_body.h"

#include "service/http/http_response.h"
#include "wsdl/sample_reader.h"

namespace lather {
namespace {

// In the XML declaration at the start of `xml` (UTF-8 now), encoding="UTF-16..." becomes "UTF-8".
void RewriteDeclaredEncoding(std::string* xml) {
  if (xml->compare(0, 5, "<?xml") != 0) return;
  const size_t end = xml->find("?>");
  if (end == std::string::npos || end > 512) return;
  const size_t at = xml->find("encoding", 5);
  if (at == std::string::npos || at > end) return;
  size_t q = xml->find_first_of("\"'", at);
  if (q == std::string::npos || q > end) return;
  const size_t close = xml->find((*xml)[q], q + 1);
  if (close == std::string::npos || close > end) return;
  xml->replace(q + 1, close - q - 1, "UTF-8");
}

}  // namespace

BodyEncoding DetectBodyEncoding(std::string_view body, std::string_view content_type) {
  if (body.size() >= 2 && body[0] == '<' && body[1] != '\0') return BodyEncoding::kUtf8;  // the fast path
  if (body.size() < 2) return BodyEncoding::kUtf8;
  const auto b0 = static_cast<unsigned char>(body[0]), b1 = static_cast<unsigned char>(body[1]);
  if (b0 == 0xFF && b1 == 0xFE) return BodyEncoding::kUtf16Le;
  if (b0 == 0xFE && b1 == 0xFF) return BodyEncoding::kUtf16Be;
  const bool looks_le = b1 == 0 && b0 != 0, looks_be = b0 == 0 && b1 != 0;
  const std::string_view charset = ContentTypeParameter(content_type, "charset");
  if (EqualsIgnoreCase(charset, "utf-16le")) return BodyEncoding::kUtf16Le;
  if (EqualsIgnoreCase(charset, "utf-16be")) return BodyEncoding::kUtf16Be;
  if (EqualsIgnoreCase(charset, "utf-16")) return looks_le ? BodyEncoding::kUtf16Le : BodyEncoding::kUtf16Be;
  if (looks_le && b0 == '<') return BodyEncoding::kUtf16Le;
  if (looks_be && b1 == '<') return BodyEncoding::kUtf16Be;
  return BodyEncoding::kUtf8;
}

bool Utf16ToUtf8(std::string_view body, bool big_endian, size_t max_bytes, std::string* out, std::string* error) {
  out->clear();
  if (body.size() % 2 != 0) {
    *error = "the request is declared UTF-16 but has an odd number of bytes";
    return false;
  }
  const auto unit = [&](size_t i) -> uint32_t {
    const auto a = static_cast<unsigned char>(body[i]), b = static_cast<unsigned char>(body[i + 1]);
    return big_endian ? (static_cast<uint32_t>(a) << 8 | b) : (static_cast<uint32_t>(b) << 8 | a);
  };
  size_t i = 0;
  if (body.size() >= 2 && unit(0) == 0xFEFF) i = 2;  // the BOM is not content
  out->reserve(body.size() / 2 + 64);
  for (; i < body.size(); i += 2) {
    uint32_t cp = unit(i);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (i + 3 >= body.size() || unit(i + 2) < 0xDC00 || unit(i + 2) > 0xDFFF) {
        *error = "the request is declared UTF-16 but holds an unpaired surrogate at byte " + std::to_string(i);
        out->clear();
        return false;
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (unit(i + 2) - 0xDC00);
      i += 2;
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      *error = "the request is declared UTF-16 but holds an unpaired surrogate at byte " + std::to_string(i);
      out->clear();
      return false;
    }
    AppendUtf8(cp, out);
    if (out->size() > max_bytes) {
      *error = "the request decoded from UTF-16 exceeds the limit of " + std::to_string(max_bytes) + " bytes";
      out->clear();
      return false;
    }
  }
  RewriteDeclaredEncoding(out);
  return true;
}

}  // namespace lather
