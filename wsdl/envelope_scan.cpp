#include "wsdl/envelope_scan.h"

#include <string>

namespace lather {
namespace {

constexpr size_t npos = std::string_view::npos;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// One start or end tag: its name, where it ends, and whether it is empty (<a/>).
struct Tag {
  std::string_view name;
  size_t attributes = 0;  // offset of the first byte after the name
  size_t end = npos;      // offset just past the '>'
  bool empty = false;
};

// Reads the tag whose name starts at `name_start`; end stays npos if it never closes.
Tag ReadTag(std::string_view xml, size_t name_start) {
  Tag tag;
  size_t p = name_start;
  while (p < xml.size() && !IsSpace(xml[p]) && xml[p] != '>' && xml[p] != '/') ++p;
  tag.name = xml.substr(name_start, p - name_start);
  tag.attributes = p;
  tag.end = XmlTagEnd(xml, p);
  tag.empty = tag.end != npos && xml[tag.end - 2] == '/';
  return tag;
}

std::string_view LocalName(std::string_view qname) {
  const size_t colon = qname.find(':');
  return colon == npos ? qname : qname.substr(colon + 1);
}

// Calls visit(name, value) for each attribute of the tag between `from` and `to` (values raw).
template <typename Visit>
void ForEachAttribute(std::string_view xml, size_t from, size_t to, Visit visit) {
  size_t p = from;
  while (p < to) {
    while (p < to && (IsSpace(xml[p]) || xml[p] == '/' || xml[p] == '>')) ++p;
    const size_t name_start = p;
    while (p < to && xml[p] != '=' && !IsSpace(xml[p]) && xml[p] != '>' && xml[p] != '/') ++p;
    const std::string_view name = xml.substr(name_start, p - name_start);
    while (p < to && (IsSpace(xml[p]) || xml[p] == '=')) ++p;
    if (p >= to || (xml[p] != '"' && xml[p] != '\'')) return;
    const size_t value_end = xml.find(xml[p], p + 1);
    if (value_end == npos || value_end >= to) return;
    visit(name, xml.substr(p + 1, value_end - p - 1));
    p = value_end + 1;
  }
}

void AddDeclarations(std::string_view xml, const Tag& tag, std::vector<NamespaceBinding>* scope) {
  ForEachAttribute(xml, tag.attributes, tag.end, [scope](std::string_view name, std::string_view value) {
    if (name == "xmlns") scope->push_back(NamespaceBinding{std::string(), ClassifyNamespace(value)});
    if (name.substr(0, 6) == "xmlns:") {
      scope->push_back(NamespaceBinding{std::string(name.substr(6)), ClassifyNamespace(value)});
    }
  });
}

}  // namespace

size_t SkipMarkup(std::string_view xml, size_t at) {
  const std::string_view rest = xml.substr(at);
  std::string_view close;
  if (rest.substr(0, 4) == "<!--") close = "-->";
  else if (rest.substr(0, 9) == "<![CDATA[") close = "]]>";
  else if (rest.substr(0, 2) == "<?") close = "?>";
  else if (rest.substr(0, 2) == "<!") return npos;
  else return 0;
  const size_t end = xml.find(close, at + 2);
  return end == npos ? npos : end + close.size();
}

size_t XmlTagEnd(std::string_view xml, size_t from) {
  char quote = 0;
  for (size_t p = from; p < xml.size(); ++p) {
    const char c = xml[p];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      return p + 1;
    }
  }
  return npos;
}

size_t FindBodyContent(std::string_view xml, std::vector<NamespaceBinding>* scope) {
  if (scope != nullptr) scope->clear();
  int depth = 0;  // elements open
  size_t at = 0;
  while ((at = xml.find('<', at)) != npos) {
    if (const size_t skipped = SkipMarkup(xml, at); skipped != 0) {
      if (skipped == npos) return npos;
      at = skipped;
      continue;
    }
    const bool end_tag = at + 1 < xml.size() && xml[at + 1] == '/';
    const Tag tag = ReadTag(xml, at + (end_tag ? 2 : 1));
    if (tag.end == npos) return npos;
    if (end_tag) {
      if (--depth <= 0) return npos;  // the Envelope ended without a Body start tag
    } else if (!tag.empty) {
      ++depth;
      const bool body = depth == 2 && LocalName(tag.name) == "Body";
      if (scope != nullptr && (depth == 1 || body)) AddDeclarations(xml, tag, scope);
      if (body) return tag.end;
    } else if (depth == 0) {
      return npos;  // an empty document element
    }
    at = tag.end;
  }
  return npos;
}

bool NextElementIs(std::string_view xml, size_t at, std::string_view local, const std::vector<NamespaceBinding>& scope) {
  while (at < xml.size()) {
    if (IsSpace(xml[at])) {
      ++at;
      continue;
    }
    if (xml[at] != '<' || xml.substr(at, 2) == "</" || xml.substr(at, 9) == "<![CDATA[") return false;
    const size_t skipped = SkipMarkup(xml, at);
    if (skipped == npos) return false;
    if (skipped == 0) break;
    at = skipped;
  }
  if (at >= xml.size()) return false;
  const Tag tag = ReadTag(xml, at + 1);
  if (tag.end == npos || LocalName(tag.name) != local) return false;
  const size_t colon = tag.name.find(':');
  const std::string_view prefix = colon == npos ? std::string_view() : tag.name.substr(0, colon);
  std::vector<NamespaceBinding> own;
  AddDeclarations(xml, tag, &own);
  for (auto it = own.rbegin(); it != own.rend(); ++it) {
    if (it->prefix == prefix) return it->ns == XmlNamespace::kLather;
  }
  for (auto it = scope.rbegin(); it != scope.rend(); ++it) {
    if (it->prefix == prefix) return it->ns == XmlNamespace::kLather;
  }
  return false;
}

}  // namespace lather
