#include "service/http/http_request_parser.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using lather::HttpLimits;
using lather::HttpRequestParser;
using Result = HttpRequestParser::Result;

namespace {
Result ParseAll(HttpRequestParser* parser, const std::string& bytes) { return parser->Parse(bytes); }
}  // namespace

TEST_CASE("a POST with Content-Length is parsed with its head fields and body", "[service][http]") {
  HttpLimits limits;
  HttpRequestParser parser(limits);
  const std::string bytes =
      "POST /soap?x=1 HTTP/1.1\r\nHost: example:80\r\nContent-Type: text/xml; charset=utf-8\r\n"
      "SOAPAction: \"urn:lather:v1#Increment\"\r\nContent-Length: 5\r\n\r\nhelloEXTRA";
  REQUIRE(ParseAll(&parser, bytes) == Result::kComplete);
  const auto& r = parser.request();
  CHECK(r.method == "POST");
  CHECK(r.path == "/soap");
  CHECK(r.query == "x=1");
  CHECK(r.host == "example:80");
  CHECK(r.content_type == "text/xml; charset=utf-8");
  CHECK(r.soap_action == "urn:lather:v1#Increment");
  CHECK(r.has_soap_action);
  CHECK(r.keep_alive);
  CHECK(r.body == "hello");
  CHECK(parser.consumed() == bytes.size() - 5);
}

TEST_CASE("a request arriving one byte at a time completes exactly once", "[service][http]") {
  HttpLimits limits;
  HttpRequestParser parser(limits);
  const std::string bytes = "POST /soap HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc";
  std::string buffer;
  for (size_t i = 0; i < bytes.size(); ++i) {
    buffer.push_back(bytes[i]);
    const Result r = parser.Parse(buffer);
    if (i + 1 < bytes.size()) {
      REQUIRE(r == Result::kNeedMore);
    } else {
      REQUIRE(r == Result::kComplete);
    }
  }
  CHECK(parser.request().body == "abc");
}

TEST_CASE("a chunked body is decoded, extensions and trailers ignored", "[service][http]") {
  HttpLimits limits;
  HttpRequestParser parser(limits);
  const std::string bytes =
      "POST /soap HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
      "4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Trailer: 1\r\n\r\n";
  REQUIRE(parser.Parse(bytes) == Result::kComplete);
  CHECK(parser.request().body == "Wikipedia");
  CHECK(parser.consumed() == bytes.size());
}

TEST_CASE("a chunked body's decoded bytes can be dropped as it arrives, byte by byte or in pieces",
          "[service][http]") {
  // What an event-engine connection does: after each Parse that needs more, drop decoded_prefix() bytes from the
  // front of its buffer and tell the parser (Discard); the buffer then never holds the raw chunks already decoded.
  const std::string request =
      "POST /soap HTTP/1.1\r\nHost: h\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;ext=1\r\nhello\r\n1a\r\n, a body in three chunks, \r\n3\r\nend\r\n0\r\nTrailer: x\r\n\r\n";
  const std::string next = "GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n";
  for (size_t piece : {size_t{1}, size_t{2}, size_t{7}, size_t{64}}) {
    HttpLimits limits;
    HttpRequestParser parser(limits);
    const std::string all = request + next;
    std::string buffer;  // what the connection holds
    size_t fed = 0, most_held = 0;
    Result result = Result::kNeedMore;
    while (result == Result::kNeedMore && fed < all.size()) {
      buffer += all.substr(fed, piece);
      fed += std::min(piece, all.size() - fed);
      result = parser.Parse(buffer);
      if (result != Result::kNeedMore) break;
      const size_t decoded = parser.decoded_prefix();
      REQUIRE(decoded <= buffer.size());
      buffer.erase(0, decoded);
      parser.Discard(decoded);
      if (parser.in_chunked_body()) most_held = std::max(most_held, buffer.size());
    }
    INFO("pieces of " << piece);
    REQUIRE(result == Result::kComplete);
    CHECK(parser.request().body == "hello, a body in three chunks, end");
    CHECK(parser.request().content_type == "text/xml");  // head fields outlive the head's bytes
    CHECK(parser.request().method == "POST");
    CHECK(parser.discarded() + parser.consumed() == request.size());
    buffer.erase(0, parser.consumed());
    CHECK(next.substr(0, buffer.size()) == buffer);  // what came after the request is kept
    CHECK(most_held <= piece + 16);  // never the raw chunks: a partial size or trailer line and the last piece
    parser.Reset();
    CHECK(parser.discarded() == 0);
    CHECK(parser.decoded_prefix() == 0);
  }
}

TEST_CASE("a large chunked body's memory is handed over once it is answered, and a small one kept for reuse",
          "[service][http]") {
  HttpLimits limits;  // 64 MiB
  HttpRequestParser parser(limits);
  const std::string piece(64 * 1024, 'x');
  std::string request = "POST /soap HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 100; ++i) request += "10000\r\n" + piece + "\r\n";  // 6.4 MB, past the 4 MiB mapping size
  request += "0\r\n\r\n";
  REQUIRE(parser.Parse(request) == Result::kComplete);
  CHECK(parser.request().body.size() == 100 * piece.size());
  CHECK(parser.request().body.find_first_not_of('x') == std::string_view::npos);
  const lather::Bytes large = parser.TakeLargeBody();
  CHECK(large != nullptr);
  CHECK(parser.request().body.empty());  // the view ends with the memory handed over
  parser.Reset();

  const std::string small = "POST /soap HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
  REQUIRE(parser.Parse(small) == Result::kComplete);
  CHECK(parser.request().body == "hello");
  CHECK(parser.TakeLargeBody() == nullptr);
  parser.Reset();
  REQUIRE(parser.Parse(small) == Result::kComplete);  // into the memory kept
  CHECK(parser.request().body == "hello");

  // At the limit exactly: accepted; a byte over: 413, before the byte is decoded.
  HttpLimits tight;
  tight.max_body_bytes = 5 * 1024 * 1024;
  HttpRequestParser bounded(tight);
  const std::string head = "POST /soap HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string at_limit = head + "500000\r\n" + std::string(tight.max_body_bytes, 'y') + "\r\n0\r\n\r\n";
  REQUIRE(bounded.Parse(at_limit) == Result::kComplete);
  CHECK(bounded.request().body.size() == tight.max_body_bytes);
  bounded.Reset();
  CHECK(bounded.Parse(head + "500000\r\n" + std::string(tight.max_body_bytes, 'y') + "\r\n1\r\n") == Result::kError);
  CHECK(bounded.error_status() == 413);
}

TEST_CASE("HTTP/1.0 and Connection: close turn keep-alive off", "[service][http]") {
  HttpLimits limits;
  HttpRequestParser a(limits), b(limits), c(limits);
  REQUIRE(a.Parse("GET /healthz HTTP/1.0\r\n\r\n") == Result::kComplete);
  CHECK_FALSE(a.request().keep_alive);
  REQUIRE(b.Parse("GET /healthz HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n") == Result::kComplete);
  CHECK_FALSE(b.request().keep_alive);
  REQUIRE(c.Parse("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n") == Result::kComplete);
  CHECK(c.request().keep_alive);
  CHECK(c.request().http10);
}

TEST_CASE("bad framing is rejected with the contract's status", "[service][http]") {
  HttpLimits limits;
  limits.max_body_bytes = 1000;
  struct Case {
    const char* name;
    std::string bytes;
    int status;
  };
  const Case cases[] = {
      {"Content-Length and chunked together", "POST /soap HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"conflicting Content-Length", "POST /soap HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\n", 400},
      {"negative Content-Length", "POST /soap HTTP/1.1\r\nHost: h\r\nContent-Length: -4\r\n\r\n", 400},
      {"non-numeric Content-Length", "POST /soap HTTP/1.1\r\nHost: h\r\nContent-Length: 4x\r\n\r\n", 400},
      {"huge Content-Length", "POST /soap HTTP/1.1\r\nHost: h\r\nContent-Length: 3000000000\r\n\r\nabcd", 413},
      // RFC 9112 6.3: chunked not the final coding: the length is unknown, 400; 6.1: a coding we lack before it, 501.
      {"transfer coding without chunked", "POST /soap HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 400},
      {"unknown transfer coding", "POST /soap HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501},
      {"obfuscated transfer coding", "POST /soap HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n\r\n", 400},
      {"20 hex digit chunk size", "POST /soap HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n", 400},
      {"non-hex chunk size", "POST /soap HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
      {"chunked over the limit", "POST /soap HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3E9\r\n", 413},
      {"folded header", "POST /soap HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n  continued\r\n\r\n", 400},
      {"space before colon", "POST /soap HTTP/1.1\r\nHost: h\r\nContent-Length : 4\r\n\r\n", 400},
      {"bad request line", "POST  /soap HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"unknown HTTP version", "POST /soap HTTP/2.0\r\n\r\n", 505},
      {"not HTTP at all", "\x16\x03\x01 hello\r\n\r\n", 400},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    HttpRequestParser parser(limits);
    REQUIRE(parser.Parse(c.bytes) == Result::kError);
    CHECK(parser.error_status() == c.status);
    CHECK_FALSE(parser.error_reason().empty());
  }
}

TEST_CASE("an oversized request line is 414 and oversized headers are 431", "[service][http]") {
  HttpLimits limits;
  HttpRequestParser url(limits);
  CHECK(url.Parse("GET /" + std::string(20000, 'a')) == Result::kError);
  CHECK(url.error_status() == 414);

  HttpRequestParser line(limits);
  CHECK(line.Parse("POST /soap HTTP/1.1\r\nHost: h\r\nX-Big: " + std::string(20000, 'a')) == Result::kError);
  CHECK(line.error_status() == 431);

  HttpRequestParser many(limits);
  std::string bytes = "POST /soap HTTP/1.1\r\nHost: h\r\n";
  for (int i = 0; i < 200; ++i) bytes += "X-" + std::to_string(i) + ": 1\r\n";
  CHECK(many.Parse(bytes + "\r\n") == Result::kError);
  CHECK(many.error_status() == 431);
}

TEST_CASE("Reset lets the parser read a pipelined second request", "[service][http]") {
  HttpLimits limits;
  HttpRequestParser parser(limits);
  std::string buffer =
      "POST /soap HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nAGET /healthz HTTP/1.1\r\nHost: h\r\n\r\n";
  REQUIRE(parser.Parse(buffer) == Result::kComplete);
  CHECK(parser.request().body == "A");
  buffer.erase(0, parser.consumed());
  parser.Reset();
  REQUIRE(parser.Parse(buffer) == Result::kComplete);
  CHECK(parser.request().method == "GET");
  CHECK(parser.request().path == "/healthz");
  CHECK_FALSE(parser.request().body_framed);
}

TEST_CASE("the Authorization header is kept for the request and cleared by Reset", "[service][http]") {
  HttpLimits limits;
  HttpRequestParser parser(limits);
  const std::string first = "POST /soap HTTP/1.1\r\nHost: h\r\nauthorization:  Basic YTpi \r\nContent-Length: 0\r\n\r\n";
  REQUIRE(ParseAll(&parser, first) == Result::kComplete);
  CHECK(parser.request().authorization == "Basic YTpi");
  parser.Reset();
  REQUIRE(ParseAll(&parser, "POST /soap HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n") == Result::kComplete);
  CHECK(parser.request().authorization.empty());
}

TEST_CASE("an HTTP/1.1 request needs exactly one Host header, and no header value holds a NUL",
          "[http][conformance]") {
  lather::HttpLimits limits;
  const struct {
    const char* name;
    std::string bytes;
    int status;
  } cases[] = {
      {"no Host", "GET /healthz HTTP/1.1\r\n\r\n", 400},
      {"two Host lines", "GET /healthz HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", 400},
      {"NUL in a value", std::string("GET /healthz HTTP/1.1\r\nHost: a\r\nX-A: 1\0 2\r\n\r\n", 45), 400},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    lather::HttpRequestParser parser(limits);
    CHECK(parser.Parse(c.bytes) == Result::kError);
    CHECK(parser.error_status() == c.status);
  }
  lather::HttpRequestParser old(limits);
  CHECK(old.Parse("GET /healthz HTTP/1.0\r\n\r\n") == Result::kComplete);  // HTTP/1.0 may omit Host
}

TEST_CASE("a Host that is not host[:port] is 400 but an empty one is accepted", "[http][conformance]") {
  lather::HttpLimits limits;
  for (const char* host : {"a b", "user@example.com", "example.com:80:80", "example.com:8o", "[::1", "[not-v6]:80",
                           "a/b", "\"quoted\""}) {
    INFO(host);
    lather::HttpRequestParser parser(limits);
    CHECK(parser.Parse(std::string("GET /healthz HTTP/1.1\r\nHost: ") + host + "\r\n\r\n") == Result::kError);
    CHECK(parser.error_status() == 400);
    CHECK(parser.error_reason().find("not a valid host[:port]") != std::string::npos);
  }
  // RFC 9112 3.2: "any request message": HTTP/1.0 too.
  lather::HttpRequestParser old(limits);
  CHECK(old.Parse("GET /healthz HTTP/1.0\r\nHost: a b\r\n\r\n") == Result::kError);
  for (const char* host : {"", "example.com", "127.0.0.1:8080", "[::1]:8080", "xn--bcher-kva.example:"}) {
    INFO(host);
    lather::HttpRequestParser parser(limits);
    REQUIRE(parser.Parse(std::string("GET /healthz HTTP/1.1\r\nHost: ") + host + "\r\n\r\n") == Result::kComplete);
    CHECK(parser.request().host == host);
  }
  // The absolute-form's authority: RFC 9110 4.2.1 (an empty host MUST be rejected), 4.2.4 (userinfo).
  for (const char* target : {"http://:80/soap", "http://user@lather.example/soap", "http://a b/soap"}) {
    INFO(target);
    lather::HttpRequestParser parser(limits);
    CHECK(parser.Parse(std::string("GET ") + target + " HTTP/1.1\r\nHost: h\r\n\r\n") == Result::kError);
    CHECK(parser.error_status() == 400);
  }
}

TEST_CASE("empty lines before a request line are skipped", "[http][conformance]") {
  lather::HttpLimits limits;
  lather::HttpRequestParser parser(limits);
  // RFC 9112 2.2: a server SHOULD ignore at least one empty line before the request line (a client's
  // CRLF after a POST body, read as the start of the next request).
  const std::string bytes = "\r\n\r\nPOST /soap HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nokX";
  REQUIRE(parser.Parse(bytes) == Result::kComplete);
  CHECK(parser.request().method == "POST");
  CHECK(parser.request().body == "ok");
  CHECK(parser.consumed() == bytes.size() - 1);
  // Only CRLFs are skipped, and no more than the head's limit allows.
  lather::HttpRequestParser flood(limits);
  std::string lines;
  for (size_t i = 0; i < limits.max_header_bytes / 2 + 1; ++i) lines += "\r\n";
  CHECK(flood.Parse(lines) == Result::kError);
  CHECK(flood.error_status() == 431);
}

TEST_CASE("Transfer-Encoding in an HTTP/1.0 request is bad framing", "[http][conformance]") {
  lather::HttpLimits limits;
  lather::HttpRequestParser parser(limits);
  // RFC 9112 6.1: the recipient MUST treat it as faulty framing.
  CHECK(parser.Parse("POST /soap HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") == Result::kError);
  CHECK(parser.error_status() == 400);
  CHECK(parser.error_reason().find("HTTP/1.0") != std::string::npos);
  lather::HttpRequestParser twice(limits);
  CHECK(twice.Parse("POST /soap HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, chunked\r\n\r\n") == Result::kError);
  CHECK(twice.error_status() == 400);
  lather::HttpRequestParser lines(limits);  // one list over two lines, chunked last: fine
  REQUIRE(lines.Parse("POST /soap HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: \r\nTransfer-Encoding: Chunked\r\n\r\n"
                      "2\r\nok\r\n0\r\n\r\n") == Result::kComplete);
  CHECK(lines.request().body == "ok");
}

TEST_CASE("an expectation other than 100-continue is 417 and HTTP/1.0 ignores 100-continue", "[http][conformance]") {
  lather::HttpLimits limits;
  for (const char* expect : {"fly", "100-continue, fly", "100-continue=1"}) {
    INFO(expect);
    lather::HttpRequestParser parser(limits);
    CHECK(parser.Parse(std::string("POST /soap HTTP/1.1\r\nHost: h\r\nExpect: ") + expect +
                       "\r\nContent-Length: 2\r\n\r\n") == Result::kError);
    CHECK(parser.error_status() == 417);
  }
  lather::HttpRequestParser ok(limits);
  REQUIRE(ok.Parse("POST /soap HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\n") ==
          Result::kNeedMore);
  CHECK(ok.head_complete());
  CHECK(ok.request().expect_continue);
  // RFC 9110 10.1.1: a 100-continue expectation in an HTTP/1.0 request MUST be ignored.
  lather::HttpRequestParser old(limits);
  REQUIRE(old.Parse("POST /soap HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n") == Result::kNeedMore);
  CHECK_FALSE(old.request().expect_continue);
}

TEST_CASE("the asterisk-form is only for OPTIONS", "[http][conformance]") {
  lather::HttpLimits limits;
  lather::HttpRequestParser options(limits);
  REQUIRE(options.Parse("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n") == Result::kComplete);
  CHECK(options.request().path == "*");
  lather::HttpRequestParser get(limits);
  CHECK(get.Parse("GET * HTTP/1.1\r\nHost: h\r\n\r\n") == Result::kError);
  CHECK(get.error_status() == 400);
  // HTTP/2's connection preface reads as PRI * HTTP/2.0: the version decides (505).
  lather::HttpRequestParser preface(limits);
  CHECK(preface.Parse("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") == Result::kError);
  CHECK(preface.error_status() == 505);
}

TEST_CASE("Connection options other than close and keep-alive are ignored and close wins in any case",
          "[http][conformance]") {
  lather::HttpLimits limits;
  lather::HttpRequestParser upgrade(limits);
  REQUIRE(upgrade.Parse("GET /healthz HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, HTTP2-Settings, TE\r\n"
                        "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\nTE: trailers\r\n\r\n") ==
          Result::kComplete);
  CHECK(upgrade.request().keep_alive);
  lather::HttpRequestParser close(limits);
  REQUIRE(close.Parse("GET /healthz HTTP/1.1\r\nHost: h\r\nConnection: x-option\r\nConnection: TE, CLOSE\r\n\r\n") ==
          Result::kComplete);
  CHECK_FALSE(close.request().keep_alive);
  lather::HttpRequestParser both(limits);  // HTTP/1.0: keep-alive asked for, but close also named: close
  REQUIRE(both.Parse("GET /healthz HTTP/1.0\r\nConnection: Keep-Alive, close\r\n\r\n") == Result::kComplete);
  CHECK_FALSE(both.request().keep_alive);
}

TEST_CASE("header names are read in any case, and a name a byte away from one is another header", "[service][http]") {
  HttpLimits limits;
  const std::string body = "hello";
  for (const std::string& spelling : {"content-length", "CONTENT-LENGTH", "Content-Length", "cOnTeNt-LeNgTh"}) {
    HttpRequestParser parser(limits);
    const std::string bytes = "POST /soap HTTP/1.1\r\nhOsT: h\r\n" + spelling + ": 5\r\n"
                              "SOAPACTION: \"a\"\r\nContent-type: text/xml\r\nX-LATHER-FAULT: crash\r\n"
                              "x-forwarded-PROTO: https\r\nauthorization: Basic x\r\nCONNECTION: close\r\n\r\n" + body;
    INFO(spelling);
    REQUIRE(parser.Parse(bytes) == Result::kComplete);
    const auto& r = parser.request();
    CHECK(r.host == "h");
    CHECK(r.body == "hello");
    CHECK(r.soap_action == "a");
    CHECK(r.content_type == "text/xml");
    CHECK(r.fault == "crash");
    CHECK(r.forwarded_proto == "https");
    CHECK(r.authorization == "Basic x");
    CHECK_FALSE(r.keep_alive);
  }
  // Names one byte off each field the parser reads, in the positions the eight-byte compare covers and the
  // tail: none is the field (the request has no Content-Length, so no body; no SOAPAction; no Host is a 400).
  for (const std::string& near : {"content_length", "content-lengti", "Dontent-Length", "content^length",
                                  "soapactioN_", "soap_action", "x-lather-faulu", "x_lather-fault",
                                  "content-type_", "content~type"}) {
    HttpRequestParser parser(limits);
    const std::string bytes = "POST /soap HTTP/1.1\r\nHost: h\r\n" + near + ": 5\r\n\r\n";
    INFO(near);
    REQUIRE(parser.Parse(bytes) == Result::kComplete);
    const auto& r = parser.request();
    CHECK_FALSE(r.body_framed);
    CHECK_FALSE(r.has_soap_action);
    CHECK(r.fault.empty());
    CHECK(r.content_type.empty());
  }
  HttpRequestParser parser(limits);
  CHECK(parser.Parse("POST /soap HTTP/1.1\r\nHosu: h\r\n\r\n") == Result::kError);
  CHECK(parser.error_status() == 400);
}
