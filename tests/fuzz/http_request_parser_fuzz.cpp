// libFuzzer target: HTTP request framing. The input is fed to HttpRequestParser in pieces (as reads
// would arrive), and every complete request is consumed as a connection would; the parser must never
// read outside the buffer, loop, or accept a body over the limit. A second parser is fed the same pieces
// the way the event and classic connections feed theirs - dropping a chunked body's decoded bytes after each
// read (decoded_prefix, Discard) - and must come to the same requests, bodies and errors.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "service/http/http_request_parser.h"

namespace {

using Result = lather::HttpRequestParser::Result;

// One parser and the buffer its connection holds.
struct Reader {
  explicit Reader(const lather::HttpLimits& limits) : parser(limits) {}
  lather::HttpRequestParser parser;
  std::string buffer;
  bool discards = false;  // drops what is decoded, as the connections do
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const lather::HttpLimits limits = [] {
    lather::HttpLimits l;
    l.max_body_bytes = 64 * 1024;  // small, so that the fuzzer reaches the limit
    return l;
  }();
  if (size == 0) return 0;
  // The first byte picks the read size: the same bytes arrive in different pieces.
  const size_t step = 1 + data[0] % 64;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  Reader keeping(limits), dropping(limits);
  dropping.discards = true;
  size_t fed = 0;
  while (fed < input.size() || !keeping.buffer.empty()) {
    const size_t n = std::min(step, input.size() - fed);
    keeping.buffer.append(input.substr(fed, n));
    dropping.buffer.append(input.substr(fed, n));
    fed += n;
    const Result result = keeping.parser.Parse(keeping.buffer);
    const Result other = dropping.parser.Parse(dropping.buffer);
    if (result != other) __builtin_trap();
    if (result == Result::kError) {
      if (keeping.parser.error_status() != dropping.parser.error_status()) __builtin_trap();
      break;
    }
    if (result == Result::kNeedMore) {
      const size_t decoded = dropping.parser.decoded_prefix();
      if (decoded > dropping.buffer.size()) __builtin_trap();
      dropping.buffer.erase(0, decoded);
      dropping.parser.Discard(decoded);
      if (n == 0) break;  // nothing more will come
      continue;
    }
    const lather::HttpRequest& request = keeping.parser.request();
    const lather::HttpRequest& same = dropping.parser.request();
    if (request.body.size() > limits.max_body_bytes) __builtin_trap();
    if (request.body != same.body || request.method != same.method || request.path != same.path ||
        request.content_type != same.content_type || request.keep_alive != same.keep_alive) {
      __builtin_trap();
    }
    if (keeping.parser.consumed() == 0 || keeping.parser.consumed() > keeping.buffer.size()) __builtin_trap();
    if (dropping.parser.discarded() + dropping.parser.consumed() != keeping.parser.consumed()) __builtin_trap();
    keeping.buffer.erase(0, keeping.parser.consumed());
    dropping.buffer.erase(0, dropping.parser.consumed());
    if (keeping.buffer != dropping.buffer) __builtin_trap();
    keeping.parser.Reset();
    dropping.parser.Reset();
  }
  return 0;
}
