// SourceDocuments: every WSDL and schema document of one model, each fetched once by URL and parsed
// with pugixml, with the import chain that led to it so that a cycle is refused, and bounds on how many
// documents and bytes a foreign WSDL may pull in. Not thread-safe; documents stay at fixed addresses.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include <pugixml.hpp>

#include "client/wsdl/http_fetch.h"
#include "common/status.h"

namespace lather::wsdl {

struct SourceDocument {
  std::string url;
  std::string text;
  pugi::xml_document doc;
};

class SourceDocuments {
 public:
  static constexpr size_t kMaxDocuments = 64;
  static constexpr size_t kMaxChain = 16;

  explicit SourceDocuments(FetchOptions options) : options_(std::move(options)) {}

  // The document at `url`, fetched and parsed unless already loaded (*fresh false then). `chain` is the
  // list of URLs whose imports led here: InvalidArgument naming the cycle when `url` is one of them.
  // IOError/Timeout when it does not answer; InvalidArgument when it is not well-formed XML.
  Status Load(const std::string& url, const std::vector<std::string>& chain, const SourceDocument** out,
              bool* fresh);

  // "URL:LINE" of a node of one of these documents.
  std::string Where(const SourceDocument& source, const pugi::xml_node& node) const;

 private:
  FetchOptions options_;
  std::deque<SourceDocument> documents_;
  std::map<std::string, SourceDocument*> by_url_;
};

// The namespace bound to `prefix` ("" for the default) in scope at `node`; empty when unbound.
std::string NamespaceInScope(pugi::xml_node node, const std::string& prefix);

// The local part of a name ("Body" of "soap:Body").
const char* LocalPart(const char* name);

// The namespace of an element node's own name.
std::string NamespaceOfNode(pugi::xml_node node);

}  // namespace lather::wsdl
