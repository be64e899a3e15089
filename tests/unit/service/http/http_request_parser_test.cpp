#include "service/http/http_request_parser.h"

#include <catch2/catch.hpp>
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
      {"unknown transfer coding", "POST /soap HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
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
