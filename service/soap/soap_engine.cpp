#include "service/soap/soap_engine.h"


#include <algorithm>
#include <charconv>
#include <cstring>
#include <exception>
#include <iterator>
#include <vector>

#include "common/huge_pages.h"
#include "common/log.h"
#include "common/log_limiter.h"
#include "service/memory/memory_return.h"
#include "service/soap/envelope_rules.h"
#include "service/soap/fault_envelope.h"
#include "service/soap/markup_limits.h"
#include "service/soap/xml_prolog.h"
#include "soapLatherSoapService.h"
#include "wsdl/envelope_scan.h"
#include "wsdl/sample_reader.h"
#include "wsdl/soap_runtime.h"

namespace lather {
namespace {

// SOAP-ENV answers in the version of the request (1.2 first, 1.1 matched by the pattern). gSOAP
// requires SOAP-ENC at index 1 (it rewrites that entry when the version changes); xsi is kept for
// xsi:nil and xsi:type in requests. The generated table's xsd entry is left out.
const Namespace kResponseNamespaces[] = {
    {"SOAP-ENV", "http://www.w3.org/2003/05/soap-envelope", "http://schemas.xmlsoap.org/soap/envelope/", nullptr},
    {"SOAP-ENC", "http://www.w3.org/2003/05/soap-encoding", "http://schemas.xmlsoap.org/soap/encoding/", nullptr},
    {"xsi", "http://www.w3.org/2001/XMLSchema-instance", "http://www.w3.org/*/XMLSchema-instance", nullptr},
    {"l", "urn:lather:v1", nullptr, nullptr},
    // WS-Security: matched in requests (third column) but, with no second column, declared in a
    // response only when the request used it (gSOAP then fills the fourth; Finish() clears it), so
    // other responses do not carry an unused xmlns:wsse.
    {"wsse", nullptr, "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd", nullptr},
    {nullptr, nullptr, nullptr, nullptr}};
// The index of the wsse entry in kResponseNamespaces (and so in soap->local_namespaces).
size_t NamespaceIndex(std::string_view id) {
  size_t i = 0;
  while (kResponseNamespaces[i].id != nullptr && id != kResponseNamespaces[i].id) ++i;
  return i;
}
const size_t kWsseNamespaceIndex = NamespaceIndex("wsse");

constexpr const char* kOperationNames[] = {"Increment", "HelloWorld", "IncCounter", "GetCounter",
                                           "EchoDataSamples"};

int TooMany(struct soap* soap, const char* element, size_t count, size_t limit) {
  const std::string reason = "a list holds " + std::to_string(count) + " <" + element +
                             "> elements; the service accepts at most " + std::to_string(limit) +
                             " (its --max-occurs)";
  return soap_sender_fault(soap, soap_strdup(soap, reason.c_str()), nullptr);
}

// Validates a sample tree without recursion: every dateTime (the typemap keeps them as strings) and
// the length of every list (gSOAP's generated std::vector readers do not check soap->maxoccurs).
int CheckSamples(struct soap* soap, const l__DataSampleList* root, size_t max_occurs) {
  std::vector<const l__DataSampleList*> pending{root};
  while (!pending.empty()) {
    const l__DataSampleList* list = pending.back();
    pending.pop_back();
    if (list == nullptr) continue;
    if (list->sample.size() > max_occurs) return TooMany(soap, "sample", list->sample.size(), max_occurs);
    for (const l__DataSample* sample : list->sample) {
      if (sample == nullptr) continue;
      if (!IsXsdDateTime(sample->dateOfBirth)) {
        std::string reason = "dateOfBirth '" + sample->dateOfBirth.substr(0, 64) + "' is not an xsd:dateTime";
        return soap_sender_fault(soap, soap_strdup(soap, reason.c_str()), nullptr);
      }
      for (const l__StringList* strings : {sample->contactNos, sample->companiesWorkedFor}) {
        if (strings != nullptr && strings->item.size() > max_occurs) {
          return TooMany(soap, "item", strings->item.size(), max_occurs);
        }
      }
      pending.push_back(sample->children);
    }
  }
  return SOAP_OK;
}

}  // namespace

// The operation named by an action such as "urn:lather:v1#Increment" or "urn:lather:v1/Increment";
// empty when the action names none of ours.
std::string_view OperationOfAction(std::string_view action) {
  constexpr std::string_view kPrefix = "urn:lather:v1";
  if (action.substr(0, kPrefix.size()) != kPrefix || action.size() < kPrefix.size() + 2) return {};
  const char sep = action[kPrefix.size()];
  if (sep != '#' && sep != '/') return {};
  const std::string_view name = action.substr(kPrefix.size() + 1);
  for (const char* op : kOperationNames) {
    if (name == op) return name;
  }
  return {};
}

size_t SoapStackBytes(const SoapEngineLimits& limits) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  constexpr size_t kPerLevel = 2048;
#else
  constexpr size_t kPerLevel = 512;
#endif
  const size_t depth = static_cast<size_t>(std::clamp(limits.max_xml_depth, 1, kMaxXmlDepth));
  return std::max<size_t>(size_t{1} << 20, (size_t{512} << 10) + depth * kPerLevel);
}

// Marks the start and the return of an operation on its engine (parse and serialize times).
class OperationClock {
 public:
  explicit OperationClock(SoapEngine* engine) : engine_(engine) {
    engine_->operation_start_ = SoapEngine::Clock::now();
  }
  ~OperationClock() { engine_->operation_end_ = SoapEngine::Clock::now(); }
  OperationClock(const OperationClock&) = delete;
  OperationClock& operator=(const OperationClock&) = delete;

 private:
  SoapEngine* engine_;
};

// The generated service with our operations plugged in. Each method converts between gSOAP types
// and plain C++ and turns a Status into a fault.
class SoapEngine::Handler : public LatherSoapService {
 public:
  Handler(struct soap* context, SoapEngine* engine) : LatherSoapService(context), engine_(engine) {}

  LatherSoapService* copy() override { return nullptr; }  // never copied: one handler per engine

  // The generated dispatch() calls this before every operation to reset the modes and the
  // namespace table, which also resets soap->version to the table's default (1.2) after the
  // envelope told it otherwise. The base constructor has already done the initialisation once.
  void LatherSoapService_init(soap_mode, soap_mode) override {}

  // gSOAP hands an operation a null request when its element came with xsi:nil="true" (none is nillable in the
  // contract; found by tests/fuzz/fast_path_diff: <IncCounter xsi:nil="true"/> crashed the worker): the sender's
  // error, answered with a Sender fault.
  int NilRequest(const char* operation) {
    return engine_->Fault(Status::InvalidArgument(std::string(operation) + " came with xsi:nil=\"true\": the element "
                                                  "is not nillable; it carries the operation's parameters"));
  }

  int Increment(_l__Increment* request, _l__IncrementResponse& response) override {
    const OperationClock clock(engine_);
    if (int err = engine_->CheckAction("Increment")) return err;
    if (int err = engine_->Authorize(0)) return err;
    if (request == nullptr) return NilRequest("Increment");
    return engine_->Fault(engine_->operations_->Increment(request->value, &response.result));
  }

  int HelloWorld(_l__HelloWorld*, _l__HelloWorldResponse& response) override {
    const OperationClock clock(engine_);
    if (int err = engine_->CheckAction("HelloWorld")) return err;
    if (int err = engine_->Authorize(1)) return err;
    response.result = Operations::HelloWorld();
    return SOAP_OK;
  }

  int IncCounter(_l__IncCounter* request, _l__IncCounterResponse& response) override {
    const OperationClock clock(engine_);
    if (engine_->active_injection_.armed) {
      // The writer's answer to this very call (set_increments_to_writer): its action and credentials were
      // checked when it was read the first time (the credential cache could have dropped them since).
      engine_->active_injection_.armed = false;
      engine_->operation_ = kIncCounterIndex;  // what CheckAction records, for the metrics
      response.result = engine_->active_injection_.value;
      return engine_->Fault(engine_->active_injection_.status);
    }
    if (int err = engine_->CheckAction("IncCounter")) return err;
    if (int err = engine_->Authorize(2)) return err;
    if (request == nullptr) return NilRequest("IncCounter");
    if (engine_->increments_to_writer_) {
      const Status checked =
          Operations::CheckIncrement(request->name, engine_->has_message_id_ ? &engine_->message_id_ : nullptr);
      if (!checked.ok()) return engine_->Fault(checked);
      engine_->pending_increment_.name = request->name;
      engine_->pending_increment_.message_id = engine_->has_message_id_ ? engine_->message_id_ : std::string();
      engine_->pending_increment_.plain_version = soap->header == nullptr ? soap->version : 0;
      engine_->increment_ = true;
      return engine_->Defer();
    }
    if (engine_->defer_blocking_) return engine_->Defer();
    int64_t value = 0;
    const std::string* message_id = engine_->has_message_id_ ? &engine_->message_id_ : nullptr;
    Status s = engine_->operations_->IncCounter(request->name, message_id, &value);
    response.result = value;
    return engine_->Fault(s);
  }

  int GetCounter(_l__GetCounter* request, _l__GetCounterResponse& response) override {
    const OperationClock clock(engine_);
    if (engine_->active_injection_.armed) {  // the store's answer, read already (the fast path, a capture)
      engine_->active_injection_.armed = false;
      engine_->operation_ = 3;
      response.result = engine_->active_injection_.value;
      return engine_->Fault(engine_->active_injection_.status);
    }
    if (int err = engine_->CheckAction("GetCounter")) return err;
    if (int err = engine_->Authorize(3)) return err;
    if (request == nullptr) return NilRequest("GetCounter");
    if (engine_->defer_blocking_) return engine_->Defer();
    int64_t value = 0;
    Status s = engine_->operations_->GetCounter(request->name, &value);
    response.result = value;
    return engine_->Fault(s);
  }

  int EchoDataSamples(_l__EchoDataSamples* request, _l__EchoDataSamplesResponse& response) override {
    const OperationClock clock(engine_);
    if (int err = engine_->CheckAction("EchoDataSamples")) return err;
    if (int err = engine_->Authorize(4)) return err;
    if (request == nullptr) return NilRequest("EchoDataSamples");
    if (int err = CheckSamples(soap, request->samples, soap->maxoccurs)) return err;
    // The response shares the request's objects: both live until soap_destroy after sending.
    response.samples = request->samples;
    return SOAP_OK;
  }

  // wsdl2h also declares the SOAP 1.2 binding's operations (suffix _); dispatch() never reaches
  // them (the 1.1 ones match the same elements first) but they must exist: same behaviour.
  int Increment_(_l__Increment* q, _l__IncrementResponse& r) override { return Increment(q, r); }
  int HelloWorld_(_l__HelloWorld* q, _l__HelloWorldResponse& r) override { return HelloWorld(q, r); }
  int IncCounter_(_l__IncCounter* q, _l__IncCounterResponse& r) override { return IncCounter(q, r); }
  int GetCounter_(_l__GetCounter* q, _l__GetCounterResponse& r) override { return GetCounter(q, r); }
  int EchoDataSamples_(_l__EchoDataSamples* q, _l__EchoDataSamplesResponse& r) override {
    return EchoDataSamples(q, r);
  }

 private:
  SoapEngine* engine_;
};

const char* SoapEngine::OperationName(size_t operation) { return kOperationNames[operation]; }

SoapEngine::SoapEngine(Operations* operations, const SoapEngineLimits& limits, bool defer_blocking)
    : operations_(operations),
      authenticator_(limits.authenticator),
      auth_scope_(limits.auth_scope),
      defer_blocking_(defer_blocking),
      read_message_id_(limits.read_message_id),
      max_string_(limits.max_string),
      fast_path_(limits.fast_path),
      sample_codec_(limits.sample_codec) {
  // Plain mode: gSOAP reads and writes the XML only; the connection code does HTTP.
  // Strict: missing or unexpected elements are faults, not silently defaulted.
  InitSoapRuntime();  // loops, pool and connection threads create engines concurrently
  soap_ = soap_new2(SOAP_ENC_PLAIN | SOAP_XML_STRICT | SOAP_C_UTFSTRING,
                    SOAP_ENC_PLAIN | SOAP_IO_BUFFER | SOAP_C_UTFSTRING);
  soap_->user = this;
  soap_->frecv = &SoapEngine::Receive;
  soap_->fsend = &SoapEngine::Send;
  soap_->fpoll = [](struct soap*) { return static_cast<int>(SOAP_OK); };
  soap_->fclose = [](struct soap*) { return static_cast<int>(SOAP_OK); };
  soap_->fignore = &SoapEngine::Ignore;
  soap_->fpreparefinalrecv = &SoapEngine::AfterEnvelope;
  // Header blocks with this SOAP 1.2 role (or no role, or "next") are addressed to the service.
  soap_->actor = "http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver";
  soap_->maxlevel = static_cast<unsigned short>(std::clamp(limits.max_xml_depth, 1, kMaxXmlDepth));
  soap_->maxoccurs = limits.max_occurs;
  // gSOAP stops reading a string value at this length (SOAP_LENGTH) instead of buffering all of it.
  soap_->maxlength = static_cast<long>(std::min<size_t>(limits.max_string, 0x7FFFFFFF));
  handler_ = std::make_unique<Handler>(soap_, this);
  // Fewer namespaces: every entry of the table is written into each Envelope's start tag, and no
  // literal response uses xsd.
  soap_set_namespaces(soap_, kResponseNamespaces);
}

SoapEngine::~SoapEngine() {
  handler_.reset();
  soap_destroy(soap_);
  soap_end(soap_);
  soap_free(soap_);
}

size_t SoapEngine::Receive(struct soap* soap, char* buffer, size_t length) {
  auto* engine = static_cast<SoapEngine*>(soap->user);
  const std::string_view body = engine->call_->body;
  const size_t n = std::min(length, body.size() - engine->read_offset_);
  std::memcpy(buffer, body.data() + engine->read_offset_, n);
  engine->read_offset_ += n;
  return n;
}

int SoapEngine::Send(struct soap* soap, const char* data, size_t length) {
  static_cast<SoapEngine*>(soap->user)->out_->append(data, length);
  return SOAP_OK;
}

int SoapEngine::CheckAction(const char* operation) {
  for (size_t i = 0; i < std::size(kOperationNames); ++i) {
    if (std::strcmp(kOperationNames[i], operation) == 0) operation_ = i;
  }
  const std::string_view named = OperationOfAction(call_->action);
  if (named.empty() || named == operation) return SOAP_OK;
  std::string reason = "the action names operation " + std::string(named) + " but the Body holds " + operation;
  return soap_sender_fault(soap_, soap_strdup(soap_, reason.c_str()), nullptr);
}

int SoapEngine::Defer() {
  deferred_ = true;
  return soap_->error = SOAP_STOP;
}

int SoapEngine::Fault(const Status& status) {
  if (status.ok()) return SOAP_OK;
  const char* reason = soap_strdup(soap_, status.message().c_str());
  if (status.kind() == Status::Kind::kInvalidArgument) return soap_sender_fault(soap_, reason, nullptr);
  if (status.kind() == Status::Kind::kUnavailable) {
    // A store that cannot serve now: the client should retry soon (503 + Retry-After), not give up.
    // The database's own words (addresses, statements) stay in the log; the client learns what to do.
    store_unavailable_ = true;
    LogClientCausedLine("counter store unavailable: " + status.message());
    return soap_receiver_fault(soap_, "the counter store is unavailable; retry later", nullptr);
  }
  LogLine("operation failed: " + status.ToString());
  return soap_receiver_fault(soap_, reason, nullptr);
}

SoapOutcome SoapEngine::Serve(const SoapCall& call, std::string* response_body) {
  serve_start_ = Clock::now();
  store_unavailable_ = false;
  operation_start_ = operation_end_ = Clock::time_point{};
  call_ = &call;
  envelope_version_ = 0;
  version_mismatch_ = false;
  unknown_envelope_ = false;
  operation_ = 5;
  deferred_ = false;
  increment_ = false;
  active_injection_ = std::move(injection_);
  injection_.armed = false;
  // The writer's answer to an IncCounter read once already: its bytes passed the pre-scans then and have not
  // changed since (they stay in the connection's buffer until answered), so they are not scanned again.
  const bool reread = active_injection_.armed;
  auth_failed_ = false;
  security_ = nullptr;
  has_message_id_ = false;
  read_offset_ = 0;
  not_understood_local_.clear();
  out_ = response_body;
  // An echo's response is about as long as its request: one allocation instead of a doubling series
  // (and never less than doubling, should a caller append many responses to one string).
  const size_t room = response_body->size() + call.body.size() + 1024;
  ReserveWithHugePages(response_body, room);  // a large echo's answer in huge pages (common/huge_pages.h)
  soap_->socket = SOAP_INVALID_SOCKET;
  soap_->recvfd = -1;
  soap_->sendfd = -1;
  soap_->buflen = soap_->bufidx = 0;
  soap_->error = SOAP_OK;
  if (fast_path_ && !reread) {
    SoapOutcome fast;
    if (FastServe(call, response_body, &fast)) {
      call_ = nullptr;
      out_ = nullptr;
      return fast;
    }
  }
  try {
    const XmlProlog prolog = ScanXmlProlog(call.body);
    // With the sample codec the generic pre-scans stop at the Body's content: if the Body holds an
    // echo, the sample reader makes the same checks in its one pass; otherwise the rest is scanned
    // before gSOAP reads it.
    const size_t body_content = sample_codec_ ? FindBodyContent(call.body, &scope_) : std::string_view::npos;
    if (prolog.has_doctype) {
      soap_set_version(soap_, static_cast<short>(call.content_type_version));
      soap_sender_fault(soap_, "a DTD (<!DOCTYPE>) is not allowed in a SOAP message", nullptr);
    } else if (defer_blocking_ && !reread && body_content != std::string_view::npos &&
               ((!increments_to_writer_ && NextElementIs(call.body, body_content, "IncCounter", scope_)) ||
                NextElementIs(call.body, body_content, "GetCounter", scope_))) {
      // A call for the pool is read there whole (and faulted there if it must be): reading it here as well
      // would parse it twice. (An IncCounter for the writer is read here: the writer takes its name.)
      Defer();
    } else if ((reread || PreScan(call.body.substr(0, body_content))) && BeginServe() == SOAP_OK) {
      envelope_version_ = soap_->version;
      if (soap_->version == 0) {
        RefuseNonEnvelope(prolog.root_name);
      } else if (soap_->version != call.content_type_version) {
        // The binding (its Content-Type) and the envelope disagree: answered with a SOAP 1.1 VersionMismatch
        // fault (SOAP 1.2 part 1, appendix A), in Finish().
        version_mismatch_ = true;
        soap_->error = SOAP_VERSIONMISMATCH;
      } else if (!RefuseEncodingStyle(body_content) && CheckUnprocessedSecurity() == SOAP_OK) {
        if (body_content == std::string_view::npos) {
          handler_->dispatch();
        } else if (ReadPosition() == body_content && NextElementIs(call.body, body_content, "EchoDataSamples", scope_)) {
          ServeEcho(body_content);
        } else if (reread || PreScan(call.body.substr(body_content))) {
          handler_->dispatch();
        }
      }
    }
  } catch (const std::exception& e) {
    LogLine(std::string("exception in a SOAP call: ") + e.what());
    soap_receiver_fault(soap_, "internal error", nullptr);
  } catch (...) {
    LogLine("unknown exception in a SOAP call");
    soap_receiver_fault(soap_, "internal error", nullptr);
  }
  if (soap_->error == SOAP_LEVEL) {  // gSOAP's own text says "increase maxlevel": say it for our users
    const std::string reason = "the XML nests deeper than " + std::to_string(soap_->maxlevel) +
                               " levels (the service's --max-depth)";
    soap_sender_fault(soap_, soap_strdup(soap_, reason.c_str()), nullptr);
  }
  SoapOutcome outcome = Finish();
  outcome.reread = reread;
  return outcome;
}

bool SoapEngine::PreScan(std::string_view part) {
  const auto refuse = [this](const char* reason) {
    soap_set_version(soap_, static_cast<short>(call_->content_type_version));
    soap_sender_fault(soap_, soap_strdup(soap_, reason), nullptr);
    return false;
  };
  if (const std::string_view problem = CharacterProblem(part); !problem.empty()) {
    return refuse(("the request holds " + std::string(problem)).c_str());
  }
  const MarkupCounts markup =
      CountMarkup(part, kMaxAttributesPerElement, kMaxNameBytes, part.data() == call_->body.data());
  if (markup.most_attributes > kMaxAttributesPerElement) {
    return refuse("an element has more than 256 attributes or namespace declarations");
  }
  if (markup.longest_name > kMaxNameBytes) return refuse("an element or attribute name is longer than 1000 bytes");
  if (!markup.processing_instruction.empty()) {
    std::string target;  // its target, as printable ASCII
    for (const char c : markup.processing_instruction.substr(2)) {
      if (c <= ' ' || c >= 127) break;
      target.push_back(c);
    }
    return refuse(("the request holds a processing instruction (<?" + target +
                   " ...?>): a SOAP message must not contain any (SOAP 1.1 section 3, WS-I BP 1.1 R1009, SOAP 1.2 "
                   "part 1 section 5)")
                      .c_str());
  }
  if (!markup.reference.empty()) {
    // The gSOAP runtime is built WITH_NOIDREF (wsdl/CMakeLists.txt, docs/contract.md): without this
    // check a reference reads as an empty element and fails with a misleading occurrence fault. Only
    // the sample codec reads id/ref graphs (EchoDataSamples).
    const std::string where = sample_codec_ ? "only EchoDataSamples' samples may be shared or cyclic (id/ref)"
                                            : "this service runs with --echo-codec gsoap, which reads trees only";
    return refuse(("the request refers to an element by its '" + std::string(markup.reference.substr(0, 32)) +
                   "' attribute (a multi-reference graph): " + where + "; send the content as a tree")
                      .c_str());
  }
  return true;
}

size_t SoapEngine::ReadPosition() const {
  if (soap_->ahead != 0) return std::string_view::npos;  // a character read and put back: not a byte offset
  return read_offset_ - soap_->buflen + soap_->bufidx;
}

bool SoapEngine::WriteIncrementAnswer(int version, int64_t value, std::string* body) {
  if (version != 1 && version != 2) return false;
  const AnswerTemplate& answer = FastAnswer(kIncCounterIndex, version);
  if (!answer.ok) return false;
  char digits[24];
  const char* end = std::to_chars(digits, digits + sizeof digits, value).ptr;  // never fails: 24 > 20 digits
  body->append(answer.before).append(digits, static_cast<size_t>(end - digits)).append(answer.after);
  return true;
}

int SoapEngine::BeginServe() {
  // soap_begin_serve() without its soap_send_fault(): Finish() sends the one fault.
  soap_begin(soap_);
  if (soap_begin_recv(soap_) || soap_envelope_begin_in(soap_)) return soap_->error;
  const int header_error = soap_recv_header(soap_);
  TakeSecurityHeader(header_error == SOAP_OK);
  if (header_error != SOAP_OK || soap_body_begin_in(soap_)) return soap_->error;
  return SOAP_OK;
}

void SoapEngine::RefuseNonEnvelope(std::string_view root_name) {
  soap_set_version(soap_, static_cast<short>(call_->content_type_version));
  const size_t colon = root_name.find(':');
  const std::string_view local = colon == std::string_view::npos ? root_name : root_name.substr(colon + 1);
  if (local == "Envelope") {
    soap_->error = SOAP_VERSIONMISMATCH;  // an Envelope in a namespace that is neither 1.1 nor 1.2
    unknown_envelope_ = true;
    return;
  }
  std::string reason = root_name.empty()
      ? std::string("the request is not a well-formed XML document")
      : "the document element <" + std::string(root_name.substr(0, 64)) + "> is not a SOAP Envelope";
  soap_sender_fault(soap_, soap_strdup(soap_, reason.c_str()), nullptr);
}

SoapOutcome SoapEngine::Finish() {
  SoapOutcome outcome;
  const Clock::time_point finish_start = Clock::now();
  if (deferred_) {
    out_->clear();
    outcome.deferred = true;
    outcome.increment = increment_;
  } else if (soap_->error != SOAP_OK) {
    // A fault speaks the request's envelope version, or the Content-Type's when no envelope was read.
    const int version = envelope_version_ != 0 ? envelope_version_ : call_->content_type_version;
    soap_set_version(soap_, static_cast<short>(version));
    out_->clear();  // drop a partial response, if any
    if (soap_->error == SOAP_LENGTH && max_string_ > 0 && LongestTextRun(call_->body) > max_string_) {
      // gSOAP's text ("value range or content length violation") does not say which limit.
      const std::string reason = "a string value is longer than " + std::to_string(max_string_) +
                                 " characters, the service's limit (--max-string)";
      soap_sender_fault(soap_, soap_strdup(soap_, reason.c_str()), nullptr);
    }
    ExplainBodyShape();
    if (unknown_envelope_) {
      // SOAP 1.1 4.4.1 / SOAP 1.2 part 1 5.4.7: VersionMismatch, in the binding's version, with an Upgrade
      // header block naming the envelopes supported (SOAP 1.1 has none of its own: appendix A's).
      constexpr const char* kReason = "the Envelope is in neither the SOAP 1.1 namespace "
                                      "(http://schemas.xmlsoap.org/soap/envelope/) nor the SOAP 1.2 namespace "
                                      "(http://www.w3.org/2003/05/soap-envelope)";
      if (version == 2) {
        AppendVersionMismatchFault12(kReason, out_);
      } else {
        AppendVersionMismatchFault(kReason, out_);
      }
    } else if (version_mismatch_) {
      soap_set_version(soap_, 1);
      AppendVersionMismatchFault(envelope_version_ == 2
                                     ? "a SOAP 1.2 envelope was sent with Content-Type text/xml, the SOAP 1.1 binding: "
                                       "send SOAP 1.2 as application/soap+xml, or a SOAP 1.1 envelope as text/xml"
                                     : "a SOAP 1.1 envelope was sent with Content-Type application/soap+xml, the SOAP "
                                       "1.2 binding: send SOAP 1.1 as text/xml, or a SOAP 1.2 envelope as "
                                       "application/soap+xml",
                                 out_);
    } else if (soap_->error == SOAP_MUSTUNDERSTAND && version == 2 && !not_understood_local_.empty()) {
      AppendNotUnderstoodFault(not_understood_local_, not_understood_ns_, out_);
    } else {
      // SOAP 1.1 4.4: a fault about the Body MUST carry detail (empty here: the reason is the faultstring); a
      // MustUnderstand fault is about a header and MUST NOT; a VersionMismatch is about the envelope.
      if (soap_->version == 1 && soap_->error != SOAP_MUSTUNDERSTAND && soap_->error != SOAP_VERSIONMISMATCH) {
        soap_faultdetail(soap_);
      }
      soap_send_fault(soap_);
    }
    outcome.http_status = 500;
    const char** code = soap_faultcode(soap_);
    outcome.sender_fault = !version_mismatch_ && !unknown_envelope_ && code != nullptr && *code != nullptr &&
                           (std::strstr(*code, "Sender") != nullptr || std::strstr(*code, "Client") != nullptr);
    if (soap_->version == 2 && outcome.sender_fault) outcome.http_status = 400;
    if (store_unavailable_) {
      outcome.http_status = 503;
      outcome.unavailable = true;
    }
    if (auth_failed_) {
      outcome.http_status = 401;
      outcome.sender_fault = true;
      outcome.unauthorized = true;
    }
  }
  if (soap_->local_namespaces != nullptr && soap_->local_namespaces[kWsseNamespaceIndex].out != nullptr) {
    SOAP_FREE(soap_, soap_->local_namespaces[kWsseNamespaceIndex].out);  // see kResponseNamespaces
    soap_->local_namespaces[kWsseNamespaceIndex].out = nullptr;
  }
  outcome.soap_version = soap_->version == 2 ? 2 : 1;
  outcome.operation = operation_;
  soap_destroy(soap_);
  soap_end(soap_);
  samples_.Clear();
  // A large echo leaves its objects and buffers free in the shared arenas: reused by the next large
  // request, given back to the system once they stop (service/memory/memory_return.h). Trimming after each
  // one made every echo fault its memory in afresh (half of its CPU); keeping it in per-thread arenas
  // made every pool thread keep the peak of the largest echo it served (+140 MB per thread).
  if (call_->body.size() >= kLargeFreeBytes) NoteLargeFree();
  // Without an operation (a fault before one), everything until Finish() counts as parsing.
  const Clock::time_point end = Clock::now();
  const bool ran = operation_start_ != Clock::time_point{};
  outcome.parse_seconds = std::chrono::duration<double>((ran ? operation_start_ : finish_start) - serve_start_).count();
  outcome.serialize_seconds = std::chrono::duration<double>(end - (ran ? operation_end_ : finish_start)).count();
  call_ = nullptr;
  out_ = nullptr;
  return outcome;
}

}  // namespace lather
