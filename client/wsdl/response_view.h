// ResponseView: a SOAP response read with pugixml and shown as the WSDL describes it: an indented tree
// or JSON typed by the output's schema (numbers, booleans, arrays for repeated elements), or the Fault's
// code, reason and detail. Owns its parsed copy; not thread-safe.
#pragma once

#include <string>

#include <pugixml.hpp>

#include "client/wsdl/wsdl_model.h"
#include "common/status.h"

namespace lather::wsdl {

struct SoapFault {
  std::string code;    // "soap:Client", "env:Sender" (with a subcode: "env:Sender / app:OutOfStock")
  std::string reason;
  std::string detail;  // the detail's content on one line ("OutOfStock{sku: NONE}"), empty when none
};

class ResponseView {
 public:
  // Reads `body` (any HTTP status: a fault comes with 500 or 400). InvalidArgument when it is not a SOAP
  // envelope with a Body.
  Status Parse(const std::string& body, const MessageShape& output);

  bool is_fault() const { return is_fault_; }
  const SoapFault& fault() const { return fault_; }

  // The result as `name: value` lines ("result: 42"), indented two spaces a level (repeated elements as
  // name[i], attributes as @name on the line after their element).
  std::string Tree() const;
  // The result as a JSON object of the response element's children.
  std::string Json() const;

 private:
  pugi::xml_document doc_;
  pugi::xml_node result_;            // the element whose children are the result
  const Element* result_decl_ = nullptr;
  bool is_fault_ = false;
  SoapFault fault_;
};

// `text` as a JSON string literal (quotes included).
std::string JsonQuoted(const std::string& text);

}  // namespace lather::wsdl
