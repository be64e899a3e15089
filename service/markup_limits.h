// CountAttributeFloods: a linear pre-scan of a request body, before gSOAP reads it, for start tags
// with more attributes (namespace declarations included) than any SOAP message needs. gSOAP checks
// duplicate attributes and namespace lookups with quadratic work: 25,000 attributes cost it a second
// and 50,000 namespace declarations ten, so such tags are refused here in one pass.
#pragma once

#include <cstddef>
#include <string_view>

namespace lather {

// Empty if `body` may go to gSOAP as far as characters go; otherwise why not: an encoding other than
// UTF-8 declared, bytes that are not UTF-8 (overlong forms, lone continuation bytes, surrogates), a
// control character XML 1.0 forbids, or a character reference to one (&#0;). gSOAP would decode such
// bytes as Latin-1 or keep a NUL inside a string; Lather refuses them instead.
std::string_view CharacterProblem(std::string_view body);

// Largest number of attributes accepted on one element.
inline constexpr size_t kMaxAttributesPerElement = 256;

// The most attributes ('=' signs in a start tag) found on any one element of `body`; stops counting
// (and returns) as soon as one element exceeds `limit`. If `reference` is not null, it is set to the
// qualified name of the first attribute whose local name is `href` or `ref` (a SOAP multi-reference:
// SOAP 1.1 href, SOAP 1.2 enc:ref, gSOAP's SOAP_XML_GRAPH ref), or left empty; only start tags that
// have attributes are looked at, so this costs nothing on the usual attribute-free elements.
size_t MostAttributesPerElement(std::string_view body, size_t limit, std::string_view* reference = nullptr);

}  // namespace lather
