// Conformance rows of docs/conformance.md (issue 19): each TEST_CASE is one requirement of RFC 9110, RFC
// 9112, SOAP 1.1, SOAP 1.2 or WS-I Basic Profile 1.1 that applies to an origin server like ours, named with
// its section, sent as raw bytes to the real service. Both engines run them (the classic re-run in CTest).
#include <catch2/catch.hpp>

#include <string>

#include "tests/integration/raw_http.h"
#include "tests/integration/service_process.h"
#include "tests/integration/soap_fixtures.h"

using lather::test::ElementText;
using lather::test::kEnv11;
using lather::test::kEnv12;
using lather::test::kSoap11Type;
using lather::test::kSoap12Type;
using lather::test::RawResponse;
using lather::test::SendRaw;
using lather::test::ServiceProcess;

namespace {

std::string Envelope(const char* ns, const std::string& declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>") {
  return declaration + "<e:Envelope xmlns:e=\"" + std::string(ns) +
         "\" xmlns:l=\"urn:lather:v1\"><e:Body><l:Increment><l:value>41</l:value></l:Increment></e:Body></e:Envelope>";
}

std::string Post(const std::string& content_type, const std::string& body, const std::string& extra_headers) {
  return "POST /soap HTTP/1.1\r\n" + extra_headers + "Content-Type: " + content_type +
         "\r\nSOAPAction: \"urn:lather:v1#Increment\"\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
         body;
}

// UTF-16 in the given byte order of an ASCII text.
std::string Utf16(const std::string& ascii, bool big_endian, bool bom) {
  std::string out;
  if (bom) out += big_endian ? "\xFE\xFF" : "\xFF\xFE";
  for (char c : ascii) {
    if (big_endian) {
      out.push_back('\0');
      out.push_back(c);
    } else {
      out.push_back(c);
      out.push_back('\0');
    }
  }
  return out;
}

}  // namespace

TEST_CASE("RFC 9112 3.2: an HTTP/1.1 request without Host is answered 400", "[integration][conformance]") {
  ServiceProcess service;
  const RawResponse r = SendRaw(service.port(), Post(kSoap11Type, Envelope(kEnv11), ""));
  CHECK(r.status == 400);
  CHECK(ElementText(r.body, "faultstring").find("needs a Host header") != std::string::npos);
  // HTTP/1.0 has no such rule.
  const RawResponse old = SendRaw(service.port(), "POST /soap HTTP/1.0\r\nContent-Type: text/xml\r\nSOAPAction: \"\"\r\n"
                                                  "Content-Length: " + std::to_string(Envelope(kEnv11).size()) +
                                                      "\r\n\r\n" + Envelope(kEnv11));
  CHECK(old.status == 200);
}

TEST_CASE("RFC 9112 3.2: two Host header lines are answered 400", "[integration][conformance]") {
  ServiceProcess service;
  const RawResponse r = SendRaw(service.port(), Post(kSoap11Type, Envelope(kEnv11), "Host: a\r\nHost: b\r\n"));
  CHECK(r.status == 400);
  CHECK(ElementText(r.body, "faultstring").find("more than one Host") != std::string::npos);
}

TEST_CASE("RFC 9110 5.5: a NUL byte in a header value is rejected with 400", "[integration][conformance]") {
  ServiceProcess service;
  const RawResponse r =
      SendRaw(service.port(), Post(kSoap11Type, Envelope(kEnv11), std::string("Host: x\r\nX-Note: a\0b\r\n", 23)));
  CHECK(r.status == 400);
  CHECK(ElementText(r.body, "faultstring").find("NUL byte") != std::string::npos);
}

TEST_CASE("RFC 9110 9.3.2: HEAD /soap?wsdl answers GET's head without its content", "[integration][conformance]") {
  ServiceProcess service;
  const RawResponse get = SendRaw(service.port(), "GET /soap?wsdl HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  REQUIRE(get.status == 200);
  // With Connection: close the server ends the connection after the response: what arrived is all it sent.
  const RawResponse head = SendRaw(service.port(), "HEAD /soap?wsdl HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(head.status == 200);
  CHECK(head.Header("content-length") == get.Header("content-length"));
  CHECK(head.Header("content-type") == get.Header("content-type"));
  CHECK(head.body.empty());
}

TEST_CASE("RFC 9110 9.1: an unknown method is answered 501, a known one not allowed 405 with Allow",
          "[integration][conformance]") {
  ServiceProcess service;
  const RawResponse unknown = SendRaw(service.port(), "BREW /soap HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(unknown.status == 501);
  const RawResponse put = SendRaw(service.port(), "PUT /soap HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  CHECK(put.status == 405);
  // RFC 9110 10.2.1: Allow lists the methods the resource supports (the contract: GET, HEAD and POST).
  CHECK(put.Header("allow") == "GET, HEAD, POST");
  const RawResponse delete_wsdl = SendRaw(service.port(), "DELETE /soap?wsdl HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(delete_wsdl.status == 405);
  CHECK(delete_wsdl.Header("allow") == "GET, HEAD, POST");
}

TEST_CASE("SOAP 1.2 part 1 appendix A: a SOAP 1.2 envelope on the SOAP 1.1 binding gets a 1.1 VersionMismatch",
          "[integration][conformance]") {
  ServiceProcess service;
  const RawResponse r = SendRaw(service.port(), Post(kSoap11Type, Envelope(kEnv12), "Host: x\r\n"));
  CHECK(r.status == 500);
  CHECK(r.Header("content-type").rfind("text/xml", 0) == 0);
  CHECK(r.body.find(kEnv11) != std::string::npos);
  CHECK(ElementText(r.body, "faultcode") == "SOAP-ENV:VersionMismatch");
  // SOAP 1.2 part 1, 5.4.7: the Upgrade header block names the envelopes supported.
  CHECK(r.body.find("Upgrade") != std::string::npos);
  CHECK(r.body.find("SupportedEnvelope qname=\"env12:Envelope\"") != std::string::npos);
}

TEST_CASE("SOAP 1.2 part 1 appendix A: a SOAP 1.1 envelope on the SOAP 1.2 binding gets a 1.1 VersionMismatch",
          "[integration][conformance]") {
  ServiceProcess service;
  const RawResponse r = SendRaw(service.port(), Post(kSoap12Type, Envelope(kEnv11), "Host: x\r\n"));
  CHECK(r.status == 500);
  CHECK(ElementText(r.body, "faultcode") == "SOAP-ENV:VersionMismatch");
  CHECK(ElementText(r.body, "faultstring").find("SOAP 1.1 envelope was sent with Content-Type application/soap+xml") !=
        std::string::npos);
}

TEST_CASE("WS-I BP 1.1 R1012: UTF-16 requests, with or without a byte order mark, are served",
          "[integration][conformance]") {
  ServiceProcess service;
  const std::string text = Envelope(kEnv11, "<?xml version=\"1.0\" encoding=\"UTF-16\"?>");
  for (const bool big_endian : {false, true}) {
    for (const bool bom : {true, false}) {
      INFO("big endian " << big_endian << ", BOM " << bom);
      const RawResponse r =
          SendRaw(service.port(), Post("text/xml; charset=utf-16", Utf16(text, big_endian, bom), "Host: x\r\n"));
      CHECK(r.status == 200);
      CHECK(ElementText(r.body, "result") == "42");
    }
  }
  // SOAP 1.2 too, and the charset alone (no BOM, little-endian sniffed from '<' beside a zero byte).
  const RawResponse r12 = SendRaw(
      service.port(), Post("application/soap+xml; charset=utf-16", Utf16(Envelope(kEnv12), false, false), "Host: x\r\n"));
  CHECK(r12.status == 200);
  CHECK(ElementText(r12.body, "result") == "42");
}

TEST_CASE("WS-I BP 1.1 R1012: invalid UTF-16 is a Client fault that says why", "[integration][conformance]") {
  ServiceProcess service;
  const std::string body = Utf16(Envelope(kEnv11), false, true) + std::string("\x00\xD8", 2);  // a lone surrogate
  const RawResponse r = SendRaw(service.port(), Post("text/xml; charset=utf-16", body, "Host: x\r\n"));
  CHECK(r.status == 500);
  CHECK(ElementText(r.body, "faultcode").find("Client") != std::string::npos);
  CHECK(ElementText(r.body, "faultstring").find("unpaired surrogate") != std::string::npos);
  const RawResponse odd = SendRaw(service.port(), Post("text/xml; charset=utf-16", body + "x", "Host: x\r\n"));
  CHECK(ElementText(odd.body, "faultstring").find("odd number of bytes") != std::string::npos);
}

TEST_CASE("RFC 9112 3.2.2: a request in absolute-form is served, its authority taking the Host's place",
          "[integration][conformance]") {
  ServiceProcess service;
  const std::string body = Envelope(kEnv11);
  const RawResponse r = SendRaw(service.port(), "POST http://127.0.0.1:" + std::to_string(service.port()) +
                                                    "/soap HTTP/1.1\r\nHost: ignored.example\r\nContent-Type: text/xml\r\n"
                                                    "SOAPAction: \"\"\r\nContent-Length: " + std::to_string(body.size()) +
                                                    "\r\n\r\n" + body);
  CHECK(r.status == 200);
  CHECK(ElementText(r.body, "result") == "42");
  // The WSDL's address comes from the authority, not the Host header.
  const RawResponse wsdl = SendRaw(service.port(), "GET http://lather.example:8080/soap?wsdl HTTP/1.1\r\nHost: other\r\n"
                                                   "Connection: close\r\n\r\n");
  CHECK(wsdl.status == 200);
  CHECK(wsdl.body.find("http://lather.example:8080/soap") != std::string::npos);
}

TEST_CASE("RFC 9110 6.6.1: responses carry a Date, 2xx and 4xx alike", "[integration][conformance]") {
  ServiceProcess service;
  const RawResponse ok = SendRaw(service.port(), Post(kSoap11Type, Envelope(kEnv11), "Host: x\r\n"));
  const RawResponse bad = SendRaw(service.port(), "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n");
  for (const RawResponse* r : {&ok, &bad}) {
    const std::string date = r->Header("date");
    INFO(date);
    // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
    REQUIRE(date.size() == 29);
    CHECK(date.substr(3, 2) == ", ");
    CHECK(date.substr(26) == "GMT");
  }
  CHECK(bad.status == 404);
}

TEST_CASE("RFC 9110 10.1.1: Expect 100-continue gets 100 Continue before the body is sent, then the answer",
          "[integration][conformance]") {
  ServiceProcess service;
  const std::string body = Envelope(kEnv11);
  lather::test::RawConnection c(service.port());
  REQUIRE(c.Send("POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nSOAPAction: \"\"\r\nExpect: 100-continue\r\n"
                 "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n"));
  const RawResponse interim = c.Receive();
  CHECK(interim.status == 100);
  REQUIRE(c.Send(body));
  const RawResponse answer = c.Receive();
  CHECK(answer.status == 200);
  CHECK(ElementText(answer.body, "result") == "42");
}

TEST_CASE("WS-I BP 1.1 R1012: a large gzip-encoded UTF-16 request is decoded and transcoded on the pool",
          "[integration][conformance][gzip]") {
  ServiceProcess service;
  // Over 4 KiB compressed: the pool decodes it. Random-looking padding keeps it from compressing away.
  std::string padding;
  uint32_t x = 12345;
  for (int i = 0; i < 6000; ++i) {
    x = x * 1103515245 + 12345;
    padding.push_back(static_cast<char>('a' + (x >> 16) % 26));
  }
  const std::string text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><!-- " + padding + " -->" +
                           Envelope(kEnv11).substr(std::string("<?xml version=\"1.0\" encoding=\"UTF-8\"?>").size());
  const std::string compressed = lather::test::Gzip(Utf16(text, false, true));
  REQUIRE(compressed.size() > 4096);
  std::string request = lather::test::EncodedPost("text/xml; charset=utf-16", compressed, "gzip");
  request.insert(request.find("\r\n") + 2, "SOAPAction: \"urn:lather:v1#Increment\"\r\n");
  const RawResponse r = SendRaw(service.port(), request);
  CHECK(r.status == 200);
  CHECK(ElementText(r.body, "result") == "42");
}
