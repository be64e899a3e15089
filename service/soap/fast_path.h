// The fast path's reader: one forward pass over a request body that recognises the commonest shape of
// the hot operations' envelopes (Increment, HelloWorld, IncCounter, GetCounter) and nothing else. It says
// "yes, and here are the values" only when the bytes are of a shape gSOAP is certain to read the same way:
// an optional plain XML declaration, an Envelope whose attributes are namespace declarations only, no
// Header or an empty one, a Body without attributes, the operation element in urn:lather:v1 with its one child, plain
// values (a canonical xsd:int; a counter name of [A-Za-z0-9._:-]), white space between elements and
// nothing else: no comment, entity or character reference, CDATA, processing instruction, BOM or UTF-16.
// Anything else is "no": the caller serves the request with gSOAP, unchanged. The differential fuzzer
// (tests/fuzz/fast_path_diff_fuzz.cpp) holds the two to the same answers. Pure function; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace lather {

struct FastRequest {
  int soap_version = 0;     // 1 or 2, from the Envelope's namespace
  size_t operation = 5;     // index in kMetricOperations: 0 Increment, 1 HelloWorld, 2 IncCounter, 3 GetCounter
  int32_t value = 0;        // Increment
  std::string_view name;    // IncCounter, GetCounter: points into the body
  bool empty_header = false;  // an empty Header (<S:Header/>): gSOAP echoes one in its answer
};

// True and *out filled when `body` is a request of the shape above; false otherwise (*out unspecified).
bool ReadFastRequest(std::string_view body, FastRequest* out);

}  // namespace lather
