// SchemaValidator: full XSD validation of a SOAP response's Body content with libxml2, against the
// schemas of a WSDL (SchemaSet::SchemaDocuments), compiled once. libxml2 never touches the network or
// the disk here: every schemaLocation is served from the documents the model already fetched.
// Validate() is thread-safe (a validation context per call on the shared, read-only schema).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "client/wsdl/schema_set.h"
#include "common/status.h"

namespace lather::wsdl {

class SchemaValidator {
 public:
  ~SchemaValidator();
  SchemaValidator(const SchemaValidator&) = delete;
  SchemaValidator& operator=(const SchemaValidator&) = delete;

  // Compiles `documents`. InvalidArgument with libxml2's first message when they do not compile.
  static Status Create(const std::vector<SchemaDocument>& documents, std::unique_ptr<SchemaValidator>* out);

  // Validates each element child of the SOAP Body of `envelope` (not a Fault). Ok, or InvalidArgument
  // with libxml2's first complaint ("line 3: Element 'x': ...").
  Status Validate(const char* envelope, size_t size) const;

 private:
  SchemaValidator() = default;
  void* schema_ = nullptr;  // xmlSchemaPtr (libxml2 stays out of this header)
};

}  // namespace lather::wsdl
