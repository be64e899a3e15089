// ResponseChecker: decides whether one response is a successful call: HTTP 200, well-formed XML
// (pugixml, parsed in place), a SOAP Body without a Fault, and the expected result. Also counts the
// payload bytes (the text of the Body's elements) so the report can split payload from envelope.
// One checker per thread; not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <pugixml.hpp>

#include "common/status.h"
#include "stress/measure/call_outcome.h"

namespace lather {

struct Expectation {
  enum class Kind {
    kNone,        // any non-fault SOAP response
    kPlusOne,     // the "result" element equals n + 1 (Increment with value n)
    kEquals,      // the "result" element equals `text`
    kPositive,    // the "result" element is a positive integer
    kChildCount,  // the Body's wrapper holds `count` elements named "sample" inside "samples"
    kXPath,       // `xpath` (variables $n and $n1 = n + 1) evaluates to true on the document
  };
  Kind kind = Kind::kNone;
  std::string text;
  size_t count = 0;
  std::string xpath;
};

class ResponseChecker {
 public:
  // InvalidArgument if the XPath does not compile.
  static Status Create(const Expectation& expectation, std::unique_ptr<ResponseChecker>* out);

  // Checks the response to call `n`. `body` is modified (parsed in place). On failure, *detail
  // (if not null) says what was wrong. *payload_bytes gets the text bytes inside the Body.
  CallOutcome Check(int status, char* body, size_t size, uint64_t n, size_t* payload_bytes, std::string* detail);

 private:
  explicit ResponseChecker(const Expectation& expectation) : expectation_(expectation) {}

  Expectation expectation_;
  pugi::xml_document document_;
  pugi::xpath_variable_set variables_;
  std::unique_ptr<pugi::xpath_query> query_;
};

// Sum of the text (PCDATA and CDATA) bytes under `node`.
size_t TextBytes(const pugi::xml_node& node);

}  // namespace lather
