// UTF-16 request bodies (WS-I Basic Profile 1.1 R1012: a message is UTF-8 or UTF-16): how a body is encoded,
// from its first bytes and its Content-Type's charset, and its transcoding to UTF-8 once at the boundary, so
// that everything after (limits, the XML pre-scans, gSOAP) reads UTF-8. A UTF-8 body that starts with '<'
// costs two byte comparisons. Stateless functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lather {

enum class BodyEncoding { kUtf8, kUtf16Le, kUtf16Be };

// A byte order mark (FF FE, FE FF) decides; else a charset of utf-16 (le/be, or sniffed from '<' beside a
// zero byte, big-endian by default as RFC 2781 says); else '<' beside a zero byte (XML 1.0 appendix F);
// else UTF-8.
BodyEncoding DetectBodyEncoding(std::string_view body, std::string_view content_type);

// Appends `body` (UTF-16 in the given byte order, an optional BOM first) to `out` as UTF-8, with the XML
// declaration's encoding="UTF-16" rewritten to UTF-8. False, with `error` set and `out` cleared, when the
// body has an odd length, an unpaired surrogate, or its UTF-8 would be longer than `max_bytes`.
bool Utf16ToUtf8(std::string_view body, bool big_endian, size_t max_bytes, std::string* out, std::string* error);

}  // namespace lather
