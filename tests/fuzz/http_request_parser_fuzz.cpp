// libFuzzer target: HTTP request framing. The input is fed to HttpRequestParser in pieces (as reads
// would arrive), and every complete request is consumed as a connection would; the parser must never
// read outside the buffer, loop, or accept a body over the limit.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "service/http/http_request_parser.h"

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
  lather::HttpRequestParser parser(limits);
  std::string buffer;
  size_t fed = 0;
  while (fed < input.size() || !buffer.empty()) {
    const size_t n = std::min(step, input.size() - fed);
    buffer.append(input.substr(fed, n));
    fed += n;
    const auto result = parser.Parse(buffer);
    if (result == lather::HttpRequestParser::Result::kError) break;
    if (result == lather::HttpRequestParser::Result::kNeedMore) {
      if (n == 0) break;  // nothing more will come
      continue;
    }
    const lather::HttpRequest& request = parser.request();
    if (request.body.size() > limits.max_body_bytes) __builtin_trap();
    if (parser.consumed() == 0 || parser.consumed() > buffer.size()) __builtin_trap();
    buffer.erase(0, parser.consumed());
    parser.Reset();
  }
  return 0;
}
