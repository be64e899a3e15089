#include "service/markup_limits.h"

#include <algorithm>
#include <cstring>

namespace lather {

size_t MostAttributesPerElement(std::string_view body, size_t limit) {
  size_t most = 0;
  const char* p = body.data();
  const char* const end = body.data() + body.size();
  while (p < end) {
    const char* open = static_cast<const char*>(std::memchr(p, '<', static_cast<size_t>(end - p)));
    if (open == nullptr) break;
    const std::string_view rest(open, static_cast<size_t>(end - open));
    if (rest.substr(0, 4) == "<!--" || rest.substr(0, 9) == "<![CDATA[") {
      const size_t close = rest.find(rest[1] == '!' && rest[2] == '-' ? "-->" : "]]>");
      if (close == std::string_view::npos) break;
      p = open + close + 3;
      continue;
    }
    const char* close = static_cast<const char*>(std::memchr(open, '>', static_cast<size_t>(end - open)));
    if (close == nullptr) close = end;
    // Attribute values may hold '=' too (base64); the limit is far above any real message.
    const size_t attributes = static_cast<size_t>(std::count(open, close, '='));
    most = std::max(most, attributes);
    if (most > limit) return most;
    p = close;
  }
  return most;
}

}  // namespace lather
