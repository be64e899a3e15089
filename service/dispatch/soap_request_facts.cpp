#include "service/dispatch/soap_request_facts.h"

#include "service/http/gzip_body.h"
#include "service/http/http_response.h"
#include "service/soap/fault_envelope.h"

namespace lather {

SoapRequestFacts ReadSoapFacts(const HttpRequest& request) {
  SoapRequestFacts facts;
  facts.version = SoapVersionOfContentType(request.content_type);
  facts.content_type = request.content_type;
  facts.content_encoding = request.content_encoding;
  facts.action = facts.version == 2 ? ContentTypeParameter(request.content_type, "action") : request.soap_action;
  if (!request.content_encoding.empty() && request.content_encoding != "identity") {
    facts.coding = IsGzipCoding(request.content_encoding) ? SoapRequestFacts::Coding::kGzip
                                                          : SoapRequestFacts::Coding::kUnsupported;
  }
  facts.framed = request.body_framed;
  facts.precondition = request.has_if_match;
  return facts;
}

SoapHeadVerdict JudgeSoapHead(const SoapRequestFacts& facts, double waited_seconds, double max_queue_wait) {
  if (facts.version == 0) return SoapHeadVerdict::kNotSoap;
  if (!facts.framed) return SoapHeadVerdict::kUnframed;
  if (facts.precondition) return SoapHeadVerdict::kPrecondition;
  if (max_queue_wait > 0 && waited_seconds > max_queue_wait) return SoapHeadVerdict::kBusy;
  return SoapHeadVerdict::kServe;
}

}  // namespace lather
