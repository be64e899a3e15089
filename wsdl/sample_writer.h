// The hand-written writer of the EchoDataSamples payload: appends a SampleSet as XML straight to a
// string, in the contract's element order, text escaped, doubles in their shortest round-trip form
// (as wsdl/lather_double.cpp writes them for gSOAP). A set marked `graph` is written in id/ref form:
// a sample referred to more than once is written in full at its first place with an id and as an empty
// element with a reference elsewhere (SOAP 1.1: id="_1" / href="#_1"; SOAP 1.2: SOAP-ENC:id="_1" /
// SOAP-ENC:ref="_1", as gSOAP writes them); a tree is written plain. Never recurses. Thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "wsdl/data_sample.h"

namespace lather {

struct SampleWriteForm {
  std::string_view prefix = "l";             // the prefix bound to urn:lather:v1 where the text goes
  std::string_view encoding_prefix = "SOAP-ENC";  // bound to the SOAP encoding namespace (graphs, SOAP 1.2)
  int soap_version = 1;                      // 1 or 2: how ids and references are spelled
};

// Appends <prefix:wrapper><prefix:samples>...</prefix:samples></prefix:wrapper> for `set`.
void WriteSampleWrapper(const SampleSet& set, std::string_view wrapper, const SampleWriteForm& form,
                        std::string* out);

// Appends `text` with the characters XML text must escape (&, <, > and carriage return) escaped.
void AppendEscapedText(std::string_view text, std::string* out);

}  // namespace lather
