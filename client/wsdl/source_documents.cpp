#include "client/wsdl/source_documents.h"

#include <algorithm>
#include <cstring>

namespace lather::wsdl {

Status SourceDocuments::Load(const std::string& url, const std::vector<std::string>& chain, const SourceDocument** out,
                             bool* fresh) {
  if (std::find(chain.begin(), chain.end(), url) != chain.end()) {
    std::string cycle;
    for (auto it = std::find(chain.begin(), chain.end(), url); it != chain.end(); ++it) cycle += *it + " -> ";
    return Status::InvalidArgument("import cycle: " + cycle + url);
  }
  auto found = by_url_.find(url);
  if (found != by_url_.end()) {
    *out = found->second;
    *fresh = false;
    return Status::Ok();
  }
  if (chain.size() >= kMaxChain) {
    return Status::InvalidArgument(url + ": imported " + std::to_string(chain.size()) + " levels deep (at most " +
                                   std::to_string(kMaxChain) + ")");
  }
  if (documents_.size() >= kMaxDocuments) {
    return Status::InvalidArgument(url + ": more than " + std::to_string(kMaxDocuments) + " WSDL and schema documents");
  }
  std::string text;
  Status s = FetchDocument(url, options_, &text);
  if (!s.ok()) return s;
  SourceDocument& d = documents_.emplace_back();
  d.url = url;
  d.text = std::move(text);
  // No DOCTYPE processing (pugixml never reads external entities), no entity expansion beyond XML's own.
  const pugi::xml_parse_result parsed = d.doc.load_buffer(d.text.data(), d.text.size(), pugi::parse_default);
  if (!parsed) {
    const std::string where = url + ":" + std::to_string(1 + std::count(d.text.begin(), d.text.begin() +
                                                                     std::min<ptrdiff_t>(parsed.offset, d.text.size()),
                                                                     '\n'));
    documents_.pop_back();
    return Status::InvalidArgument(where + ": not well-formed XML (" + parsed.description() + ")");
  }
  by_url_[url] = &d;
  *out = &d;
  *fresh = true;
  return Status::Ok();
}

std::string SourceDocuments::Where(const SourceDocument& source, const pugi::xml_node& node) const {
  const ptrdiff_t offset = node.offset_debug();
  if (offset < 0 || static_cast<size_t>(offset) > source.text.size()) return source.url;
  return source.url + ":" + std::to_string(1 + std::count(source.text.begin(), source.text.begin() + offset, '\n'));
}

std::string NamespaceInScope(pugi::xml_node node, const std::string& prefix) {
  const std::string attr = prefix.empty() ? "xmlns" : "xmlns:" + prefix;
  if (prefix == "xml") return "http://www.w3.org/XML/1998/namespace";
  for (pugi::xml_node n = node; n && n.type() == pugi::node_element; n = n.parent()) {
    const pugi::xml_attribute a = n.attribute(attr.c_str());
    if (a) return a.value();
  }
  return "";
}

const char* LocalPart(const char* name) {
  const char* colon = std::strchr(name, ':');
  return colon != nullptr ? colon + 1 : name;
}

std::string NamespaceOfNode(pugi::xml_node node) {
  const char* name = node.name();
  const char* colon = std::strchr(name, ':');
  return NamespaceInScope(node, colon != nullptr ? std::string(name, colon) : std::string());
}

}  // namespace lather::wsdl
