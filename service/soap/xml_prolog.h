// ScanXmlProlog: a cheap look at the start of a request body before gSOAP reads it, to refuse
// any DTD (entity expansion and external fetches are never attempted) and to name the document
// element when gSOAP does not recognise an envelope.
#pragma once

#include <string_view>

namespace lather {

struct XmlProlog {
  bool has_doctype = false;     // a <!DOCTYPE ...> (or other markup declaration) before the root
  std::string_view root_name;   // qualified name of the document element; empty if none found
};

// Skips a UTF-8 BOM, whitespace, the XML declaration, processing instructions and comments.
XmlProlog ScanXmlProlog(std::string_view body);

}  // namespace lather
