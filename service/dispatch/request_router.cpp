#include "service/dispatch/request_router.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

#include "service/dispatch/fault_injection.h"
#include "service/dispatch/soap_request_facts.h"
#include "service/http/entity_tag.h"
#include "service/http/gzip_body.h"
#include "service/http/http_response.h"
#include "service/memory/memory_return.h"
#include "service/soap/fault_envelope.h"
#include "service/soap/utf16_body.h"
#include "service/soap/wsdl_document.h"

namespace lather {
namespace {

bool IsWsdlQuery(std::string_view query) { return query == "wsdl" || query == "WSDL"; }

// The methods RFC 9110 (section 9) defines, and PATCH (RFC 5789): refused with 405 where not allowed; any
// other method is not implemented (501).
bool KnownMethod(std::string_view method) {
  for (std::string_view m : {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}) {
    if (method == m) return true;
  }
  return false;
}

// The challenge sent with every 401 (RFC 7617); a WS-Security client ignores it.
constexpr std::string_view kAuthChallenge = "WWW-Authenticate: Basic realm=\"lather\"\r\n";

constexpr std::string_view kRetrySoon = "Retry-After: 1\r\n";

// Frees a decoded (gunzipped or transcoded) body once its call is answered; nothing when there is none.
void ReleaseDecodedBody(HttpResponse* response) {
  if (response->decoded_body.capacity() > 0) FreeBuffer(&response->decoded_body);
}
std::string_view ExtraHeaders(const SoapOutcome& outcome) {
  return outcome.unauthorized ? kAuthChallenge : outcome.unavailable ? kRetrySoon : "";
}

}  // namespace

RequestRouter::RequestRouter(SoapEngine* engine, LoopMetrics* metrics, std::string local_address,
                             size_t long_body_bytes)
    : engine_(engine), metrics_(metrics), long_body_bytes_(long_body_bytes), local_address_(std::move(local_address)) {}

void RequestRouter::CompleteDeferred(DeferredResult result, HttpResponse* response) {
  ReleaseDecodedBody(response);  // the call is done
  if (result.rejected_status != 0) {  // a gzip body refused on the pool
    return RejectAs(response->call.content_type_version, result.rejected_status, result.rejected_reason, "", response);
  }
  if (result.busy) {
    const bool keep_alive = response->keep_alive;
    return Busy(result.waited, response->call.content_type_version, keep_alive, std::chrono::steady_clock::now(),
                response);
  }
  metrics_->RecordQueueWait(result.waited);
  response->body = std::move(result.body);
  const SoapOutcome& outcome = result.outcome;
  metrics_->RecordRequest(outcome.operation, outcome.http_status == 200 ? 0 : outcome.sender_fault ? 1 : 2,
                          result.seconds);
  metrics_->RecordParseSerialize(outcome.parse_seconds, outcome.serialize_seconds);
  metrics_->RecordSoapPath(outcome.fast_path);
  response->head.clear();
  AppendResponseHead(outcome.http_status, outcome.soap_version == 2 ? kSoap12ContentType : kSoap11ContentType,
                     response->body.size(), response->keep_alive, ExtraHeaders(outcome), &response->head);
  response->close = !response->keep_alive;
  response->deferred = false;
}

std::string DescribeClient(std::string_view peer, std::string_view forwarded_for) {
  std::string out = "peer=";
  out.append(peer);
  if (forwarded_for.empty()) return out;
  out.append(" forwarded_for=");
  for (const char c : forwarded_for.substr(0, 200)) out.push_back(c > ' ' && c < 127 ? c : (c == ' ' ? ' ' : '?'));
  return out;
}

void RequestRouter::Reject(int status, std::string_view reason, std::string_view content_type,
                           std::string_view extra_headers, HttpResponse* response) {
  RejectAs(SoapVersionOfContentType(content_type), status, reason, extra_headers, response);
}

void RequestRouter::RejectAs(int soap_version, int status, std::string_view reason, std::string_view extra_headers,
                             HttpResponse* response) {
  response->Clear();
  metrics_->RecordRejection(status);
  const int version = soap_version == 2 ? 2 : 1;
  AppendFaultEnvelope(version, status < 500, reason, &response->body);
  AppendResponseHead(status, version == 2 ? kSoap12ContentType : kSoap11ContentType,
                     response->body.size(), false, extra_headers, &response->head);
  response->close = true;
}

namespace {

constexpr std::string_view kBusyReasonHead = "the server is busy: this request waited ";

// The Server/Receiver fault envelope of each SOAP version around its reason, split at a marker that escaping
// leaves as it is (the reason Busy() puts between the halves has nothing to escape: digits and fixed words).
// Built once (a function-local static: thread-safe).
struct BusyEnvelopes {
  std::string before[2], after[2];
  BusyEnvelopes() {
    constexpr std::string_view kMarker = "LATHER-BUSY-REASON";
    for (int version : {1, 2}) {
      std::string envelope;
      AppendFaultEnvelope(version, false, kMarker, &envelope);
      const size_t at = envelope.find(kMarker);
      before[version - 1] = envelope.substr(0, at);
      after[version - 1] = envelope.substr(at + kMarker.size());
    }
  }
};

const BusyEnvelopes& Envelopes() {
  static const BusyEnvelopes envelopes;
  return envelopes;
}

}  // namespace

std::string RequestRouter::BusyReasonTail(double limit_seconds) {
  return " ms for its turn, over the limit of " + std::to_string(std::lround(limit_seconds * 1000)) + " ms; retry later";
}

void RequestRouter::set_max_queue_wait(double limit_seconds) {
  max_queue_wait_ = limit_seconds;
  busy_reason_tail_ = BusyReasonTail(limit_seconds);
}

void RequestRouter::Busy(double waited_seconds, int soap_version, bool keep_alive,
                         std::chrono::steady_clock::time_point started, HttpResponse* response) {
  response->Clear();
  metrics_->RecordRejection(503);
  const int version = soap_version == 2 ? 2 : 1;
  char waited[24];
  const size_t waited_size = static_cast<size_t>(
      std::to_chars(waited, waited + sizeof(waited), std::lround(waited_seconds * 1000)).ptr - waited);
  std::string& body = response->body;
  const std::string& before = Envelopes().before[version - 1];
  const std::string& after = Envelopes().after[version - 1];
  body.reserve(before.size() + kBusyReasonHead.size() + sizeof(waited) + busy_reason_tail_.size() + after.size());
  body.append(before).append(kBusyReasonHead).append(waited, waited_size).append(busy_reason_tail_).append(after);
  AppendResponseHead(503, version == 2 ? kSoap12ContentType : kSoap11ContentType, response->body.size(), keep_alive,
                     "Retry-After: 1\r\n", &response->head);
  response->close = !keep_alive;
  response->busy = true;
  shedding_ = true;
  last_refusal_ns_ = StarvationGuard::CoarseNowNanos();
  metrics_->RecordBusyAnswer(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

bool RequestRouter::AnswerIncrement(const SoapEngine::PendingIncrement& pending, bool keep_alive, int64_t value,
                                    HttpResponse* response) {
  const auto started = std::chrono::steady_clock::now();
  response->Clear();
  if (!engine_->WriteIncrementAnswer(pending.plain_version, value, &response->body)) return false;
  ReleaseDecodedBody(response);  // the call is done
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // As the call served again would be recorded (its queue wait was its first read's, before the writer).
  metrics_->RecordQueueWait(0.0);
  metrics_->RecordRequest(SoapEngine::kIncCounterIndex, 0, seconds);
  metrics_->RecordParseSerialize(0.0, seconds);
  AppendResponseHead(200, pending.plain_version == 2 ? kSoap12ContentType : kSoap11ContentType, response->body.size(),
                     keep_alive, "", &response->head);
  response->close = !keep_alive;
  return true;
}

bool RequestRouter::RefuseBusyHead(const HttpRequest& head, bool allow_keep_alive, double waited_seconds,
                                   HttpResponse* response) {
  // Route() and ServeSoap() decide in this order: the resource and method, fault injection, then the head's
  // verdict (415, 411, 412, the queue wait). The wait only grows while the body arrives, so a head over the
  // limit is refused exactly as the whole request would be, only sooner. Most heads are under it: tested first.
  if (!OverQueueWait(waited_seconds)) return false;
  if (head.path != "/soap" || head.method != "POST" || (fault_injection_ && !head.fault.empty())) return false;
  const SoapRequestFacts facts = ReadSoapFacts(head);
  if (JudgeSoapHead(facts, waited_seconds, max_queue_wait_) != SoapHeadVerdict::kBusy) return false;
  // A starving loop serves some requests over the limit: ServeSoap() decides, with the whole request.
  if (starvation_.Starving(StarvationGuard::CoarseNowNanos())) return false;
  starvation_.Refused();
  const auto started = std::chrono::steady_clock::now();
  Busy(waited_seconds, facts.version, head.keep_alive && allow_keep_alive && !head.expect_continue, started,
       response);
  return true;
}

void RequestRouter::Route(const HttpRequest& request, bool allow_keep_alive, double waited_seconds,
                          HttpResponse* response) {
  response->Clear();
  const bool keep_alive = request.keep_alive && allow_keep_alive;
  if (request.method == "OPTIONS" && request.path == "*") {
    // RFC 9110 9.3.7: OPTIONS * asks about the server; the answer names its methods, with no content.
    AppendResponseHead(200, "text/plain; charset=utf-8", 0, keep_alive, "Allow: GET, HEAD, OPTIONS, POST\r\n",
                       &response->head);
    response->close = !keep_alive;
    return;
  }
  if (request.path == "/soap") {
    const bool wsdl = (request.method == "GET" || request.method == "HEAD") && IsWsdlQuery(request.query);
    if (wsdl) {
      const std::string_view host = request.host.empty() ? std::string_view(local_address_) : request.host;
      // Behind a TLS-terminating proxy (X-Forwarded-Proto: https) the address clients must use is https.
      const bool https = https_ || (request.forwarded_proto.size() == 5 &&
                                    (request.forwarded_proto == "https" || request.forwarded_proto == "HTTPS"));
      response->body = WsdlForEndpoint((https ? "https://" : "http://") + std::string(host) + "/soap");
      // The WSDL names the address it was asked at, so its tag is of the bytes served (RFC 9110 8.8.3).
      const std::string tag = StrongEntityTag(response->body);
      if (request.has_if_match && !EntityTagListMatches(request.if_match, tag, false)) {
        return Reject(412, "If-Match names no current entity tag of the WSDL (it is " + tag + ")", "", "", response);
      }
      const std::string etag_line = "ETag: " + tag + "\r\n";
      if (request.has_if_none_match && EntityTagListMatches(request.if_none_match, tag, true)) {
        // 13.1.2: false for GET and HEAD: 304, no content (and no Content-Length, which would be the WSDL's).
        response->body.clear();
        response->head.append("HTTP/1.1 304 Not Modified\r\n").append(DateHeaderLine()).append("Server: lather\r\n");
        response->head.append(etag_line);
        if (!keep_alive) response->head.append("Connection: close\r\n");
        response->head.append("\r\n");
        response->close = !keep_alive;
        return;
      }
      AppendResponseHead(200, "text/xml; charset=utf-8", response->body.size(), keep_alive, etag_line,
                         &response->head);
      if (request.method == "HEAD") response->body.clear();  // the GET's head, no content (RFC 9110 9.3.2)
      response->close = !keep_alive;
      return;
    }
    if (request.method == "POST") {
      if (fault_injection_ && !request.fault.empty()) InjectFault(request.fault);
      return ServeSoap(request, keep_alive, waited_seconds, response);
    }
    if (!KnownMethod(request.method)) {
      return Reject(501, "the method " + std::string(request.method.substr(0, 32)) +
                             " is not implemented (RFC 9110 section 9.1; /soap takes POST, and GET or HEAD with ?wsdl)",
                    request.content_type, "", response);
    }
    // Allow names the methods of the resource /soap (the contract: GET and HEAD with ?wsdl, POST).
    Reject(405, "method " + std::string(request.method) + " is not allowed on /soap (use POST, or GET /soap?wsdl)",
           request.content_type, "Allow: GET, HEAD, POST\r\n", response);
    return;
  }
  if (request.path == "/metrics" && request.method == "GET" && serve_metrics_) {
    response->body = render_metrics_ ? render_metrics_() : RenderMetrics({metrics_});
    AppendResponseHead(200, "text/plain; version=0.0.4; charset=utf-8", response->body.size(), keep_alive, "",
                       &response->head);
    response->close = !keep_alive;
    return;
  }
  if (request.path == "/healthz" && (request.method == "GET" || request.method == "HEAD")) {
    response->body = request.method == "GET" ? "ok\n" : "";
    AppendResponseHead(200, "text/plain; charset=utf-8", 3, keep_alive, "", &response->head);
    response->close = !keep_alive;
    return;
  }
  Reject(404, "no resource at " + std::string(request.path) + " (the service is at /soap)",
         request.content_type, "", response);
}

bool RequestRouter::DecodeBody(const HttpRequest& request, const SoapRequestFacts& facts, HttpResponse* response) {
  const GunzipResult result = Gunzip(request.body, max_decoded_bytes_, kMaxGzipRatio, &response->decoded_body);
  if (result == GunzipResult::kOk) return true;
  FreeBuffer(&response->decoded_body);
  std::string reason;
  const int status = GunzipRejection(result, max_decoded_bytes_, &reason);
  RejectAs(facts.version, status, reason, "", response);
  return false;
}

void RequestRouter::MessageFault(int soap_version, std::string_view reason, bool keep_alive, HttpResponse* response) {
  ReleaseDecodedBody(response);
  // A message fault (contract: 500 Client / 400 Sender), on a connection that stays usable.
  metrics_->RecordRequest(5, 1, 0);
  AppendFaultEnvelope(soap_version, true, reason, &response->body);
  AppendResponseHead(soap_version == 2 ? 400 : 500, soap_version == 2 ? kSoap12ContentType : kSoap11ContentType,
                     response->body.size(), keep_alive, "", &response->head);
  response->close = !keep_alive;
}

void RequestRouter::ServeSoap(const HttpRequest& request, bool keep_alive, double waited_seconds,
                              HttpResponse* response) {
  const auto started = std::chrono::steady_clock::now();
  const SoapRequestFacts facts = ReadSoapFacts(request);
  switch (JudgeSoapHead(facts, waited_seconds, max_queue_wait_)) {
    case SoapHeadVerdict::kNotSoap: {
      const std::string shown = facts.content_type.empty() ? "none" : std::string(facts.content_type);
      return RejectAs(1, 415, "Content-Type " + shown + " is not a SOAP media type (text/xml for SOAP 1.1, "
                      "application/soap+xml for SOAP 1.2)", "", response);
    }
    case SoapHeadVerdict::kUnframed:
      return RejectAs(facts.version, 411, "a SOAP request needs Content-Length or chunked transfer coding", "",
                      response);
    case SoapHeadVerdict::kPrecondition:
      // RFC 9110 13.1.1: If-Match holds only for a current representation whose strong tag it names (or any,
      // with *); /soap itself has none, so If-Match on a POST that would otherwise run is false: 412 before
      // the operation runs. (13.2.1: a request refused above, 415 or 411, ignores its preconditions.)
      return RejectAs(facts.version, 412, "If-Match is false: /soap has no current representation to match "
                      "(RFC 9110 section 13.1.1), so the operation was not run", "", response);
    case SoapHeadVerdict::kBusy:
      // Over the limit: refused, unless the loop is starving and this is one of those it serves anyway.
      if (starvation_.Starving(StarvationGuard::CoarseNowNanos()) && starvation_.ServeAnyway()) break;
      starvation_.Refused();
      return Busy(waited_seconds, facts.version, keep_alive, started, response);
    case SoapHeadVerdict::kServe:
      starvation_.ServedInLimit();
      break;
  }
  if (shedding_ && StarvationGuard::CoarseNowNanos() - last_refusal_ns_ > kSheddingHoldNanos) shedding_ = false;
  if (facts.coding == SoapRequestFacts::Coding::kUnsupported) {
    return RejectAs(facts.version, 415, "Content-Encoding " + std::string(facts.content_encoding) +
                    " is not supported (gzip is)", "", response);
  }
  SoapCall call;
  call.content_type_version = facts.version;
  call.action = facts.action;
  call.authorization = request.authorization;
  response->keep_alive = keep_alive;
  const bool gzip = facts.coding == SoapRequestFacts::Coding::kGzip;
  if (gzip && request.body.size() > kInlineGzipBytes && long_body_bytes_ != std::numeric_limits<size_t>::max()) {
    // Large gzip bodies are decoded where large bodies are parsed: on the pool (ServeDeferred).
    call.body = request.body;
    call.gzip_max_decoded = max_decoded_bytes_;
    response->deferred = true;
    response->call = call;
    return;
  }
  if (gzip && !DecodeBody(request, facts, response)) return;
  // From here the body is the request's bytes or, decoded, response->decoded_body (freed once answered).
  call.body = gzip ? std::string_view(response->decoded_body) : request.body;
  // UTF-16 (WS-I BP 1.1 R1012) is transcoded to UTF-8 once, here; a UTF-8 body pays two byte comparisons.
  if (const BodyEncoding coding = DetectBodyEncoding(call.body, facts.content_type); coding != BodyEncoding::kUtf8) {
    std::string utf8, error;
    if (!Utf16ToUtf8(call.body, coding == BodyEncoding::kUtf16Be, max_decoded_bytes_, &utf8, &error)) {
      return MessageFault(facts.version, error, keep_alive, response);
    }
    response->decoded_body = std::move(utf8);
    call.body = response->decoded_body;
  }
  if (call.body.empty()) {
    return MessageFault(facts.version, "the request body is empty; a SOAP envelope was expected", keep_alive,
                        response);
  }
  if (call.body.size() > long_body_bytes_) {  // a large echo: parse it on the pool, not here
    response->deferred = true;
    response->call = call;
    return;
  }
  metrics_->RequestStarted();
  const SoapOutcome outcome = engine_->Serve(call, &response->body);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  metrics_->RequestFinished();
  if (outcome.deferred) {  // it waits for the store: run it on the pool or the writer (which record the wait)
    if (outcome.increment) metrics_->RecordSoapPath(outcome.fast_path);  // read here; the pool reads the others
    response->deferred = true;
    response->increment = outcome.increment;
    if (outcome.increment) response->pending_increment = engine_->pending_increment();
    response->call = call;
    return;
  }
  ReleaseDecodedBody(response);
  metrics_->RecordQueueWait(waited_seconds);
  metrics_->RecordRequest(outcome.operation, outcome.http_status == 200 ? 0 : outcome.sender_fault ? 1 : 2, seconds);
  metrics_->RecordParseSerialize(outcome.parse_seconds, outcome.serialize_seconds);
  if (!outcome.reread) metrics_->RecordSoapPath(outcome.fast_path);  // a reread was counted at its first read
  AppendResponseHead(outcome.http_status, outcome.soap_version == 2 ? kSoap12ContentType : kSoap11ContentType,
                     response->body.size(), keep_alive, ExtraHeaders(outcome), &response->head);
  response->close = !keep_alive;
}

}  // namespace lather
