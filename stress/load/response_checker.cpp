#include "stress/load/response_checker.h"

#include <charconv>
#include <cstring>

#include "client/wsdl/source_documents.h"
#include "common/clock.h"

namespace lather {
namespace {

const char* LocalName(const char* name) {
  const char* colon = std::strrchr(name, ':');
  return colon != nullptr ? colon + 1 : name;
}

bool LocalNameIs(const pugi::xml_node& node, const char* name) { return std::strcmp(LocalName(node.name()), name) == 0; }

pugi::xml_node FirstElementChild(const pugi::xml_node& node) {
  for (pugi::xml_node child = node.first_child(); child; child = child.next_sibling()) {
    if (child.type() == pugi::node_element) return child;
  }
  return {};
}

pugi::xml_node ChildNamed(const pugi::xml_node& node, const char* local_name) {
  for (pugi::xml_node child = node.first_child(); child; child = child.next_sibling()) {
    if (child.type() == pugi::node_element && LocalNameIs(child, local_name)) return child;
  }
  return {};
}

bool ParseInt64(const char* text, int64_t* value) {
  if (*text == '\0') return false;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *value = v;
  return true;
}

}  // namespace

size_t TextBytes(const pugi::xml_node& node) {
  size_t bytes = 0;
  for (pugi::xml_node child = node.first_child(); child; child = child.next_sibling()) {
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata) {
      bytes += std::strlen(child.value());
    } else if (child.type() == pugi::node_element) {
      bytes += TextBytes(child);
    }
  }
  return bytes;
}

Status ResponseChecker::Create(const Expectation& expectation, std::unique_ptr<ResponseChecker>* out) {
  std::unique_ptr<ResponseChecker> checker(new ResponseChecker(expectation));
  if (expectation.kind == Expectation::Kind::kXPath) {
    checker->variables_.add("n", pugi::xpath_type_number);
    checker->variables_.add("n1", pugi::xpath_type_number);
    try {
      checker->query_ = std::make_unique<pugi::xpath_query>(expectation.xpath.c_str(), &checker->variables_);
    } catch (const pugi::xpath_exception& e) {
      return Status::InvalidArgument("--expect '" + expectation.xpath + "': " + e.what());
    }
    if (!*checker->query_) {
      return Status::InvalidArgument("--expect '" + expectation.xpath + "': " + checker->query_->result().description());
    }
  }
  *out = std::move(checker);
  return Status::Ok();
}

bool ResponseChecker::ValidationDue() {
  const ValidationPlan* plan = expectation_.validation.get();
  if (plan == nullptr || plan->every == 0 || ++checked_ % plan->every != 0) return false;
  // The thread's CPU clock is a system call (1-2 us here): read once per 64 due validations, so that the
  // budget's own bookkeeping stays far below the budget. The validations are timed on the steady clock
  // (vDSO), which for this pure CPU work reads what the thread clock would.
  if (due_++ % 64 == 0) {
    last_cpu_ns_ = ThreadCpuNanos();
    if (first_cpu_ns_ < 0) first_cpu_ns_ = last_cpu_ns_;
  }
  const double other = static_cast<double>(last_cpu_ns_ - first_cpu_ns_ - validation_ns_);
  if (validation_ns_ > 0 && static_cast<double>(validation_ns_) > plan->budget * other) {
    expectation_.validation->skipped.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

bool ResponseChecker::SchemaMatches(const pugi::xml_node& soap_body, const pugi::xml_node& wrapper) const {
  pugi::xml_node top = soap_body;
  if (!expectation_.element_local.empty()) {
    if (!wrapper || !LocalNameIs(wrapper, expectation_.element_local.c_str()) ||
        wsdl::NamespaceOfNode(wrapper) != expectation_.element_ns) {
      return false;
    }
    top = wrapper;
  }
  for (const std::string& child : expectation_.required) {
    if (!ChildNamed(top, child.c_str())) return false;
  }
  return true;
}

CallOutcome ResponseChecker::Check(int status, char* body, size_t size, uint64_t n, size_t* payload_bytes,
                                   std::string* detail) {
  *payload_bytes = 0;
  const bool validate = status == 200 && ValidationDue();
  // What the full check concludes depends on the status, the bytes and (Increment) n + 1 alone; an XPath
  // may depend on n in any way, so its answers are always parsed.
  const bool reusable = status == 200 && !validate && expectation_.kind != Expectation::Kind::kXPath;
  const int64_t expected = static_cast<int64_t>(n) + 1;  // what kPlusOne's digits must say
  if (reusable && known_.Matches(body, size, expected, payload_bytes)) return CallOutcome::kOk;
  return FullCheck(status, body, size, n, validate, reusable && known_.WouldLearn(size), payload_bytes,
                   detail);
}

void ResponseChecker::LearnAnswer(const char* body, const pugi::xml_node& result, int64_t expected,
                                  size_t payload_bytes) {
  if (expectation_.kind != Expectation::Kind::kPlusOne) {
    return known_.Learn(raw_.data(), raw_.size(), raw_.size(), 0, payload_bytes);  // the whole body
  }
  // The result's text, parsed in place, lies where it was received: kept only when it is exactly the
  // expected value's digits (not " 42", "042" or an entity), so that another call's digits there parse
  // to that call's value.
  char digits[24];
  const size_t digits_size =
      static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, expected).ptr - digits);
  const char* text = result.text().get();
  // Not in place: the document was converted from another encoding.
  if (text < body || text >= body + raw_.size()) return known_.Unusable();
  const size_t at = static_cast<size_t>(text - body);
  if (std::strlen(text) != digits_size || raw_.compare(at, digits_size, digits, digits_size) != 0 ||
      at + digits_size >= raw_.size() || raw_[at + digits_size] != '<') {
    return known_.Unusable();
  }
  known_.Learn(raw_.data(), raw_.size(), at, digits_size, payload_bytes);
}

CallOutcome ResponseChecker::FullCheck(int status, char* body, size_t size, uint64_t n, bool validate,
                                       bool learn, size_t* payload_bytes, std::string* detail) {
  const int64_t copy_start = validate ? MonotonicNanos() : 0;
  // The parse below is in place: the validator, and the known answer, read this copy.
  if (validate || learn) raw_.assign(body, size);
  const pugi::xml_parse_result parsed = document_.load_buffer_inplace(body, size, pugi::parse_default);
  if (!parsed) {
    if (status != 200) {
      if (detail != nullptr) *detail = "HTTP " + std::to_string(status);
      return CallOutcome::kStatus;
    }
    if (detail != nullptr) *detail = std::string("not well-formed XML: ") + parsed.description();
    return CallOutcome::kMalformed;
  }
  const pugi::xml_node envelope = document_.document_element();
  const pugi::xml_node soap_body = ChildNamed(envelope, "Body");
  const pugi::xml_node wrapper = FirstElementChild(soap_body);
  if (wrapper && LocalNameIs(wrapper, "Fault")) {
    // A SOAP fault comes with the binding's statuses: 500 (and 400, a SOAP 1.2 Sender); 200 from lenient
    // servers. Any other status (404, 405, 413, 503 ...) is an HTTP refusal whose body happens to be a
    // Fault: a status failure, with the fault's reason as its detail.
    const bool binding_status = status == 200 || status == 500 || status == 400;
    if (detail != nullptr) {
      pugi::xml_node reason = ChildNamed(wrapper, "faultstring");
      if (!reason) reason = ChildNamed(ChildNamed(wrapper, "Reason"), "Text");
      *detail = binding_status ? std::string(reason.text().get())
                               : "HTTP " + std::to_string(status) + ": " + reason.text().get();
    }
    return binding_status ? CallOutcome::kFault : CallOutcome::kStatus;
  }
  if (status != 200) {
    if (detail != nullptr) *detail = "HTTP " + std::to_string(status);
    return CallOutcome::kStatus;
  }
  if (!LocalNameIs(envelope, "Envelope") || !soap_body) {
    if (detail != nullptr) *detail = "not a SOAP envelope";
    return CallOutcome::kMalformed;
  }
  *payload_bytes = TextBytes(soap_body);

  const pugi::xml_node result = ChildNamed(wrapper, "result");
  int64_t value = 0;
  bool ok = true;
  switch (expectation_.kind) {
    case Expectation::Kind::kNone:
      break;
    case Expectation::Kind::kPlusOne:
      ok = ParseInt64(result.text().get(), &value) && value == static_cast<int64_t>(n) + 1;
      break;
    case Expectation::Kind::kEquals:
      ok = result && expectation_.text == result.text().get();
      break;
    case Expectation::Kind::kPositive:
      ok = ParseInt64(result.text().get(), &value) && value > 0;
      break;
    case Expectation::Kind::kChildCount: {
      size_t count = 0;
      for (pugi::xml_node s = ChildNamed(wrapper, "samples").first_child(); s; s = s.next_sibling()) {
        if (s.type() == pugi::node_element && LocalNameIs(s, "sample")) ++count;
      }
      ok = count == expectation_.count;
      break;
    }
    case Expectation::Kind::kXPath:
      variables_.set("n", static_cast<double>(n));
      variables_.set("n1", static_cast<double>(n) + 1);
      ok = query_->evaluate_boolean(document_);
      break;
    case Expectation::Kind::kSchema:
      ok = SchemaMatches(soap_body, wrapper);
      if (!ok && detail != nullptr) {
        *detail = "the answer is not " + (expectation_.element_local.empty() ? std::string("the output message")
                                                                              : expectation_.element_local) +
                  " with its required children, as the WSDL says";
        return CallOutcome::kMismatch;
      }
      break;
  }
  if (ok && validate) {
    ValidationPlan& plan = *expectation_.validation;
    const Status valid = plan.validator->Validate(raw_.data(), raw_.size());
    const int64_t spent = MonotonicNanos() - copy_start;  // the copy, the parse and check, the validation
    validation_ns_ += spent;
    plan.cpu_ns.fetch_add(spent, std::memory_order_relaxed);
    plan.validated.fetch_add(1, std::memory_order_relaxed);
    if (!valid.ok()) {
      plan.invalid.fetch_add(1, std::memory_order_relaxed);
      if (detail != nullptr) *detail = "XSD validation: " + valid.message();
      return CallOutcome::kMismatch;
    }
  }
  if (!ok) {
    if (detail != nullptr) {
      *detail = expectation_.kind == Expectation::Kind::kXPath
                    ? "--expect is false for call " + std::to_string(n)
                    : "unexpected result '" + std::string(result.text().get()) + "' for call " + std::to_string(n);
    }
    return CallOutcome::kMismatch;
  }
  if (learn) LearnAnswer(body, result, static_cast<int64_t>(n) + 1, *payload_bytes);
  return CallOutcome::kOk;
}

}  // namespace lather
