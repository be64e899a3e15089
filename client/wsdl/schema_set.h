// SchemaSet: the XML Schemas of one WSDL (inline in wsdl:types, imported and included, fetched
// relative to the document that names them) compiled on demand into the model of xsd_model.h.
// What it cannot model (a construct it does not know, a name no schema declares) is an
// InvalidArgument naming the construct and its URL:LINE. Not thread-safe while building; the
// compiled model it hands out is immutable and lives as long as the set.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include <pugixml.hpp>

#include "client/wsdl/source_documents.h"
#include "client/wsdl/xsd_model.h"
#include "common/status.h"

namespace lather::wsdl {

// One schema document as a validator reads it.
struct SchemaDocument {
  std::string url;        // where it came from; an inline schema: the WSDL's URL + "#schemaN"
  std::string target_ns;
  std::string text;
};

class SchemaSet {
 public:
  explicit SchemaSet(SourceDocuments* documents) : documents_(documents) {}

  // Adds the xsd:schema element `schema` of `source` and, recursively, the schemas it imports or
  // includes (by schemaLocation, resolved against `source`'s URL). `chain`: the documents that led here.
  Status AddSchema(pugi::xml_node schema, const SourceDocument* source, std::vector<std::string> chain);

  // The global element `name`, compiled with everything it reaches.
  Status GlobalElement(const QName& name, const Element** out);
  // The global type `name` (a built-in when in the XSD namespace): *complex set for a complex type,
  // otherwise *simple filled.
  Status GlobalType(const QName& name, const ComplexType** complex, SimpleType* simple);

  // Every schema as a document of its own (an inline one with the namespaces in scope around it
  // copied in), for a validator.
  std::vector<SchemaDocument> SchemaDocuments() const;

 private:
  struct SchemaInfo {
    pugi::xml_node node;
    const SourceDocument* source = nullptr;
    std::string target_ns;
    bool elements_qualified = false;
    bool attributes_qualified = false;
  };
  struct Decl {
    pugi::xml_node node;
    const SchemaInfo* schema = nullptr;
  };
  struct Context {  // where a node being compiled sits
    const SchemaInfo* schema;
    int depth;
  };

  Status Index(const SchemaInfo& info);
  Status Unsupported(const Context& c, pugi::xml_node node, const std::string& why) const;
  // The node's minOccurs and maxOccurs (1 when absent); an error for a value XML Schema does not allow there.
  Status ReadOccurs(const Context& c, pugi::xml_node node, uint64_t* min, uint64_t* max) const;
  Status ResolveQName(const Context& c, pugi::xml_node node, const char* attr, QName* out) const;
  Status CompileElement(const Context& c, pugi::xml_node node, bool global, Element* out);
  Status CompileComplex(const Context& c, pugi::xml_node node, ComplexType* out);
  Status CompileContent(const Context& c, pugi::xml_node node, ComplexType* out);
  Status CompileParticle(const Context& c, pugi::xml_node node, Particle* out);
  Status CompileAttributes(const Context& c, pugi::xml_node parent, std::vector<Attribute>* out);
  Status CompileSimple(const Context& c, pugi::xml_node node, SimpleType* out);
  Status ApplyFacets(const Context& c, pugi::xml_node restriction, SimpleType* out);
  Status TypeByName(const Context& c, const QName& name, const ComplexType** complex, SimpleType* simple);
  Status NamedComplex(const QName& name, const ComplexType** out);
  Status NamedSimple(const Context& c, const QName& name, SimpleType* out);

  SourceDocuments* documents_;
  std::deque<SchemaInfo> schemas_;
  std::map<std::string, bool> loaded_;  // documents whose schema is in (by URL)
  std::map<QName, Decl> elements_, complex_types_, simple_types_, groups_, attribute_groups_, attributes_;
  std::map<QName, const Element*> compiled_elements_;
  std::map<QName, const ComplexType*> compiled_types_;
  std::deque<Element> element_store_;
  std::deque<ComplexType> type_store_;
};

// True if `local` names an XSD built-in simple type (or anySimpleType).
bool IsBuiltinSimple(const std::string& local);

}  // namespace lather::wsdl
