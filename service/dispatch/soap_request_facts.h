// SoapRequestFacts: what a request's head says about the SOAP call it carries (its version, action,
// content coding, framing, precondition), read once so that every later decision of the router takes the
// same value; and JudgeSoapHead, the decision the head alone makes (serve it, or which refusal). Plain
// values and stateless functions; thread-safe. The views point into the request's buffer.
#pragma once

#include <string_view>

#include "service/http/http_request_parser.h"

namespace lather {

struct SoapRequestFacts {
  enum class Coding { kIdentity, kGzip, kUnsupported };

  int version = 0;  // 1 (text/xml), 2 (application/soap+xml), 0 (not a SOAP media type)
  std::string_view content_type;
  std::string_view content_encoding;
  // The operation's action: the SOAPAction header for 1.1, the action parameter of the Content-Type for 1.2.
  std::string_view action;
  Coding coding = Coding::kIdentity;
  bool framed = false;        // Content-Length or chunked
  bool precondition = false;  // If-Match (false on /soap: RFC 9110 13.1.1)

  // The version a fault to this request is written in: 1.2's for application/soap+xml, 1.1's otherwise.
  int fault_version() const { return version == 2 ? 2 : 1; }
};

SoapRequestFacts ReadSoapFacts(const HttpRequest& request);

// What the head of a SOAP POST decides, in the contract's order: 415 (not a SOAP media type), 411 (not
// framed), 412 (If-Match), then 503 when it waited over the limit (`max_queue_wait` seconds, 0 for none).
enum class SoapHeadVerdict { kServe, kNotSoap, kUnframed, kPrecondition, kBusy };

SoapHeadVerdict JudgeSoapHead(const SoapRequestFacts& facts, double waited_seconds, double max_queue_wait);

}  // namespace lather
