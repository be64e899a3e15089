// Envelope scan: finds where a SOAP message's Body content starts, and which namespace prefixes are
// bound there, by reading only the tags before it; and whether the Body's first child is a given
// element. Lets the service hand an echo's Body to the sample reader after generic checks of the
// part before it, and lets the client read an echo response without gSOAP. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "wsdl/sample_reader.h"

namespace lather {

// The offset just past the `>` of the Body's start tag (the first start tag with local name Body at
// the second level), or npos if there is none (or something other than tags, text, comments, CDATA
// and processing instructions comes first). If `scope` is not null it receives the namespace
// declarations of the Envelope's and the Body's start tags (the bindings in scope at that offset).
size_t FindBodyContent(std::string_view xml, std::vector<NamespaceBinding>* scope = nullptr);

// True if the first start tag at or after `at` (past whitespace, comments and processing
// instructions) has local name `local` in urn:lather:v1, given the bindings `scope` (and the tag's
// own declarations).
bool NextElementIs(std::string_view xml, size_t at, std::string_view local, const std::vector<NamespaceBinding>& scope);

// The offset just past the comment, CDATA section or processing instruction that starts at `at`; 0 if
// none starts there; npos if it never closes, or for a DTD or other declaration ("<!" otherwise).
size_t SkipMarkup(std::string_view xml, size_t at);

// The offset just past the '>' that ends the tag whose bytes continue at `from` (quoted attribute values
// may hold '>'), npos if it never closes.
size_t XmlTagEnd(std::string_view xml, size_t from);

}  // namespace lather
