// Envelope rules: what SOAP 1.1, SOAP 1.2 and WS-I Basic Profile 1.1 say a receiver refuses in the shape
// of an envelope and gSOAP lets through: a SOAP encodingStyle attribute where it may not be (BP R1005 and
// R1006; SOAP 1.2 part 1 5.1.1), or naming a data encoding this document/literal service does not read
// (SOAP 1.2 part 1 5.4.6, env:DataEncodingUnknown); and anything but comments and white space after the
// Envelope (XML 1.0 section 2.1: one document element). Pure functions over the request body; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lather {

enum class EncodingStyleVerdict {
  kNone,             // no SOAP encodingStyle attribute, or only where it is allowed and harmless
  kMisplaced,        // on an element of the envelope namespace (1.1 and 1.2), or on a Body child (1.1): Client/Sender
  kUnknownEncoding,  // SOAP 1.2: a Body child scoped with an encoding other than .../encoding/none
};

struct EncodingStyleCheck {
  EncodingStyleVerdict verdict = EncodingStyleVerdict::kNone;
  std::string reason;  // for a verdict other than kNone: one sentence for the fault
};

// Looks at the encodingStyle attributes in the envelope namespace of `soap_version` (1 or 2) on the start
// tags from the document's start to the Body's first child, both included. `body_content` is the offset
// just past the Body's start tag (FindBodyContent), or npos to have it found here. The start tags are
// searched for "encodingStyle" first: a message without one costs one memmem over its head.
EncodingStyleCheck CheckEncodingStyle(std::string_view body, size_t body_content, int soap_version);

// True if `rest`, what follows the Envelope's end tag, is white space and comments only (processing
// instructions, XML 1.0's other Misc, are refused by the pre-scans).
bool OnlyCommentsAndSpace(std::string_view rest);

}  // namespace lather
