#include "client/wsdl/schema_validator.h"

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlschemas.h>

#include <cstring>
#include <map>
#include <mutex>

#include "client/wsdl/request_builder.h"

namespace lather::wsdl {
namespace {


std::mutex loader_mutex;                                  // one schema compiled at a time (the loader is global)
const std::map<std::string, std::string>* served = nullptr;  // URL -> text while compiling
xmlExternalEntityLoader previous_loader = nullptr;

// Serves schema documents from memory; anything else is refused (no network, no files).
xmlParserInputPtr ServeFromMemory(const char* url, const char* /*id*/, xmlParserCtxtPtr context) {
  if (url == nullptr || served == nullptr) return nullptr;
  auto it = served->find(url);
  if (it == served->end()) {  // a location libxml2 resolved differently: the same file name
    const char* slash = std::strrchr(url, '/');
    const std::string name = slash != nullptr ? slash : url;
    for (auto c = served->begin(); c != served->end(); ++c) {
      if (c->first.size() >= name.size() && c->first.compare(c->first.size() - name.size(), name.size(), name) == 0) {
        it = c;
        break;
      }
    }
    if (it == served->end()) return nullptr;
  }
  xmlParserInputBufferPtr buffer = xmlParserInputBufferCreateMem(it->second.data(), static_cast<int>(it->second.size()),
                                                                 XML_CHAR_ENCODING_NONE);
  if (buffer == nullptr) return nullptr;
  xmlParserInputPtr input = xmlNewIOInputStream(context, buffer, XML_CHAR_ENCODING_NONE);
  if (input == nullptr) {
    xmlFreeParserInputBuffer(buffer);
    return nullptr;
  }
  input->filename = reinterpret_cast<const char*>(xmlStrdup(reinterpret_cast<const xmlChar*>(it->first.c_str())));
  return input;
}

void KeepFirst(void* target, xmlErrorPtr error) {
  auto* message = static_cast<std::string*>(target);
  if (!message->empty() || error == nullptr || error->message == nullptr) return;
  // A warning is no failure: "Skipping import of schema ... already imported" comes when an inline
  // schema names a file the set imported already under another spelling of its URL.
  if (error->level == XML_ERR_WARNING) return;
  *message = (error->line > 0 ? "line " + std::to_string(error->line) + ": " : std::string()) + error->message;
  while (!message->empty() && message->back() == '\n') message->pop_back();
}

std::string Escaped(const std::string& text) {
  std::string out;
  AppendXmlEscaped(text, &out);
  return out;
}

}  // namespace

SchemaValidator::~SchemaValidator() {
  if (schema_ != nullptr) xmlSchemaFree(static_cast<xmlSchemaPtr>(schema_));
}

Status SchemaValidator::Create(const std::vector<SchemaDocument>& documents, std::unique_ptr<SchemaValidator>* out) {
  static std::once_flag init;
  std::call_once(init, [] { xmlInitParser(); });
  // Inline schemas get a URL of their own in the WSDL's folder, so that their relative imports resolve.
  std::map<std::string, std::string> texts;
  std::map<std::string, std::vector<std::string>> by_namespace;
  for (const SchemaDocument& d : documents) {
    std::string url = d.url;
    const size_t hash = url.find("#schema");
    if (hash != std::string::npos) {
      url = url.substr(0, hash) + (url.find('?') == std::string::npos ? "?" : "&") + "lather-inline=" + url.substr(hash + 7);
    }
    texts[url] = d.text;
    by_namespace[d.target_ns].push_back(url);
  }
  std::string main = "<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\" targetNamespace=\"urn:lather:validator\">";
  int wrapper_index = 0;
  for (const auto& [ns, urls] : by_namespace) {
    std::string location = urls.front();
    if (urls.size() > 1) {  // one namespace in several documents: one import of a document including them all
      location = "lather-memory:/namespace-" + std::to_string(++wrapper_index) + ".xsd";
      std::string wrapper = "<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\"" +
                            (ns.empty() ? std::string() : " targetNamespace=\"" + Escaped(ns) + "\"") + ">";
      for (const std::string& u : urls) wrapper += "<xs:include schemaLocation=\"" + Escaped(u) + "\"/>";
      texts[location] = wrapper + "</xs:schema>";
    }
    main += "<xs:import" + (ns.empty() ? std::string() : " namespace=\"" + Escaped(ns) + "\"") + " schemaLocation=\"" +
            Escaped(location) + "\"/>";
  }
  main += "</xs:schema>";

  std::string error;
  xmlSchemaPtr schema = nullptr;
  {
    std::lock_guard<std::mutex> lock(loader_mutex);
    served = &texts;
    previous_loader = xmlGetExternalEntityLoader();
    xmlSetExternalEntityLoader(ServeFromMemory);
    xmlSchemaParserCtxtPtr parser = xmlSchemaNewMemParserCtxt(main.data(), static_cast<int>(main.size()));
    xmlSchemaSetParserStructuredErrors(parser, KeepFirst, &error);
    schema = xmlSchemaParse(parser);
    xmlSchemaFreeParserCtxt(parser);
    xmlSetExternalEntityLoader(previous_loader);
    served = nullptr;
  }
  if (schema == nullptr || !error.empty()) {
    if (schema != nullptr) xmlSchemaFree(schema);
    return Status::InvalidArgument("libxml2 cannot compile the WSDL's schemas: " + (error.empty() ? "unknown error" : error));
  }
  std::unique_ptr<SchemaValidator> v(new SchemaValidator());
  v->schema_ = schema;
  *out = std::move(v);
  return Status::Ok();
}

Status SchemaValidator::Validate(const char* envelope, size_t size) const {
  xmlDocPtr doc = xmlReadMemory(envelope, static_cast<int>(size), "response.xml", nullptr,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (doc == nullptr) return Status::InvalidArgument("not well-formed XML");
  std::string error;
  xmlNodePtr body = nullptr;
  for (xmlNodePtr n = xmlDocGetRootElement(doc)->children; n != nullptr; n = n->next) {
    if (n->type == XML_ELEMENT_NODE && std::strcmp(reinterpret_cast<const char*>(n->name), "Body") == 0 && n->ns != nullptr &&
        (std::strcmp(reinterpret_cast<const char*>(n->ns->href), kSoapEnv11) == 0 ||
         std::strcmp(reinterpret_cast<const char*>(n->ns->href), kSoapEnv12) == 0)) {
      body = n;
    }
  }
  Status result;
  if (body == nullptr) {
    result = Status::InvalidArgument("no SOAP Body");
  } else {
    xmlSchemaValidCtxtPtr context = xmlSchemaNewValidCtxt(static_cast<xmlSchemaPtr>(schema_));
    xmlSchemaSetValidStructuredErrors(context, KeepFirst, &error);
    for (xmlNodePtr n = body->children; n != nullptr && error.empty(); n = n->next) {
      if (n->type != XML_ELEMENT_NODE) continue;
      if (xmlSchemaValidateOneElement(context, n) != 0 && error.empty()) error = "invalid";
    }
    xmlSchemaFreeValidCtxt(context);
    if (!error.empty()) result = Status::InvalidArgument(error);
  }
  xmlFreeDoc(doc);
  return result;
}

}  // namespace lather::wsdl
