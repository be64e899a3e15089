// Markup limits: linear pre-scans of a request body, before gSOAP reads it, for what gSOAP would
// handle badly: start tags with more attributes (namespace declarations included) than any SOAP
// message needs (gSOAP checks duplicate attributes and namespace lookups with quadratic work: 25,000
// attributes cost it a second and 50,000 namespace declarations ten), names longer than gSOAP keeps
// (it silently truncates them to 1,023 bytes), and characters that are not UTF-8 XML.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string_view>

namespace lather {

// Empty if `body` may go to gSOAP as far as characters go; otherwise why not: an encoding other than
// UTF-8 declared, bytes that are not UTF-8 (overlong forms, lone continuation bytes, surrogates), a
// control character XML 1.0 forbids, a character reference to one (&#0;), or an entity reference
// other than the five predefined ones (no DTD is accepted, so no other is declared). gSOAP would
// decode such bytes as Latin-1, keep a NUL inside a string or an undeclared &name; as literal text;
// Lather refuses them instead. CDATA sections and comments may hold any '&'.
std::string_view CharacterProblem(std::string_view body);

// Largest number of attributes accepted on one element.
inline constexpr size_t kMaxAttributesPerElement = 256;

// Longest element or attribute name accepted (gSOAP keeps SOAP_TAGLEN - 1 = 1,023 bytes of a name).
inline constexpr size_t kMaxNameBytes = 1000;

// What CountMarkup found.
struct MarkupCounts {
  size_t most_attributes = 0;  // '=' signs in one tag, the most of any tag
  size_t longest_name = 0;     // bytes of the longest element or attribute name
  // The qualified name of the first attribute whose local name is `href` or `ref` (a SOAP
  // multi-reference: SOAP 1.1 href, SOAP 1.2 enc:ref, gSOAP's SOAP_XML_GRAPH ref), or empty. Only
  // start tags that have attributes are looked at, so this costs nothing on attribute-free elements.
  std::string_view reference;
  // The first processing instruction ("<?target ..."), up to 32 bytes of it, or empty. With
  // `document_start`, an XML declaration ("<?xml" and white space) with nothing but white space (and a
  // UTF-8 BOM) before it is not one. SOAP 1.1 section 3 and WS-I BP 1.1 R1009: a message MUST NOT hold
  // any; SOAP 1.2 part 1 section 5: a receiver SHOULD answer one with an env:Sender fault.
  std::string_view processing_instruction;
};

// Counts the attributes of every tag of `body` and measures every element and attribute name (a
// run of bytes in a tag outside quotes up to a space, '=', '/' or '>'); stops (and returns) as soon
// as one tag has more than `attribute_limit` attributes or one name is longer than `name_limit`.
// `document_start`: `body` starts where the message does (its XML declaration is allowed).
MarkupCounts CountMarkup(std::string_view body, size_t attribute_limit, size_t name_limit,
                         bool document_start = true);

// The most attributes ('=' signs in a start tag) found on any one element of `body`; stops counting
// (and returns) as soon as one element exceeds `limit`.
// If `reference` is not null it is set to MarkupCounts::reference.
inline size_t MostAttributesPerElement(std::string_view body, size_t limit, std::string_view* reference = nullptr) {
  const MarkupCounts counts = CountMarkup(body, limit, static_cast<size_t>(-1));
  if (reference != nullptr) *reference = counts.reference;
  return counts.most_attributes;
}

// The length of the longest run of character data (bytes between a '>' and the next '<') in
// `body`: an upper bound of its longest string value. Used to explain a length fault.
size_t LongestTextRun(std::string_view body);

}  // namespace lather
