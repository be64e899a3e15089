#include <catch2/catch.hpp>

#include "service/dispatch/soap_request_facts.h"
#include "service/http/http_request_parser.h"

using lather::HttpRequest;
using lather::JudgeSoapHead;
using lather::ReadSoapFacts;
using lather::SoapHeadVerdict;
using lather::SoapRequestFacts;

namespace {

HttpRequest Post(std::string_view content_type) {
  HttpRequest request;
  request.method = "POST";
  request.path = "/soap";
  request.content_type = content_type;
  request.body_framed = true;
  return request;
}

}  // namespace

TEST_CASE("a request's SOAP facts: the version and action each binding names", "[service][dispatch]") {
  HttpRequest soap11 = Post("text/xml; charset=utf-8");
  soap11.soap_action = "urn:lather#Increment";
  soap11.has_soap_action = true;
  const SoapRequestFacts f11 = ReadSoapFacts(soap11);
  CHECK(f11.version == 1);
  CHECK(f11.fault_version() == 1);
  CHECK(f11.action == "urn:lather#Increment");

  // SOAP 1.2 carries its action in the Content-Type; a SOAPAction header is not 1.2's.
  HttpRequest soap12 = Post("application/soap+xml; charset=utf-8; action=\"urn:lather#GetCounter\"");
  soap12.soap_action = "urn:other";
  const SoapRequestFacts f12 = ReadSoapFacts(soap12);
  CHECK(f12.version == 2);
  CHECK(f12.fault_version() == 2);
  CHECK(f12.action == "urn:lather#GetCounter");

  const SoapRequestFacts plain = ReadSoapFacts(Post("text/plain"));
  CHECK(plain.version == 0);
  CHECK(plain.fault_version() == 1);
}

TEST_CASE("a request's SOAP facts: its content coding", "[service][dispatch]") {
  HttpRequest request = Post("text/xml");
  CHECK(ReadSoapFacts(request).coding == SoapRequestFacts::Coding::kIdentity);
  request.content_encoding = "identity";
  CHECK(ReadSoapFacts(request).coding == SoapRequestFacts::Coding::kIdentity);
  for (const char* gzip : {"gzip", "x-gzip", "GZIP"}) {
    request.content_encoding = gzip;
    CHECK(ReadSoapFacts(request).coding == SoapRequestFacts::Coding::kGzip);
  }
  request.content_encoding = "br";
  CHECK(ReadSoapFacts(request).coding == SoapRequestFacts::Coding::kUnsupported);
}

TEST_CASE("the head's verdict follows the contract's order: 415, 411, 412, then the queue wait",
          "[service][dispatch]") {
  HttpRequest request = Post("text/plain");
  request.body_framed = false;
  request.has_if_match = true;
  // Every refusal applies; the first in the contract's order wins, and the wait is judged last.
  CHECK(JudgeSoapHead(ReadSoapFacts(request), 9.0, 0.05) == SoapHeadVerdict::kNotSoap);
  request.content_type = "application/soap+xml";
  CHECK(JudgeSoapHead(ReadSoapFacts(request), 9.0, 0.05) == SoapHeadVerdict::kUnframed);
  request.body_framed = true;
  CHECK(JudgeSoapHead(ReadSoapFacts(request), 9.0, 0.05) == SoapHeadVerdict::kPrecondition);
  request.has_if_match = false;
  CHECK(JudgeSoapHead(ReadSoapFacts(request), 9.0, 0.05) == SoapHeadVerdict::kBusy);
  CHECK(JudgeSoapHead(ReadSoapFacts(request), 0.05, 0.05) == SoapHeadVerdict::kServe);  // at the limit: served
  CHECK(JudgeSoapHead(ReadSoapFacts(request), 9.0, 0) == SoapHeadVerdict::kServe);     // no limit
}
