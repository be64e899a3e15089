// The hand-written reader of the EchoDataSamples payload: one pass over the XML text straight into a
// SampleSet, with the checks gSOAP's strict generated reader and the service's pre-scans make (element
// order and namespaces, XML 1.0 characters in UTF-8, the five predefined entities and character
// references, CDATA, comments, xsd lexical forms, the depth, occurrence, string and markup limits) and
// id/ref graphs (SOAP 1.1 id/href, SOAP 1.2 SOAP-ENC:id/SOAP-ENC:ref, gSOAP SOAP_XML_GRAPH id/ref) on
// `sample` elements. It never recurses (an explicit stack), so no shape can overflow the stack.
// Pure function of its inputs; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "wsdl/data_sample.h"
#include "wsdl/xsd_values.h"

namespace lather {

// What a namespace prefix in scope at the reader's starting point stands for.
enum class XmlNamespace : unsigned char {
  kOther,         // any other URI
  kLather,        // urn:lather:v1
  kSoapEncoding,  // SOAP 1.1 or 1.2 encoding (http://schemas.xmlsoap.org/soap/encoding/, .../2003/05/soap-encoding)
  kXsi,           // http://www.w3.org/2001/XMLSchema-instance
};

// A binding in scope where reading starts (declared on the Envelope or Body); prefix "" is the
// default namespace. Later bindings shadow earlier ones of the same prefix.
struct NamespaceBinding {
  std::string prefix;
  XmlNamespace ns = XmlNamespace::kOther;
};

// The kind of XmlNamespace a URI is.
XmlNamespace ClassifyNamespace(std::string_view uri);

struct SampleReadLimits {
  size_t max_depth = 500;         // element levels allowed, counted from the wrapper (level 1)
  size_t max_occurs = 100000;     // most `sample` or `item` elements in one list
  size_t max_string = 1 << 20;    // longest string value in characters (code points); 0: no limit
  // Refuse processing instructions (kMalformed) instead of skipping them: a service receiving a SOAP
  // message does (SOAP 1.1 section 3, WS-I BP 1.1 R1009); a client reading a response need not.
  bool refuse_processing_instructions = false;
};

enum class SampleReadProblem {
  kNone,
  kMalformed,  // not well-formed XML, bad characters or entities, too many attributes, a name over 1,000 bytes
  kSchema,     // well-formed but not the contract: a wrong, missing or extra element, a bad xsd value, a bad id/ref
  kDepth,      // deeper than max_depth
  kOccurs,     // a list longer than max_occurs
  kString,     // a string value longer than max_string
};

struct SampleReadResult {
  SampleReadProblem problem = SampleReadProblem::kNone;
  std::string message;  // for a problem: what was wrong, one sentence for a Client/Sender fault
  size_t end = 0;       // on success: the offset just past the wrapper's end tag (or its empty-element tag)
  bool ok() const { return problem == SampleReadProblem::kNone; }
};

// Reads, from `xml` at `start` (optional whitespace and comments, then the start tag), the element
// `wrapper` ("EchoDataSamples" or "EchoDataSamplesResponse") in urn:lather:v1 that holds exactly one
// `samples` element (a DataSampleList) and nothing else, into *out (cleared first); `scope` lists the
// bindings in scope at `start`. On a problem *out holds what was read so far and must not be used.
SampleReadResult ReadSampleWrapper(std::string_view xml, size_t start, std::string_view wrapper,
                                   const std::vector<NamespaceBinding>& scope, const SampleReadLimits& limits,
                                   SampleSet* out);

// Appends code point `cp` (at most 0x10FFFF, not a surrogate: callers check) to `out` as 1 to 4 UTF-8 bytes.
// Used for character references here and by the service's UTF-16 transcoding. Thread-safe.
void AppendUtf8(uint32_t cp, std::string* out);

}  // namespace lather
