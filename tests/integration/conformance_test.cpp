// Conformance rows of docs/conformance.md (issue 19): each TEST_CASE is one requirement of RFC 9110, RFC
// 9112, SOAP 1.1, SOAP 1.2 or WS-I Basic Profile 1.1 that applies to an origin server like ours, named with
// its section, sent as raw bytes to the real service. Both engines run them (the classic re-run in CTest).
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

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

// An Envelope of namespace `ns` around `body_content`, `before` and `after` it, and `envelope_attributes` on it.
std::string Message(const std::string& ns, const std::string& body_content, const std::string& after = "",
                    const std::string& envelope_attributes = "",
                    const std::string& before = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>") {
  return before + "<e:Envelope xmlns:e=\"" + ns + "\" xmlns:l=\"urn:lather:v1\"" + envelope_attributes + "><e:Body>" +
         body_content + "</e:Body></e:Envelope>" + after;
}

constexpr char kIncrement[] = "<l:Increment><l:value>41</l:value></l:Increment>";
constexpr char kEcho[] = "<l:EchoDataSamples><l:samples/></l:EchoDataSamples>";

// The faultstring (SOAP 1.1) or Reason text (SOAP 1.2) of a fault.
std::string Reason(const RawResponse& r) {
  const std::string text = ElementText(r.body, "faultstring");
  return text.empty() ? ElementText(r.body, "Text") : text;
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
  const std::string padding = lather::test::IncompressibleText(6000, 12345);
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

TEST_CASE("RFC 9112 3.2: a Host that is not host[:port] is answered 400", "[integration][conformance]") {
  ServiceProcess service;
  for (const char* host : {"a b", "user@lather.example", "lather.example:80:80"}) {
    INFO(host);
    const RawResponse r = SendRaw(service.port(), Post(kSoap11Type, Envelope(kEnv11), "Host: " + std::string(host) + "\r\n"));
    CHECK(r.status == 400);
    CHECK(Reason(r).find("not a valid host[:port]") != std::string::npos);
  }
  // RFC 9110 4.2.1: an http URI with an empty host is invalid, in the absolute-form too.
  CHECK(SendRaw(service.port(), "GET http://:80/soap?wsdl HTTP/1.1\r\nHost: x\r\n\r\n").status == 400);
  // A bracketed IPv6 literal is a host: the WSDL names it.
  const RawResponse wsdl = SendRaw(service.port(), "GET /soap?wsdl HTTP/1.1\r\nHost: [::1]:8080\r\nConnection: close\r\n\r\n");
  CHECK(wsdl.status == 200);
  CHECK(wsdl.body.find("\"http://[::1]:8080/soap\"") != std::string::npos);
}

TEST_CASE("RFC 9112 2.2: a CRLF after a request's body does not spoil the next request", "[integration][conformance]") {
  ServiceProcess service;
  lather::test::RawConnection c(service.port());
  const std::string request = Post(kSoap11Type, Envelope(kEnv11), "Host: x\r\n");
  REQUIRE(c.Send(request + "\r\n" + request));  // some clients end a POST body with CRLF
  for (int i = 0; i < 2; ++i) {
    const RawResponse r = c.Receive();
    CHECK(r.status == 200);
    CHECK(ElementText(r.body, "result") == "42");
  }
}

TEST_CASE("RFC 9112 6.1 and 6.3: Transfer-Encoding without chunked last or in HTTP/1.0 is answered 400",
          "[integration][conformance]") {
  ServiceProcess service;
  const std::string body = Envelope(kEnv11);
  char size[16];
  std::snprintf(size, sizeof size, "%zx", body.size());
  const std::string chunked = std::string(size) + "\r\n" + body + "\r\n0\r\n\r\n";
  const RawResponse old = SendRaw(service.port(), "POST /soap HTTP/1.0\r\nContent-Type: text/xml\r\nSOAPAction: \"\"\r\n"
                                                  "Transfer-Encoding: chunked\r\n\r\n" + chunked);
  CHECK(old.status == 400);
  CHECK(Reason(old).find("HTTP/1.0") != std::string::npos);
  const RawResponse last = SendRaw(service.port(), "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\n"
                                                   "Transfer-Encoding: chunked, gzip\r\n\r\n" + chunked);
  CHECK(last.status == 400);
  CHECK(last.closed);  // 6.3: "and then close the connection"
  // The same body chunked in HTTP/1.1 is served.
  CHECK(SendRaw(service.port(), "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nSOAPAction: \"\"\r\n"
                                "Transfer-Encoding: chunked\r\n\r\n" + chunked).status == 200);
}

TEST_CASE("RFC 9110 10.1.1: an expectation other than 100-continue is answered 417 and HTTP/1.0 gets no 100",
          "[integration][conformance]") {
  ServiceProcess service;
  const std::string body = Envelope(kEnv11);
  const RawResponse r = SendRaw(service.port(), "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nExpect: fly\r\n"
                                                "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n");
  CHECK(r.status == 417);
  CHECK(Reason(r).find("'fly' cannot be met") != std::string::npos);
  // A 100-continue expectation in an HTTP/1.0 request MUST be ignored: the first answer is the final one.
  const RawResponse old = SendRaw(service.port(), "POST /soap HTTP/1.0\r\nContent-Type: text/xml\r\nSOAPAction: \"\"\r\n"
                                                  "Expect: 100-continue\r\nContent-Length: " + std::to_string(body.size()) +
                                                      "\r\n\r\n" + body);
  CHECK(old.status == 200);
}

TEST_CASE("RFC 9110 7.6 and 7.8: Connection options and TE and Upgrade h2c and Via and Max-Forwards leave the answer HTTP/1.1",
          "[integration][conformance]") {
  ServiceProcess service;
  lather::test::RawConnection c(service.port());
  REQUIRE(c.Send(Post(kSoap11Type, Envelope(kEnv11),
                      "Host: x\r\nConnection: Upgrade, HTTP2-Settings, TE, x-option\r\nUpgrade: h2c\r\n"
                      "HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\nTE: trailers, gzip\r\nVia: 1.1 proxy.example\r\n"
                      "Max-Forwards: 0\r\n")));
  const RawResponse r = c.Receive();
  CHECK(r.status == 200);  // not 101: a server MAY ignore Upgrade, and this one does
  CHECK(r.Header("upgrade").empty());
  CHECK(r.Header("transfer-encoding").empty());  // TE allows codings; the answer keeps Content-Length
  CHECK_FALSE(r.Header("content-length").empty());
  // The connection persists (none of those options is close), and close among others in any case ends it.
  REQUIRE(c.Send(Post(kSoap11Type, Envelope(kEnv11), "Host: x\r\nConnection: TE, CLOSE\r\nTE: trailers\r\n")));
  const RawResponse last = c.Receive();
  CHECK(last.status == 200);
  CHECK(last.closed);
}

TEST_CASE("RFC 9112 9.6: no request after one with Connection: close is read", "[integration][conformance]") {
  ServiceProcess service;
  lather::test::RawConnection c(service.port());
  REQUIRE(c.Send(Post(kSoap11Type, Envelope(kEnv11), "Host: x\r\nConnection: close\r\n") +
                 Post(kSoap11Type, Envelope(kEnv11), "Host: x\r\n")));
  const RawResponse r = c.Receive();
  CHECK(r.status == 200);
  CHECK(r.closed);  // the pipelined second request got no answer
}

TEST_CASE("RFC 9110 9.3.7 and 9.3.8 and WS-I BP R1108: TRACE and OPTIONS get 405 with Allow and M-POST 501",
          "[integration][conformance]") {
  ServiceProcess service;
  const RawResponse r = SendRaw(service.port(), "TRACE /soap HTTP/1.1\r\nHost: x\r\nAuthorization: Basic c2VjcmV0\r\n"
                                                "Cookie: session=s3cr3t\r\n\r\n");
  CHECK(r.status == 405);
  CHECK(r.Header("allow") == "GET, HEAD, POST");
  CHECK(r.body.find("c2VjcmV0") == std::string::npos);
  CHECK(r.body.find("s3cr3t") == std::string::npos);
  const RawResponse options = SendRaw(service.port(), "OPTIONS /soap HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(options.status == 405);
  CHECK(options.Header("allow") == "GET, HEAD, POST");
  // R1108: the HTTP Extension Framework (RFC 2774) is not used; its M-POST is a method this server lacks.
  CHECK(SendRaw(service.port(), "M-POST /soap HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").status == 501);
  // RFC 9112 3.2.4: the asterisk-form is for OPTIONS only.
  CHECK(SendRaw(service.port(), "TRACE * HTTP/1.1\r\nHost: x\r\n\r\n").status == 400);
}

TEST_CASE("RFC 9110 14.2: Range is ignored on POST (a MUST) and on GET /soap?wsdl", "[integration][conformance]") {
  ServiceProcess service;
  const RawResponse post = SendRaw(service.port(), Post(kSoap11Type, Envelope(kEnv11), "Host: x\r\nRange: bytes=0-9\r\n"));
  CHECK(post.status == 200);
  CHECK(ElementText(post.body, "result") == "42");
  const RawResponse get = SendRaw(service.port(), "GET /soap?wsdl HTTP/1.1\r\nHost: x\r\nRange: bytes=0-9\r\nConnection: close\r\n\r\n");
  CHECK(get.status == 200);
  CHECK(get.Header("content-range").empty());
  CHECK(get.body.size() > 1000);
}

TEST_CASE("WS-I BP 1.1 R1009: a processing instruction anywhere is a Client or Sender fault but the XML declaration is not one",
          "[integration][conformance]") {
  ServiceProcess service;
  const std::string pi_body = "<l:Increment><?app hint?><l:value>41</l:value></l:Increment>";
  for (const std::string& message : {Message(kEnv11, kIncrement, "", "", "<?xml version=\"1.0\"?><?xml-stylesheet href=\"a\"?>"),
                                     Message(kEnv11, pi_body), Message(kEnv11, kIncrement, "<?app after?>"),
                                     Message(kEnv11, "<l:EchoDataSamples><?app?><l:samples/></l:EchoDataSamples>")}) {
    INFO(message);
    const RawResponse r = SendRaw(service.port(), Post(kSoap11Type, message, "Host: x\r\n"));
    CHECK(r.status == 500);
    CHECK(ElementText(r.body, "faultcode") == "SOAP-ENV:Client");
    CHECK(Reason(r).find("R1009") != std::string::npos);
  }
  // SOAP 1.2 part 1 section 5: a receiver SHOULD answer one with env:Sender (400 on the HTTP binding).
  const RawResponse r12 = SendRaw(service.port(), Post(kSoap12Type, Message(kEnv12, pi_body), "Host: x\r\n"));
  CHECK(r12.status == 400);
  CHECK(ElementText(r12.body, "Value") == "SOAP-ENV:Sender");
  // R1010: an XML declaration is accepted (R4001: after a UTF-8 byte order mark too).
  const RawResponse bom = SendRaw(service.port(), Post(kSoap11Type, "\xEF\xBB\xBF" + Message(kEnv11, kIncrement), "Host: x\r\n"));
  CHECK(bom.status == 200);
  CHECK(ElementText(bom.body, "result") == "42");
}

TEST_CASE("XML 1.0 2.1: content after the Envelope is a Client fault but a comment is not", "[integration][conformance]") {
  ServiceProcess service;
  for (const std::string& message : {Message(kEnv11, kIncrement, "<l:Increment/>"), Message(kEnv11, kIncrement, "\ntext"),
                                     Message(kEnv11, kIncrement, Message(kEnv11, kIncrement, "", "", "")),
                                     Message(kEnv11, kEcho, "<x/>")}) {
    INFO(message);
    const RawResponse r = SendRaw(service.port(), Post(kSoap11Type, message, "Host: x\r\n"));
    CHECK(r.status == 500);
    CHECK(Reason(r).find("content after the Envelope's end tag") != std::string::npos);
  }
  const RawResponse comment = SendRaw(service.port(), Post(kSoap11Type, Message(kEnv11, kIncrement, "\n<!-- end -->\n"), "Host: x\r\n"));
  CHECK(comment.status == 200);
  CHECK(ElementText(comment.body, "result") == "42");
}

TEST_CASE("WS-I BP 1.1 R1011 R1014 R2712: the Body is one qualified operation element and nothing follows it",
          "[integration][conformance]") {
  ServiceProcess service;
  const struct {
    std::string body_content;
    std::string after_body;
    const char* reason;
  } cases[] = {
      {"", "", "the Body holds no operation element"},
      {"<Increment xmlns=\"\"><value>41</value></Increment>", "", "is in no namespace; Body children must be namespace-qualified"},
      {std::string(kIncrement) + kIncrement, "", "more after its operation element"},
      {kIncrement, "<l:Extra/>", "no element may follow the Body"},
  };
  const RawResponse no_body = SendRaw(service.port(), Post(kSoap11Type, "<e:Envelope xmlns:e=\"" + std::string(kEnv11) + "\"/>", "Host: x\r\n"));
  CHECK(no_body.status == 500);
  CHECK(Reason(no_body).find("holds no Body") != std::string::npos);
  for (const auto& c : cases) {
    INFO(c.reason);
    std::string message = Message(kEnv11, c.body_content);
    message.insert(message.find("</e:Envelope>"), c.after_body);
    const RawResponse r = SendRaw(service.port(), Post(kSoap11Type, message, "Host: x\r\n"));
    CHECK(r.status == 500);
    CHECK(ElementText(r.body, "faultcode") == "SOAP-ENV:Client");
    CHECK(Reason(r).find(c.reason) != std::string::npos);
  }
}

TEST_CASE("WS-I BP 1.1 R1005 R1006: soap:encodingStyle on an envelope element or a Body child is a Client fault",
          "[integration][conformance]") {
  ServiceProcess service;
  const std::string style = " e:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\"";
  const RawResponse on_envelope = SendRaw(service.port(), Post(kSoap11Type, Message(kEnv11, kIncrement, "", style), "Host: x\r\n"));
  CHECK(on_envelope.status == 500);
  CHECK(Reason(on_envelope).find("R1005") != std::string::npos);
  const RawResponse on_child = SendRaw(
      service.port(), Post(kSoap11Type, Message(kEnv11, "<l:Increment" + style + "><l:value>41</l:value></l:Increment>"), "Host: x\r\n"));
  CHECK(on_child.status == 500);
  CHECK(ElementText(on_child.body, "faultcode") == "SOAP-ENV:Client");
  CHECK(Reason(on_child).find("R1006") != std::string::npos);
}

TEST_CASE("SOAP 1.2 part 1 5.1.1 and 5.4.6: encodingStyle on the Envelope is a Sender fault and an unknown encoding DataEncodingUnknown",
          "[integration][conformance]") {
  ServiceProcess service;
  const std::string encoded = " e:encodingStyle=\"http://www.w3.org/2003/05/soap-encoding\"";
  const RawResponse unknown = SendRaw(
      service.port(), Post(kSoap12Type, Message(kEnv12, "<l:Increment" + encoded + "><l:value>41</l:value></l:Increment>"), "Host: x\r\n"));
  CHECK(unknown.status == 500);  // part 2, table 20
  CHECK(ElementText(unknown.body, "Value") == "SOAP-ENV:DataEncodingUnknown");
  const RawResponse none = SendRaw(
      service.port(), Post(kSoap12Type, Message(kEnv12, "<l:Increment e:encodingStyle=\"http://www.w3.org/2003/05/soap-envelope/encoding/none\">"
                                                        "<l:value>41</l:value></l:Increment>"), "Host: x\r\n"));
  CHECK(none.status == 200);
  const RawResponse misplaced = SendRaw(service.port(), Post(kSoap12Type, Message(kEnv12, kIncrement, "", encoded), "Host: x\r\n"));
  CHECK(misplaced.status == 400);
  CHECK(ElementText(misplaced.body, "Value") == "SOAP-ENV:Sender");
}

TEST_CASE("SOAP 1.2 part 1 5.4.7: an Envelope in an unknown namespace gets VersionMismatch with an Upgrade header",
          "[integration][conformance]") {
  ServiceProcess service;
  const RawResponse r12 = SendRaw(service.port(), Post(kSoap12Type, Message("urn:not-soap", kIncrement), "Host: x\r\n"));
  CHECK(r12.status == 500);
  CHECK(r12.Header("content-type").rfind("application/soap+xml", 0) == 0);
  CHECK(ElementText(r12.body, "Value") == "env:VersionMismatch");
  CHECK(r12.body.find("<env:Upgrade><env:SupportedEnvelope qname=\"env12:Envelope\"") != std::string::npos);
  CHECK(r12.body.find("SupportedEnvelope qname=\"env11:Envelope\"") != std::string::npos);
  // On the SOAP 1.1 binding: SOAP 1.1's VersionMismatch, with SOAP 1.2's Upgrade block (appendix A).
  const RawResponse r11 = SendRaw(service.port(), Post(kSoap11Type, Message("urn:not-soap", kIncrement), "Host: x\r\n"));
  CHECK(r11.status == 500);
  CHECK(ElementText(r11.body, "faultcode") == "SOAP-ENV:VersionMismatch");
  CHECK(r11.body.find("SupportedEnvelope qname=\"env12:Envelope\"") != std::string::npos);
}

TEST_CASE("WS-I BP 1.1 R1119 R1127 and SOAP 1.2 part 2 7.1.4: the action is not relied on but checked against the Body",
          "[integration][conformance]") {
  ServiceProcess service;
  const std::string body = Envelope(kEnv11);
  const auto post11 = [&](const std::string& action_line) {
    return SendRaw(service.port(), "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\n" + action_line +
                                       "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  };
  // Served: unquoted (R1119: a receiver MAY fault it; this one does not), empty, absent, or not one of ours.
  for (const char* line : {"SOAPAction: urn:lather:v1#Increment\r\n", "SOAPAction: \"\"\r\n", "",
                           "SOAPAction: \"urn:lather:v1/Increment\"\r\n", "SOAPAction: \"http://other.example/Op\"\r\n"}) {
    INFO(line);
    const RawResponse r = post11(line);
    CHECK(r.status == 200);
    CHECK(ElementText(r.body, "result") == "42");
  }
  const RawResponse other = post11("SOAPAction: \"urn:lather:v1#HelloWorld\"\r\n");
  CHECK(other.status == 500);
  CHECK(Reason(other).find("names operation HelloWorld but the Body holds Increment") != std::string::npos);
  // SOAP 1.2: the action parameter of application/soap+xml, quoted or not; a SOAPAction header is not part of it.
  const std::string body12 = Envelope(kEnv12);
  const auto post12 = [&](const std::string& content_type, const std::string& extra) {
    return SendRaw(service.port(), "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: " + content_type + "\r\n" + extra +
                                       "Content-Length: " + std::to_string(body12.size()) + "\r\n\r\n" + body12);
  };
  CHECK(post12("application/soap+xml; charset=utf-8; action=urn:lather:v1#Increment", "").status == 200);
  CHECK(post12("application/soap+xml; action=\"urn:lather:v1#Increment\"", "SOAPAction: \"urn:lather:v1#HelloWorld\"\r\n").status == 200);
  const RawResponse mismatch = post12("application/soap+xml; action=\"urn:lather:v1#GetCounter\"", "");
  CHECK(mismatch.status == 400);
  CHECK(ElementText(mismatch.body, "Value") == "SOAP-ENV:Sender");
}

TEST_CASE("RFC 9110 9.3.7: OPTIONS * is answered 200 with the server's methods in Allow and no content",
          "[integration][conformance]") {
  ServiceProcess service;
  lather::test::RawConnection c(service.port());
  REQUIRE(c.Send("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n"));
  const RawResponse r = c.Receive();
  CHECK(r.status == 200);
  CHECK(r.Header("allow") == "GET, HEAD, OPTIONS, POST");
  CHECK(r.Header("content-length") == "0");
  CHECK(r.body.empty());
  // The connection stays usable.
  REQUIRE(c.Send(Post(kSoap11Type, Envelope(kEnv11), "Host: x\r\n")));
  CHECK(ElementText(c.Receive().body, "result") == "42");
}

TEST_CASE("RFC 9110 13.1.1: If-Match on POST /soap is false (no representation): 412 and the operation does not run",
          "[integration][conformance]") {
  ServiceProcess service;
  const std::string inc = Message(kEnv11, "<l:IncCounter><l:name>precondition</l:name></l:IncCounter>");
  const std::string post = "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nSOAPAction: "
                           "\"urn:lather:v1#IncCounter\"\r\nContent-Length: " + std::to_string(inc.size()) + "\r\n";
  for (const char* condition : {"If-Match: *\r\n", "If-Match: \"v1\", \"v2\"\r\n"}) {
    const RawResponse r = SendRaw(service.port(), post + condition + "\r\n" + inc);
    CHECK(r.status == 412);
    CHECK(Reason(r).find("If-Match") != std::string::npos);
  }
  // If-None-Match on POST is true here (nothing matches): the call runs, once.
  const RawResponse counted = SendRaw(service.port(), post + "If-None-Match: *\r\n\r\n" + inc);
  CHECK(counted.status == 200);
  CHECK(ElementText(counted.body, "result") == "1");
}

TEST_CASE("RFC 9110 13.1.1 and 13.1.2 and 8.8.3: on GET /soap?wsdl If-Match holds for * and its ETag, another "
          "tag is 412, If-None-Match: * answers 304",
          "[integration][conformance]") {
  ServiceProcess service;
  const std::string get = "GET /soap?wsdl HTTP/1.1\r\nHost: x\r\n";
  const RawResponse any = SendRaw(service.port(), get + "If-Match: *\r\n\r\n");
  CHECK(any.status == 200);
  CHECK(any.body.find("definitions") != std::string::npos);
  CHECK(SendRaw(service.port(), get + "If-Match: \"abc\"\r\n\r\n").status == 412);
  lather::test::RawConnection c(service.port());
  REQUIRE(c.Send(get + "If-None-Match: *\r\n\r\n"));
  const RawResponse not_modified = c.Receive();
  CHECK(not_modified.status == 304);
  CHECK(not_modified.Header("content-length").empty());  // it would have to be the WSDL's length
  CHECK(!not_modified.Header("date").empty());
  REQUIRE(c.Send(get + "If-None-Match: \"abc\"\r\n\r\n"));  // no tag matches: the WSDL
  const RawResponse full = c.Receive();
  CHECK(full.status == 200);
  // RFC 9110 8.8.3: the WSDL carries a strong entity tag; naming it makes If-Match hold and If-None-Match fail.
  const std::string tag = full.Header("etag");
  REQUIRE(tag.size() == 18);
  CHECK(tag.front() == '"');
  CHECK(not_modified.Header("etag") == tag);
  CHECK(SendRaw(service.port(), get + "If-Match: \"other\", " + tag + "\r\n\r\n").status == 200);
  CHECK(SendRaw(service.port(), get + "If-Match: W/" + tag + "\r\n\r\n").status == 412);  // strong comparison
  CHECK(SendRaw(service.port(), get + "If-None-Match: W/" + tag + "\r\n\r\n").status == 304);  // weak
  // The tag is of the bytes served: another Host names another address, so another tag.
  const RawResponse other = SendRaw(service.port(), "GET /soap?wsdl HTTP/1.1\r\nHost: elsewhere:81\r\n\r\n");
  CHECK(other.Header("etag") != tag);
  // 13.2.1: a request refused without its preconditions (405) ignores them.
  CHECK(SendRaw(service.port(), "PUT /soap HTTP/1.1\r\nHost: x\r\nIf-Match: *\r\nContent-Length: 0\r\n\r\n").status ==
        405);
}

TEST_CASE("a client that half-closes after its request gets the answer, and the connection is closed long before "
          "the idle deadline", "[integration][conformance]") {
  // The request and the FIN arrive together: the event engine's wait for the next request (the edge read) gets
  // no edge for the FIN, and must still not hold the connection for the whole idle timeout.
  ServiceProcess service("", {"--idle-timeout", "60000"});
  for (int i = 0; i < 2; ++i) {
    lather::test::RawConnection c(service.port());
    if (i == 1) {  // a keep-alive connection's second request
      REQUIRE(c.Send(Post(kSoap11Type, Envelope(kEnv11), "Host: x\r\n")));
      REQUIRE(c.Receive().status == 200);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the service waits for the request
    REQUIRE(c.Send(Post(kSoap11Type, Envelope(kEnv11), "Host: x\r\n")));
    REQUIRE(c.ShutdownWrite());
    const RawResponse answer = c.Receive();
    CHECK(answer.status == 200);
    CHECK(ElementText(answer.body, "result") == "42");
    CHECK(c.ClosedWithin(std::chrono::seconds(20)));  // the idle timeout is 60 s
  }
  // The service keeps serving.
  lather::test::RawConnection after(service.port());
  REQUIRE(after.Send(Post(kSoap11Type, Envelope(kEnv11), "Host: x\r\n")));
  CHECK(after.Receive().status == 200);
}

TEST_CASE("RFC 9112 2.2: a CRLF sent after a request leaves the connection idle, not in a request head that times out",
          "[integration][conformance]") {
  // A short header deadline and a long idle one: a connection wrongly left "in a head" gets 408 at 200 ms.
  ServiceProcess service("", {"--header-timeout", "200", "--idle-timeout", "20000"});
  lather::test::RawConnection c(service.port());
  REQUIRE(c.Send(Post(kSoap11Type, Envelope(kEnv11), "Host: x\r\n") + "\r\n"));
  CHECK(ElementText(c.Receive().body, "result") == "42");
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // three header deadlines
  REQUIRE(c.Send(Post(kSoap11Type, Envelope(kEnv11), "Host: x\r\n")));
  const RawResponse next = c.Receive();
  CHECK(next.status == 200);  // not a 408 for the CRLF, and the connection was kept
  CHECK(ElementText(next.body, "result") == "42");
}
