#include "service/http/entity_tag.h"

#include <cstdint>
#include <cstdio>

namespace lather {

std::string StrongEntityTag(std::string_view content) {
  uint64_t hash = 14695981039346656037ull;
  for (const char c : content) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  char text[20];
  std::snprintf(text, sizeof text, "\"%016llx\"", static_cast<unsigned long long>(hash));
  return text;
}

bool EntityTagListMatches(std::string_view field, std::string_view tag, bool weak) {
  size_t pos = 0;
  while (pos <= field.size()) {
    size_t end = field.find(',', pos);
    if (end == std::string_view::npos) end = field.size();
    std::string_view member = field.substr(pos, end - pos);
    while (!member.empty() && (member.front() == ' ' || member.front() == '\t')) member.remove_prefix(1);
    while (!member.empty() && (member.back() == ' ' || member.back() == '\t')) member.remove_suffix(1);
    if (member == "*") return true;
    const bool is_weak = member.size() > 2 && member[0] == 'W' && member[1] == '/';
    if (is_weak) member.remove_prefix(2);
    if (member == tag && (weak || !is_weak)) return true;
    pos = end + 1;
  }
  return false;
}

}  // namespace lather
