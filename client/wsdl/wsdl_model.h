// WsdlModel: a WSDL 1.1 service read at run time (wsdl:import, inline and imported XSD), reduced to what
// a caller needs: ports with their address and SOAP version, and per operation the SOAPAction and the
// shape of the input, output and fault messages (xsd_model.h). SOAP 1.1 and 1.2 bindings, document/literal
// and rpc/literal; rpc/encoded and unknown styles are refused by name. Immutable after Load(); safe to
// read from many threads.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "client/wsdl/http_fetch.h"
#include "client/wsdl/schema_set.h"
#include "client/wsdl/source_documents.h"
#include "client/wsdl/xsd_model.h"
#include "common/status.h"

namespace lather::wsdl {

// The SOAP Body of one message: `root` is written into the Body itself when `write_root` (a document
// part's element, or rpc's operation wrapper), otherwise only its children (document style with several
// parts, or one part of a simple type).
struct MessageShape {
  const Element* root = nullptr;
  bool write_root = true;
};

struct Operation {
  std::string name;
  std::string action;         // SOAPAction (1.1) / action parameter (1.2); may be empty
  std::string style;          // "document" | "rpc"
  MessageShape input;
  MessageShape output;
  bool one_way = false;       // no output message
  std::vector<std::string> faults;  // "name (element)" of each declared fault
  std::vector<std::string> notes;   // what Lather does not send (soap:header parts)
};

struct Port {
  std::string name;
  std::string binding;
  std::string address;        // soap:address location
  int soap_version = 1;       // 1 = SOAP 1.1, 2 = SOAP 1.2
  std::vector<Operation> operations;

  // The operation named `name`; null if none.
  const Operation* Find(const std::string& op_name) const;
};

class WsdlModel {
 public:
  // Reads the WSDL at `url` (http://, https://, file:// or a path) and everything it imports.
  // IOError/Timeout when a document does not answer; InvalidArgument (naming the document, line and
  // construct) when it is not XML, not a WSDL, has an import cycle, an unknown binding style, rpc/encoded,
  // or a construct the model does not know.
  static Status Load(const std::string& url, const FetchOptions& options, std::unique_ptr<WsdlModel>* out);

  const std::string& url() const { return url_; }
  const std::vector<Port>& ports() const { return ports_; }
  // Things read and deliberately not used (a non-SOAP port, say), one line each.
  const std::vector<std::string>& notes() const { return notes_; }
  const SchemaSet& schemas() const { return schemas_; }

  // The port named `name`, or with an empty name the first SOAP 1.1 port (else the first port).
  // InvalidArgument listing the ports when there is no such port.
  Status FindPort(const std::string& name, const Port** out) const;

 private:
  explicit WsdlModel(const FetchOptions& options) : documents_(options), schemas_(&documents_) {}
  class Reader;

  std::string url_;
  SourceDocuments documents_;
  SchemaSet schemas_;
  std::vector<Port> ports_;
  std::vector<std::string> notes_;
  std::deque<Element> synthetic_elements_;   // rpc wrappers, type= parts
  std::deque<ComplexType> synthetic_types_;
};

// "field: type, ..." of the input's fields, as `list` prints them ("items[]: tns:Item" for repeated ones).
std::string FieldSignature(const MessageShape& message);
// The output's result as `list` prints it ("xsd:int", "{id: xsd:int, status: Status(NEW|PAID)}", "()").
std::string ResultSignature(const MessageShape& message);

}  // namespace lather::wsdl
