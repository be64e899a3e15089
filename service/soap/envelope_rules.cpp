#include "service/soap/envelope_rules.h"

#include <vector>

#include "wsdl/envelope_scan.h"

namespace lather {
namespace {

constexpr size_t npos = std::string_view::npos;
constexpr std::string_view kEnvelope11 = "http://schemas.xmlsoap.org/soap/envelope/";
constexpr std::string_view kEnvelope12 = "http://www.w3.org/2003/05/soap-envelope";
constexpr std::string_view kNoEncoding12 = "http://www.w3.org/2003/05/soap-envelope/encoding/none";

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// At most 64 bytes of `text` for a fault's reason, bytes outside printable ASCII as '?'.
std::string Shown(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 64)) out.push_back(c > ' ' && c < 127 ? c : '?');
  return out;
}

// Calls visit(name, value) for each attribute of the start tag xml[at, end) (values raw, quotes removed).
template <typename Visit>
void ForEachAttribute(std::string_view tag, Visit visit) {
  size_t p = 1;
  while (p < tag.size() && !IsSpace(tag[p]) && tag[p] != '>' && tag[p] != '/') ++p;  // the element's name
  for (;;) {
    while (p < tag.size() && (IsSpace(tag[p]) || tag[p] == '/')) ++p;
    const size_t name_start = p;
    while (p < tag.size() && tag[p] != '=' && !IsSpace(tag[p]) && tag[p] != '>' && tag[p] != '/') ++p;
    if (p == name_start) return;
    const std::string_view name = tag.substr(name_start, p - name_start);
    while (p < tag.size() && (IsSpace(tag[p]) || tag[p] == '=')) ++p;
    if (p >= tag.size() || (tag[p] != '"' && tag[p] != '\'')) return;
    const size_t value_end = tag.find(tag[p], p + 1);
    if (value_end == npos) return;
    visit(name, tag.substr(p + 1, value_end - p - 1));
    p = value_end + 1;
  }
}

std::string_view Prefix(std::string_view qname) {
  const size_t colon = qname.find(':');
  return colon == npos ? std::string_view() : qname.substr(0, colon);
}

std::string_view Local(std::string_view qname) {
  const size_t colon = qname.find(':');
  return colon == npos ? qname : qname.substr(colon + 1);
}

// The offset just past the start tag of the Body's first child, or `body_content` if the Body's
// content does not start with an element.
size_t FirstChildEnd(std::string_view body, size_t body_content) {
  size_t at = body_content;
  while (at < body.size()) {
    if (IsSpace(body[at])) {
      ++at;
      continue;
    }
    if (body[at] != '<' || body.substr(at, 2) == "</") return body_content;
    const size_t skipped = SkipMarkup(body, at);
    if (skipped == npos) return body_content;
    if (skipped == 0) {
      const size_t end = XmlTagEnd(body, at + 1);
      return end == npos ? body_content : end;
    }
    at = skipped;
  }
  return body_content;
}

struct Declaration {
  std::string_view prefix;
  std::string_view uri;
  int depth;
};

std::string_view Resolve(const std::vector<Declaration>& scope, std::string_view prefix) {
  for (auto it = scope.rbegin(); it != scope.rend(); ++it) {
    if (it->prefix == prefix) return it->uri;
  }
  return {};
}

}  // namespace

EncodingStyleCheck CheckEncodingStyle(std::string_view body, size_t body_content, int soap_version) {
  EncodingStyleCheck check;
  if (body_content == npos) body_content = FindBodyContent(body);
  if (body_content == npos) return check;  // gSOAP refuses an envelope without a Body
  const size_t region_end = FirstChildEnd(body, body_content);
  if (body.substr(0, region_end).find("encodingStyle") == npos) return check;
  const std::string_view envelope_ns = soap_version == 2 ? kEnvelope12 : kEnvelope11;
  std::vector<Declaration> scope;
  std::vector<std::string_view> open;  // local names of the elements open, the document element first
  size_t at = 0;
  while ((at = body.find('<', at)) != npos && at < region_end) {
    if (const size_t skipped = SkipMarkup(body, at); skipped != 0) {
      if (skipped == npos) return check;
      at = skipped;
      continue;
    }
    const size_t end = XmlTagEnd(body, at + 1);
    if (end == npos) return check;
    const std::string_view tag = body.substr(at, end - at);
    at = end;
    if (tag[1] == '/') {  // an end tag: its declarations go out of scope
      if (open.empty()) return check;
      while (!scope.empty() && scope.back().depth >= static_cast<int>(open.size())) scope.pop_back();
      open.pop_back();
      continue;
    }
    size_t name_end = 1;
    while (name_end < tag.size() && !IsSpace(tag[name_end]) && tag[name_end] != '>' && tag[name_end] != '/') ++name_end;
    const std::string_view qname = tag.substr(1, name_end - 1);
    const int depth = static_cast<int>(open.size()) + 1;
    ForEachAttribute(tag, [&](std::string_view name, std::string_view value) {
      if (name == "xmlns") scope.push_back({std::string_view(), value, depth});
      if (name.substr(0, 6) == "xmlns:") scope.push_back({name.substr(6), value, depth});
    });
    const bool in_envelope_ns = Resolve(scope, Prefix(qname)) == envelope_ns;
    const bool body_child = depth == 3 && open.size() == 2 && Local(open[1]) == "Body";
    std::string_view style;
    bool found = false;
    ForEachAttribute(tag, [&](std::string_view name, std::string_view value) {
      const std::string_view prefix = Prefix(name);
      if (!found && !prefix.empty() && prefix != "xmlns" && Local(name) == "encodingStyle" &&
          Resolve(scope, prefix) == envelope_ns) {
        found = true;
        style = TrimSpace(value);
      }
    });
    if (found && in_envelope_ns) {
      check.verdict = EncodingStyleVerdict::kMisplaced;
      check.reason = soap_version == 2
          ? "the SOAP 1.2 element <" + Shown(qname) + "> carries env:encodingStyle, which may appear only on header "
            "blocks, Body children and their descendants (SOAP 1.2 part 1 section 5.1.1)"
          : "the SOAP element <" + Shown(qname) + "> carries soap:encodingStyle, which WS-I Basic Profile 1.1 R1005 "
            "forbids on the elements of the envelope namespace";
      return check;
    }
    if (found && body_child && soap_version == 1) {
      check.verdict = EncodingStyleVerdict::kMisplaced;
      check.reason = "the Body's child <" + Shown(qname) + "> carries soap:encodingStyle, which WS-I Basic Profile 1.1 "
                     "R1006 forbids (this service is document/literal: no encoding is applied)";
      return check;
    }
    if (found && body_child && style != kNoEncoding12) {
      check.verdict = EncodingStyleVerdict::kUnknownEncoding;
      check.reason = "the Body's child <" + Shown(qname) + "> is scoped with the data encoding '" + Shown(style) +
                     "', which this service does not read: it is document/literal (only " + std::string(kNoEncoding12) +
                     " may be named)";
      return check;
    }
    if (tag[tag.size() - 2] == '/') {  // an empty-element tag opens nothing
      while (!scope.empty() && scope.back().depth >= depth) scope.pop_back();
    } else {
      open.push_back(qname);
    }
    if (body_child) return check;
  }
  return check;
}

bool OnlyCommentsAndSpace(std::string_view rest) {
  size_t at = 0;
  while (at < rest.size()) {
    if (IsSpace(rest[at])) {
      ++at;
      continue;
    }
    if (rest.substr(at, 4) != "<!--") return false;
    const size_t end = rest.find("-->", at + 4);
    if (end == npos) return false;
    at = end + 3;
  }
  return true;
}

}  // namespace lather
