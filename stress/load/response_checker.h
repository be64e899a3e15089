// ResponseChecker: decides whether one response is a successful call: HTTP 200, well-formed XML
// (pugixml, parsed in place), a SOAP Body without a Fault, and the expected result. Also counts the
// payload bytes (the text of the Body's elements) so the report can split payload from envelope.
// An answer byte for byte like one that passed (its result's digits aside, where they depend on the
// call) is judged by that comparison instead of a second parse (KnownAnswer): the same verdict and
// payload, at a fraction of the CPU. One checker per thread; not thread-safe.
#pragma once

#include <cstdint>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <pugixml.hpp>

#include "client/wsdl/schema_validator.h"
#include "common/status.h"
#include "stress/load/known_answer.h"
#include "stress/measure/call_outcome.h"

namespace lather {

// --validate N: one response in N validated in full against a WSDL's schemas (libxml2), within a CPU
// budget: a thread validates only while its validations have cost at most `budget` (8%) of its other
// CPU, so the harness's CPU per call rises by less than 10% with the bookkeeping (the copy of the
// answer, the budget's clock readings) included. Shared by the threads; counters atomic
// (touched once per validation, not per call).
struct ValidationPlan {
  std::shared_ptr<const wsdl::SchemaValidator> validator;
  uint64_t every = 0;
  double budget = 0.08;
  std::atomic<uint64_t> validated{0}, invalid{0}, skipped{0};
  std::atomic<int64_t> cpu_ns{0};
};

struct Expectation {
  enum class Kind {
    kNone,        // any non-fault SOAP response
    kPlusOne,     // the "result" element equals n + 1 (Increment with value n)
    kEquals,      // the "result" element equals `text`
    kPositive,    // the "result" element is a positive integer
    kChildCount,  // the Body's wrapper holds `count` elements named "sample" inside "samples"
    kXPath,       // `xpath` (variables $n and $n1 = n + 1) evaluates to true on the document
    kSchema,      // the Body holds {element_ns}element_local with each of `required` among its children
  };
  Kind kind = Kind::kNone;
  std::string text;
  size_t count = 0;
  std::string xpath;
  std::string element_ns, element_local;  // kSchema; an empty local: the Body itself holds `required`
  std::vector<std::string> required;      // kSchema: local names of the required children
  std::shared_ptr<ValidationPlan> validation;  // any kind: --validate
};

class ResponseChecker {
 public:
  // InvalidArgument if the XPath does not compile.
  static Status Create(const Expectation& expectation, std::unique_ptr<ResponseChecker>* out);

  // Checks the response to call `n`. `body` may be modified (parsed in place). On failure, *detail
  // (if not null) says what was wrong. *payload_bytes gets the text bytes inside the Body.
  CallOutcome Check(int status, char* body, size_t size, uint64_t n, size_t* payload_bytes, std::string* detail);

 private:
  explicit ResponseChecker(const Expectation& expectation) : expectation_(expectation) {}

  // Whether this call's response is validated in full (one in `every`, within the CPU budget).
  bool ValidationDue();
  bool SchemaMatches(const pugi::xml_node& soap_body, const pugi::xml_node& wrapper) const;
  // The full check: parse, walk, compare. `raw_` holds the body as received when `validate` or `learn`.
  CallOutcome FullCheck(int status, char* body, size_t size, uint64_t n, bool validate, bool learn,
                        size_t* payload_bytes, std::string* detail);
  // Keeps the answer in raw_ (that passed, `result` its result element) as the known answer.
  void LearnAnswer(const char* body, const pugi::xml_node& result, int64_t expected, size_t payload_bytes);

  Expectation expectation_;
  uint64_t checked_ = 0;
  uint64_t due_ = 0;                 // validations that came due
  int64_t validation_ns_ = 0;        // this thread's time spent validating
  int64_t first_cpu_ns_ = -1;        // this thread's CPU at its first due validation
  int64_t last_cpu_ns_ = 0;          // ... and at the latest reading (every 64th due validation)
  std::string raw_;                  // the response as received, for the validator (parsing is in place)
  KnownAnswer known_;                // the last answer that passed, for a byte comparison
  pugi::xml_document document_;
  pugi::xpath_variable_set variables_;
  std::unique_ptr<pugi::xpath_query> query_;
};

// Sum of the text (PCDATA and CDATA) bytes under `node`.
size_t TextBytes(const pugi::xml_node& node);

}  // namespace lather
