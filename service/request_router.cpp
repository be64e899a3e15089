#include "service/request_router.h"

#include <chrono>
#include <utility>

#include "service/http_response.h"
#include "service/wsdl_document.h"

namespace lather {
namespace {

bool IsWsdlQuery(std::string_view query) { return query == "wsdl" || query == "WSDL"; }

}  // namespace

RequestRouter::RequestRouter(SoapEngine* engine, LoopMetrics* metrics, std::string local_address,
                             size_t long_body_bytes)
    : engine_(engine), metrics_(metrics), long_body_bytes_(long_body_bytes), local_address_(std::move(local_address)) {}

void RequestRouter::CompleteDeferred(const SoapOutcome& outcome, double seconds, HttpResponse* response) {
  metrics_->RecordRequest(outcome.operation, outcome.http_status == 200 ? 0 : outcome.sender_fault ? 1 : 2, seconds);
  response->head.clear();
  AppendResponseHead(outcome.http_status, outcome.soap_version == 2 ? kSoap12ContentType : kSoap11ContentType,
                     response->body.size(), response->keep_alive, "", &response->head);
  response->close = !response->keep_alive;
  response->deferred = false;
}

void RequestRouter::Reject(int status, std::string_view reason, std::string_view content_type,
                           std::string_view extra_headers, HttpResponse* response) {
  response->Clear();
  metrics_->RecordRejection(status);
  const int version = SoapVersionOfContentType(content_type) == 2 ? 2 : 1;
  AppendFaultEnvelope(version, status < 500, reason, &response->body);
  AppendResponseHead(status, version == 2 ? kSoap12ContentType : kSoap11ContentType,
                     response->body.size(), false, extra_headers, &response->head);
  response->close = true;
}

void RequestRouter::Route(const HttpRequest& request, bool allow_keep_alive, HttpResponse* response) {
  response->Clear();
  const bool keep_alive = request.keep_alive && allow_keep_alive;
  if (request.path == "/soap") {
    if (request.method == "POST") return ServeSoap(request, keep_alive, response);
    if (request.method == "GET" && IsWsdlQuery(request.query)) {
      const std::string_view host = request.host.empty() ? std::string_view(local_address_) : request.host;
      response->body = WsdlForEndpoint("http://" + std::string(host) + "/soap");
      AppendResponseHead(200, "text/xml; charset=utf-8", response->body.size(), keep_alive, "",
                         &response->head);
      response->close = !keep_alive;
      return;
    }
    Reject(405, "method " + std::string(request.method) + " is not allowed on /soap (use POST, or GET /soap?wsdl)",
           request.content_type, "Allow: POST\r\n", response);
    return;
  }
  if (request.path == "/metrics" && request.method == "GET") {
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

void RequestRouter::ServeSoap(const HttpRequest& request, bool keep_alive, HttpResponse* response) {
  const int version = SoapVersionOfContentType(request.content_type);
  if (version == 0) {
    const std::string shown = request.content_type.empty() ? "none" : std::string(request.content_type);
    return Reject(415, "Content-Type " + shown + " is not a SOAP media type (text/xml for SOAP 1.1, "
                  "application/soap+xml for SOAP 1.2)", request.content_type, "", response);
  }
  if (!request.content_encoding.empty() && request.content_encoding != "identity") {
    return Reject(415, "Content-Encoding " + std::string(request.content_encoding) + " is not supported",
                  request.content_type, "", response);
  }
  if (!request.body_framed) {
    return Reject(411, "a SOAP request needs Content-Length or chunked transfer coding",
                  request.content_type, "", response);
  }
  if (request.body.empty()) {
    // A message fault (contract: 500 Client / 400 Sender), on a connection that stays usable.
    const int status = version == 2 ? 400 : 500;
    metrics_->RecordRequest(5, 1, 0);
    AppendFaultEnvelope(version, true, "the request body is empty; a SOAP envelope was expected",
                        &response->body);
    AppendResponseHead(status, version == 2 ? kSoap12ContentType : kSoap11ContentType,
                       response->body.size(), keep_alive, "", &response->head);
    response->close = !keep_alive;
    return;
  }
  SoapCall call;
  call.body = request.body;
  call.content_type_version = version;
  call.action = version == 2 ? ContentTypeParameter(request.content_type, "action") : request.soap_action;
  response->keep_alive = keep_alive;
  if (request.body.size() > long_body_bytes_) {  // a large echo: parse it on the pool, not here
    response->deferred = true;
    response->call = call;
    return;
  }
  metrics_->RequestStarted();
  const auto start = std::chrono::steady_clock::now();
  const SoapOutcome outcome = engine_->Serve(call, &response->body);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  metrics_->RequestFinished();
  if (outcome.deferred) {  // it waits for the store: run it on the pool
    response->deferred = true;
    response->call = call;
    return;
  }
  metrics_->RecordRequest(outcome.operation, outcome.http_status == 200 ? 0 : outcome.sender_fault ? 1 : 2, seconds);
  AppendResponseHead(outcome.http_status, outcome.soap_version == 2 ? kSoap12ContentType : kSoap11ContentType,
                     response->body.size(), keep_alive, "", &response->head);
  response->close = !keep_alive;
}

}  // namespace lather
