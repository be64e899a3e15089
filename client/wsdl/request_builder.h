// RequestBuilder: the SOAP request of one WSDL operation, built from the schema: values set by path
// ("order.items[2].sku", "amount.@currency") or from JSON, each checked against its type and facets as it
// is set, required fields that were not set filled with sample values (and named), then written as one
// envelope (namespaces declared once on the Envelope) with its HTTP headers from the binding.
// Values may hold ${n} and random(a..b), the harness's per-call placeholders: they are checked with a
// number in their place. Not thread-safe; build once, then share the text.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "client/wsdl/wsdl_model.h"
#include "common/status.h"

namespace lather::wsdl {

// What was given for one element: its text, attributes and child elements (by local name, each a list
// of occurrences in order).
struct InputValue {
  std::optional<std::string> text;
  bool nil = false;
  std::map<std::string, std::string> attributes;
  std::map<std::string, std::vector<InputValue>> children;
};

class RequestBuilder {
 public:
  // `soap_version` 1 or 2 (the port's).
  RequestBuilder(const Operation& operation, int soap_version) : op_(operation), soap_version_(soap_version) {}

  // Sets one field. InvalidArgument naming the path: no such field (the fields there are listed), an
  // index beyond maxOccurs, a structure given a value, a value its type refuses.
  Status Set(const std::string& path, const std::string& value);
  // Sets a field to xsi:nil; InvalidArgument unless it is nillable.
  Status SetNil(const std::string& path);
  // Sets every field of a JSON object: keys are element names ("@name" for attributes), arrays are
  // repeated elements, null is xsi:nil. InvalidArgument for JSON that is not an object, or a bad field.
  Status SetJson(const std::string& json_text);

  // Writes the whole envelope into *envelope. Required fields not set get a sample value of their type;
  // each one's path (and value) is appended to *filled. InvalidArgument when a sample cannot be made
  // (a pattern, a recursive type that requires itself).
  Status Build(std::string* envelope, std::vector<std::string>* filled) const;

  // "Content-Type: ..." and, for SOAP 1.1, "SOAPAction: ..." as the binding says.
  std::vector<std::string> Headers() const;

 private:
  class Writer;
  Status Assign(const std::string& path, const std::string* value);

  const Operation& op_;
  int soap_version_;
  InputValue root_;
};

// `text` with ${n} and random(a..b) replaced by a number of the range, for checking it against a type.
std::string WithPlaceholdersAsNumbers(const std::string& text);

// XML-escapes `text` for element content or an attribute value (quotes too) and appends it.
void AppendXmlEscaped(const std::string& text, std::string* out);

}  // namespace lather::wsdl
