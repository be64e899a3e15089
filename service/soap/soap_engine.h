// SoapEngine: runs gSOAP's generated LatherSoapService on a request body that is already in
// memory and writes the response envelope to a string; the connection code owns HTTP and sockets.
// One gSOAP context per engine, reused for every call (soap_destroy + soap_end after each).
// Not thread-safe: one engine per event-loop thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "service/auth/authenticator.h"
#include "service/soap/operations.h"
#include "wsdl/data_sample.h"
#include "wsdl/sample_reader.h"

struct soap;
struct _wsse__Security;

namespace lather {

// The operation of ours an action names ("urn:lather:v1#Increment", "urn:lather:v1/Increment"); empty when
// it names none (an absent or foreign action, which the Body decides).
std::string_view OperationOfAction(std::string_view action);

// True unless the environment variable LATHER_NO_FAST_PATH is "1" (read once).
bool FastPathByDefault();

struct SoapEngineLimits {
  int max_xml_depth = 500;         // deeper nesting is a Client/Sender fault (at most kMaxXmlDepth)
  size_t max_occurs = 100000;      // most repetitions of one element (e.g. samples, contact numbers)
  // Credentials checked for the operations `auth_scope` names; null: no authentication. Not owned
  // (lather-service keeps it for its whole run); shared by every engine (it is thread-safe).
  const Authenticator* authenticator = nullptr;
  AuthScope auth_scope = AuthScope::kIncCounter;
  // Read the WS-Addressing wsa:MessageID header (2005/08, or the 2004/08 submission) and make
  // IncCounter idempotent by it. When false the header is ignored like any other unknown block
  // (and a mustUnderstand one is refused).
  bool read_message_id = true;
  size_t max_string = 1024 * 1024; // longest string value in characters; longer: fault (0: no limit)
  // EchoDataSamples read and written by Lather's own sample codec (wsdl/sample_reader.h) instead of
  // gSOAP's generated serializers (kept for comparison: lather-service --echo-codec gsoap).
  bool sample_codec = true;
  // The fast path (fast_path.h) for the commonest shape of Increment, HelloWorld, IncCounter and
  // GetCounter requests, with gSOAP's own answers written from templates; anything else goes to gSOAP.
  // false: every request through gSOAP (lather-service --no-fast-path). The default is false when the
  // environment has LATHER_NO_FAST_PATH=1, so that a whole test suite can run through gSOAP alone.
  bool fast_path = FastPathByDefault();
};

// The deepest limit gSOAP can hold (its level counter is an unsigned short).
inline constexpr int kMaxXmlDepth = 65535;

// The stack a thread that runs a SoapEngine with `limits` needs: gSOAP reads and writes nested
// elements recursively (measured: about 250 bytes per XML level; a 1 MiB stack overflowed between
// 4,000 and 8,000 levels), so this grows with max_xml_depth: 512 KiB plus 512 bytes per level (2 KiB
// under a sanitizer), at least 1 MiB.
size_t SoapStackBytes(const SoapEngineLimits& limits);

// One SOAP request as the HTTP layer framed it.
struct SoapCall {
  std::string_view body;
  int content_type_version = 1;  // 1 for text/xml, 2 for application/soap+xml
  std::string_view action;       // SOAPAction (1.1) or the action parameter (1.2); may be empty
  std::string_view authorization;  // the HTTP Authorization header; may be empty
  size_t gzip_max_decoded = 0;   // > 0: `body` is gzip, to be decoded (to at most this) by ServeDeferred
};

struct SoapOutcome {
  int http_status = 200;
  int soap_version = 1;       // the version of the response envelope
  size_t operation = 5;       // index in kMetricOperations; 5 ("none") if no operation was reached
  bool sender_fault = false;  // a Client/Sender fault (the request was at fault)
  bool deferred = false;      // not run here: it blocks on the store (see SoapEngine's constructor)
  bool increment = false;     // deferred for the store's writer: an IncCounter (see set_increments_to_writer)
  bool unauthorized = false;  // refused for missing or wrong credentials: 401 + WWW-Authenticate
  bool unavailable = false;   // the counter store could not serve: 503 + Retry-After, a Server fault
  double parse_seconds = 0;      // from the start to the operation (checks and deserialization)
  double serialize_seconds = 0;  // from the operation's return to the end (the response or fault)
  bool fast_path = false;        // served by the fast path (fast_path.h), not read by gSOAP
  bool reread = false;           // an IncCounter served again with the writer's answer (InjectIncrement)
};

// gSOAP's own answers to the fast path's operations, per operation (kMetricOperations 0-3) and SOAP
// version, for requests without a Header and with an empty one (which gSOAP echoes): the envelope before
// and after the result's digits (HelloWorld: all of it before). Captured once per process by serving
// canonical requests through gSOAP with marker results; read-only after.
struct AnswerTemplate {
  std::string before, after;
  bool ok = false;
};
const AnswerTemplate& FastAnswer(size_t operation, int version, bool empty_header = false);

class SoapEngine {
 public:
  // With `defer_blocking` (the event loops' engines) the operations that wait for the store are not
  // run: Serve() returns an outcome with `deferred` set, for the caller to run on the pool.
  SoapEngine(Operations* operations, const SoapEngineLimits& limits, bool defer_blocking);
  ~SoapEngine();
  SoapEngine(const SoapEngine&) = delete;
  SoapEngine& operator=(const SoapEngine&) = delete;

  // Dispatches `call` to the operation its Body names and appends the response envelope (or a
  // Fault of the request's SOAP version) to *response_body. Never throws.
  SoapOutcome Serve(const SoapCall& call, std::string* response_body);

  // Event loops (defer_blocking engines): an IncCounter is read here and handed by the caller to the
  // store's writer instead of the pool: Serve() returns it deferred with `increment` set, the counter and
  // the message id (empty: none) in pending_increment(). Once the writer has answered, the caller serves
  // the same call again after InjectIncrement(): that Serve's IncCounter answers with the injected result
  // (a value, or the store's failure as a fault) without touching the store.
  void set_increments_to_writer(bool on) { increments_to_writer_ = on; }
  struct PendingIncrement {
    std::string name;
    std::string message_id;
    // 1 or 2 when the request had no SOAP Header: its answer does not depend on it beyond its SOAP version,
    // so WriteIncrementAnswer() can write it; 0 otherwise (the call is served again with InjectIncrement).
    int plain_version = 0;
  };
  const PendingIncrement& pending_increment() const { return pending_increment_; }
  static constexpr size_t kIncCounterIndex = 2;  // in kMetricOperations
  // For the next Serve() only.
  void InjectIncrement(Status status, int64_t value) {
    injection_ = {std::move(status), value, true};
  }
  // Appends the IncCounterResponse envelope of SOAP `version` (1 or 2) with `value`: gSOAP's own bytes for
  // that answer (FastAnswers, below), with the value in its place (no second read of the call). False if
  // `version` is not 1 or 2, or the capture failed; then nothing is appended.
  bool WriteIncrementAnswer(int version, int64_t value, std::string* body);

 private:
  class Handler;
  friend class Handler;
  friend class OperationClock;

  static size_t Receive(struct soap* soap, char* buffer, size_t length);
  static int Send(struct soap* soap, const char* data, size_t length);
  // gSOAP's fignore: a header block addressed to us with mustUnderstand is refused (and recorded for
  // the SOAP 1.2 NotUnderstood block); other header blocks are ignored; unknown Body content is refused.
  static int Ignore(struct soap* soap, const char* tag);
  // gSOAP's fpreparefinalrecv, called by soap_end_recv once the Envelope's end tag is read and before the
  // operation runs: a Client/Sender fault if anything but comments and white space follows it.
  static int AfterEnvelope(struct soap* soap);
  // Sets the fault for an encodingStyle the envelope rules refuse (envelope_rules.h); false if none.
  bool RefuseEncodingStyle(size_t body_content);
  // Replaces gSOAP's reason for a missing Body, a Body that holds no operation element or more than one,
  // or an element after it, with one that says so (WS-I BP 1.1 R1011, R1014, R2712).
  void ExplainBodyShape();
  // Reads the text of a wsa:MessageID header block whose start tag gSOAP has just read (from Ignore);
  // a Client/Sender fault for a second one.
  int ReadMessageId();
  // A fault for an action header naming another operation than the Body; SOAP_OK otherwise.
  int CheckAction(const char* operation);
  // SOAP_OK if `operation` (index in kMetricOperations) needs no credentials or the request's are
  // right; a 401 fault if they are missing or wrong; on a defer_blocking engine, credentials not
  // yet in the authenticator's cache defer the call (the slow hash runs on the pool, not here).
  int Authorize(size_t operation);
  // Records a refusal (401) and sets a Client/Sender fault; `wsse_code` (a wsse: QName, for
  // WS-Security failures) becomes the SOAP 1.1 faultcode or the SOAP 1.2 Subcode.
  int AuthFault(const char* wsse_code, const std::string& reason);
  // A mustUnderstand wsse:Security header for us while authentication is off: MustUnderstand (we
  // would not check it). SOAP_OK otherwise.
  int CheckUnprocessedSecurity();
  // Keeps the request's wsse:Security block for us (null if none or `header_read` is false) in
  // security_ and takes it out of soap->header, so that gSOAP never echoes it (the password).
  void TakeSecurityHeader(bool header_read);
  // The name of operation `operation` (index in kMetricOperations).
  static const char* OperationName(size_t operation);
  int Fault(const Status& status);
  // Marks the call deferred and stops the dispatch (defer_blocking engines only).
  int Defer();
  // Reads the envelope up to the first Body child; the gSOAP error code on failure.
  int BeginServe();
  // The generic pre-scans (markup_limits.h) of `part` of the body; false (and a fault set) if it
  // holds something gSOAP must not read.
  bool PreScan(std::string_view part);
  // Where gSOAP's reading stands in the body: the offset of the next byte it has not consumed (npos
  // when it holds a character put back).
  size_t ReadPosition() const;
  // Serves EchoDataSamples with the sample codec from `at` (the Body's content, scope_ bound there;
  // service/soap/soap_echo.cpp), handing the end of the Body and Envelope back to gSOAP.
  void ServeEcho(size_t at);
  // Sets the fault for a request the sample reader refused.
  void EchoReadFault(const SampleReadResult& read);
  // Faults a request whose document element is not a SOAP 1.1/1.2 Envelope (VersionMismatch
  // for an Envelope in another namespace).
  void RefuseNonEnvelope(std::string_view root_name);
  SoapOutcome Finish();

  // Times the operation's body: set by the handler when an operation starts and returns.
  using Clock = std::chrono::steady_clock;
  Clock::time_point serve_start_{}, operation_start_{}, operation_end_{};

  Operations* operations_;
  const Authenticator* authenticator_;
  const AuthScope auth_scope_;
  const bool defer_blocking_;
  bool auth_failed_ = false;
  bool store_unavailable_ = false;  // an operation found the counter store unavailable (503)
  // The request's wsse:Security block for us, or null; taken out of soap->header once read so that
  // gSOAP never echoes it (the password) into the response.
  const _wsse__Security* security_ = nullptr;
  std::string basic_user_, basic_password_;  // decoded Authorization: Basic, reused between calls
  const bool read_message_id_;
  bool has_message_id_ = false;  // the request has a wsa:MessageID header (its text: message_id_)
  std::string message_id_;
  const size_t max_string_;
  bool deferred_ = false;
  bool increments_to_writer_ = false;
  bool increment_ = false;  // this Serve deferred an IncCounter for the writer
  PendingIncrement pending_increment_;
  struct Injection {
    Status status;
    int64_t value = 0;
    bool armed = false;
  };
  Injection injection_;         // set by InjectIncrement() for the next Serve()
  // The fast path: serves `call` without gSOAP when ReadFastRequest accepts it and nothing else about the
  // call (its action, credentials, a store failure) needs gSOAP's reading; false to serve it with gSOAP.
  // service/soap/soap_fast_serve.cpp.
  bool FastServe(const SoapCall& call, std::string* response_body, SoapOutcome* outcome);
  const bool fast_path_;
  Injection active_injection_;  // this Serve's
  struct soap* soap_;
  std::unique_ptr<Handler> handler_;
  const SoapCall* call_ = nullptr;
  int envelope_version_ = 0;  // 1 or 2 once gSOAP has read the Envelope, else 0
  bool version_mismatch_ = false;  // the envelope is of the other SOAP version than the Content-Type
  bool unknown_envelope_ = false;  // an Envelope in neither SOAP namespace
  size_t operation_ = 5;      // the operation the Body named (index in kMetricOperations)
  size_t read_offset_ = 0;
  std::string not_understood_local_, not_understood_ns_;  // the header block refused, if any
  std::string* out_ = nullptr;
  const bool sample_codec_;
  SampleSet samples_;                     // the echo's samples (sample codec), reused between calls
  std::vector<NamespaceBinding> scope_;  // bindings in scope at the Body's content (FindBodyContent)
};

}  // namespace lather
