// RequestRouter: answers one parsed HTTP request: POST /soap goes to the SoapEngine, GET /soap?wsdl
// returns the WSDL, GET /healthz says the service is up; anything else gets the contract's HTTP
// status with a SOAP Fault body. One router per serving thread; not thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "service/admin/metrics.h"
#include "service/dispatch/blocking_pool.h"
#include "service/dispatch/soap_request_facts.h"
#include "service/dispatch/starvation_guard.h"
#include "service/http/http_request_parser.h"
#include "service/soap/soap_engine.h"

namespace lather {

// A response ready to write: `head` (status line and headers) then `body`.
struct HttpResponse {
  std::string head;
  std::string body;
  bool close = false;  // close the connection after writing
  bool busy = false;   // a 503 for waiting over --max-queue-wait (RequestRouter::Busy)
  // Set when the request must run on the blocking pool: `call` (which points into the request
  // buffer) is to be served there, and the head written when it is done.
  bool deferred = false;
  // With `deferred`: an IncCounter for the store's writer, not the pool: its counter and message id, copied
  // from the engine (whose own copy the next request, of any connection, overwrites).
  bool increment = false;
  SoapEngine::PendingIncrement pending_increment;
  bool keep_alive = true;
  SoapCall call;
  // A gzip-encoded request's decoded body (call.body points into it); freed once the call is answered.
  std::string decoded_body;

  void Clear() {
    head.clear();
    body.clear();
    close = false;
    busy = false;
    deferred = false;
    increment = false;
  }
};

// How a log line names the client: "peer=ADDRESS:PORT", and " forwarded_for=..." when a reverse
// proxy sent X-Forwarded-For (printable ASCII kept, other bytes as '?', at most 200 of them).
std::string DescribeClient(std::string_view peer, std::string_view forwarded_for);

class RequestRouter {
 public:
  // `local_address` ("127.0.0.1:8080") names the service when a request has no Host header.
  // `metrics` is this thread's (written here). Bodies over `long_body_bytes` are deferred.
  RequestRouter(SoapEngine* engine, LoopMetrics* metrics, std::string local_address, size_t long_body_bytes);
  // What GET /metrics answers: the engine's sum of every thread's metrics.
  void set_metrics_renderer(std::function<std::string()> render) { render_metrics_ = std::move(render); }

  // With false (lather-service --admin-listen), GET /metrics is not served here: 404.
  void set_serve_metrics(bool serve) { serve_metrics_ = serve; }

  void set_local_address(std::string address) { local_address_ = std::move(address); }
  // Served over TLS: ?wsdl names the https:// address whatever X-Forwarded-Proto says.
  void set_https(bool https) { https_ = https; }

  // The largest decoded size of a gzip-encoded body (the message limit, --max-message).
  void set_max_decoded_bytes(size_t bytes) { max_decoded_bytes_ = bytes; }

  // The answer to a deferred call the blocking pool came back with: its response and metrics, or
  // Busy() when it had waited too long to be run. response->keep_alive says whether to keep the connection.
  void CompleteDeferred(DeferredResult result, HttpResponse* response);

  // The store's writer answered an IncCounter this router deferred (`pending`) with `value`: fills *response
  // with the engine's IncCounterResponse for it, written without reading the call again, and records it
  // as that call's answer. False when the call needs reading again (it had a SOAP Header): then the caller
  // serves it again with SoapEngine::InjectIncrement and Route().
  bool AnswerIncrement(const SoapEngine::PendingIncrement& pending, bool keep_alive, int64_t value,
                       HttpResponse* response);

  // SOAP requests that waited longer than `limit_seconds` (> 0) get Busy() instead of being run.
  void set_max_queue_wait(double limit_seconds);
  // Honour X-Lather-Fault (service/dispatch/fault_injection.h); off by default.
  void set_fault_injection(bool on) { fault_injection_ = on; }
  double max_queue_wait() const { return max_queue_wait_; }
  // Whether a request that waited `waited_seconds` is over the limit (never, with no limit).
  bool OverQueueWait(double waited_seconds) const { return max_queue_wait_ > 0 && waited_seconds > max_queue_wait_; }
  // True from a refusal by age until this router has served for kSheddingHoldNanos without refusing: the loop is
  // shedding load, its next request is likely refused on its head too, and a pipelined request is judged from the
  // earliest it can have arrived. (Ended by the first served request, it was off for the requests read between
  // a served one and the next refusal - a quarter of the wake-ups under bench/overload's 3x - and those were judged
  // by merged receive stamps.)
  bool shedding() const { return shedding_; }
  static constexpr int64_t kSheddingHoldNanos = 100'000'000;

  // Fills *response (cleared first) for `request`, which arrived `waited_seconds` ago. With
  // `allow_keep_alive` false (the server is stopping) the response says Connection: close.
  void Route(const HttpRequest& request, bool allow_keep_alive, double waited_seconds, HttpResponse* response);

  // Fills *response with 503 + Retry-After and a Server/Receiver fault of `soap_version` (1.2's for 2, 1.1's
  // otherwise) saying the request waited `waited_seconds`, over the limit; the connection stays open. Counted as a 503 rejection, with
  // the time spent answering it (from `started`, a steady-clock time) in the busy-answer histogram.
  void Busy(double waited_seconds, int soap_version, bool keep_alive,
            std::chrono::steady_clock::time_point started, HttpResponse* response);

  // For a request whose head is parsed and whose body is still to come: when the head alone already decides
  // that Route() would answer Busy() (a SOAP POST to /soap, framed, no precondition, that waited
  // `waited_seconds`, over the limit), fills *response so and returns true: the body need not be read or
  // kept, only dropped. A client that expects 100-continue is answered with Connection: close (it may
  // never send the body). False when the body must be read first.
  bool RefuseBusyHead(const HttpRequest& head, bool allow_keep_alive, double waited_seconds, HttpResponse* response);

  // Fills *response with a rejection made before a request could be parsed (bad framing, limits,
  // timeouts): `status`, a Fault of the version `content_type` announces (1.1 when unknown) and
  // Connection: close. `extra_headers` are added as they are (each ending in CRLF).
  void Reject(int status, std::string_view reason, std::string_view content_type,
              std::string_view extra_headers, HttpResponse* response);

 private:
  void ServeSoap(const HttpRequest& request, bool keep_alive, double waited_seconds, HttpResponse* response);
  // Reject() with the fault of `soap_version` (1.2's for 2, 1.1's otherwise).
  void RejectAs(int soap_version, int status, std::string_view reason, std::string_view extra_headers,
                HttpResponse* response);
  // Decodes a gzip body into response->decoded_body; false after rejecting it (400, 413).
  bool DecodeBody(const HttpRequest& request, const SoapRequestFacts& facts, HttpResponse* response);
  // Answers a message the engine cannot read (empty, bad UTF-16) with a Client/Sender fault (500 for 1.1,
  // 400 for 1.2) on a connection that stays usable, and frees a decoded body.
  void MessageFault(int soap_version, std::string_view reason, bool keep_alive, HttpResponse* response);

  SoapEngine* engine_;
  LoopMetrics* metrics_;
  size_t long_body_bytes_;
  double max_queue_wait_ = 0;
  StarvationGuard starvation_;  // keeps the refusals by age from starving the loop
  bool shedding_ = false;
  int64_t last_refusal_ns_ = 0;  // StarvationGuard::CoarseNowNanos() of the last refusal by age
  // Busy()'s reason after the wait's digits (it names the limit); the envelope around it is built once.
  static std::string BusyReasonTail(double limit_seconds);
  std::string busy_reason_tail_ = BusyReasonTail(0);
  bool serve_metrics_ = true;
  size_t max_decoded_bytes_ = HttpLimits().max_body_bytes;
  std::function<std::string()> render_metrics_;
  std::string local_address_;
  bool https_ = false;
  bool fault_injection_ = false;
};

}  // namespace lather
