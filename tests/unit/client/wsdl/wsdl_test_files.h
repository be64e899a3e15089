// Fixtures of the client/wsdl tests: a fresh folder under /tmp for WSDL and XSD texts (removed with
// its contents at the end of the test), a document/literal WSDL 1.1 written around a schema, and the
// loading of a model from such a folder. Header only; each test file includes it.
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "client/wsdl/wsdl_model.h"
#include "common/status.h"

namespace lather::wsdl::testing {

// Lather's own contract, read by path.
inline std::string LatherWsdlPath() { return LATHER_TESTS_DIR "/../wsdl/lather.wsdl"; }

// A folder made with mkdtemp, removed (with everything in it) when the TempFolder goes.
class TempFolder {
 public:
  TempFolder() {
    char pattern[] = "/tmp/lather-wsdl-test-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  const std::string& path() const { return path_; }

  // Writes `text` as `name` in the folder; returns the file's path.
  std::string Write(const std::string& name, const std::string& text) const {
    const std::string file = path_ + "/" + name;
    std::ofstream out(file, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + file);
    return file;
  }

 private:
  std::string path_;
};

// One operation of a generated WSDL: input tns:<input> (default: the name), output tns:<output>
// (default: tns:Done, an empty element the generator declares).
struct TestOperation {
  std::string name;
  std::string input;
  std::string output;
};

// A WSDL 1.1 text in the namespace urn:t (prefixes tns, wsdl, soap, soap12, xsd) with one inline schema
// holding `schema`, a SOAP 1.1 binding TestSoap of every operation, and a service with the port TestSoap.
struct WsdlText {
  std::string schema;                                                  // the inline xsd:schema's content
  std::string schema_attributes = "elementFormDefault=\"qualified\"";  // more attributes of that xsd:schema
  std::vector<TestOperation> operations;
  std::string style = "document";  // soap:binding style
  std::string use = "literal";     // soap:body use
  std::string extra_namespaces;    // more xmlns:p="..." on wsdl:definitions
  bool declare_done = true;        // declare tns:Done in the schema

  std::string ToString() const {
    std::string t =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<wsdl:definitions name=\"Test\" targetNamespace=\"urn:t\" xmlns:tns=\"urn:t\"\n"
        "    xmlns:wsdl=\"http://schemas.xmlsoap.org/wsdl/\" "
        "xmlns:soap=\"http://schemas.xmlsoap.org/wsdl/soap/\"\n"
        "    xmlns:soap12=\"http://schemas.xmlsoap.org/wsdl/soap12/\" "
        "xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"" +
        (extra_namespaces.empty() ? std::string() : "\n    " + extra_namespaces) +
        ">\n"
        "  <wsdl:types>\n"
        "    <xsd:schema targetNamespace=\"urn:t\" " +
        schema_attributes + ">\n" + schema + "\n" +
        (declare_done ? "      <xsd:element "
                        "name=\"Done\"><xsd:complexType><xsd:sequence/></xsd:complexType></xsd:element>\n"
                      : "") +
        "    </xsd:schema>\n"
        "  </wsdl:types>\n";
    for (const TestOperation& op : operations) {
      t += "  <wsdl:message name=\"" + op.name +
           "Request\"><wsdl:part name=\"parameters\" element=\"tns:" + In(op) + "\"/></wsdl:message>\n";
      t += "  <wsdl:message name=\"" + op.name +
           "Response\"><wsdl:part name=\"parameters\" element=\"tns:" + Out(op) + "\"/></wsdl:message>\n";
    }
    t += "  <wsdl:portType name=\"TestPortType\">\n";
    for (const TestOperation& op : operations) {
      t += "    <wsdl:operation name=\"" + op.name + "\"><wsdl:input message=\"tns:" + op.name +
           "Request\"/><wsdl:output message=\"tns:" + op.name + "Response\"/></wsdl:operation>\n";
    }
    t += "  </wsdl:portType>\n";
    t += "  <wsdl:binding name=\"TestSoap\" type=\"tns:TestPortType\">\n"
         "    <soap:binding style=\"" +
         style + "\" transport=\"http://schemas.xmlsoap.org/soap/http\"/>\n";
    for (const TestOperation& op : operations) {
      t += "    <wsdl:operation name=\"" + op.name +
           "\">\n"
           "      <soap:operation soapAction=\"urn:t#" +
           op.name +
           "\"/>\n"
           "      <wsdl:input><soap:body use=\"" +
           use +
           "\"/></wsdl:input>\n"
           "      <wsdl:output><soap:body use=\"" +
           use +
           "\"/></wsdl:output>\n"
           "    </wsdl:operation>\n";
    }
    t += "  </wsdl:binding>\n"
         "  <wsdl:service name=\"TestService\">\n"
         "    <wsdl:port name=\"TestSoap\" binding=\"tns:TestSoap\"><soap:address "
         "location=\"http://127.0.0.1:1/t\"/></wsdl:port>\n"
         "  </wsdl:service>\n"
         "</wsdl:definitions>\n";
    return t;
  }

 private:
  static std::string In(const TestOperation& op) { return op.input.empty() ? op.name : op.input; }
  static std::string Out(const TestOperation& op) { return op.output.empty() ? "Done" : op.output; }
};

// An XSD document: an xsd:schema with `attributes` (targetNamespace and more) around `content`.
inline std::string XsdText(const std::string& attributes, const std::string& content) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xsd:schema "
         "xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" " +
         attributes + ">\n" + content + "\n</xsd:schema>\n";
}

// The 1-based line of the first `needle` in `text` (0 when it is not there).
inline int LineOf(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return 0;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

// Loads the WSDL at `path` with default fetch options.
inline Status LoadWsdl(const std::string& path, std::unique_ptr<WsdlModel>* out) {
  return WsdlModel::Load(path, FetchOptions(), out);
}

// Loads the WSDL at `path`, which must load.
inline std::unique_ptr<WsdlModel> LoadOk(const std::string& path) {
  std::unique_ptr<WsdlModel> model;
  const Status s = LoadWsdl(path, &model);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(model != nullptr);
  return model;
}

// The operation `name` of the model's default port, which must exist.
inline const Operation& OperationOf(const WsdlModel& model, const std::string& name) {
  const Port* port = nullptr;
  REQUIRE(model.FindPort("", &port).ok());
  const Operation* op = port->Find(name);
  INFO("operation " << name);
  REQUIRE(op != nullptr);
  return *op;
}

// The element field `local` among the element particles of `type` (any depth); null if none.
inline const Element* FieldOf(const ComplexType& type, const std::string& local) {
  std::vector<const Particle*> fields;
  CollectElements(type.content, &fields);
  for (const Particle* p : fields) {
    if (p->element->name.local == local) return p->element;
  }
  return nullptr;
}

// The local names of the element fields of `type`, in document order.
inline std::vector<std::string> FieldNames(const ComplexType& type) {
  std::vector<const Particle*> fields;
  CollectElements(type.content, &fields);
  std::vector<std::string> names;
  for (const Particle* p : fields) names.push_back(p->element->name.local);
  return names;
}

}  // namespace lather::wsdl::testing
