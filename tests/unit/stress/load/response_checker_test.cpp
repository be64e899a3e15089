#include "stress/load/response_checker.h"

#include <catch2/catch.hpp>

#include "stress/load/http_response_reader.h"
#include "stress/report/units.h"

using lather::CallOutcome;
using lather::Expectation;
using lather::ResponseChecker;

namespace {

std::string Envelope(const std::string& content) {
  return "<?xml version=\"1.0\"?><S:Envelope xmlns:S=\"http://schemas.xmlsoap.org/soap/envelope/\" "
         "xmlns:l=\"urn:lather:v1\"><S:Body>" + content + "</S:Body></S:Envelope>";
}

CallOutcome Check(const Expectation& e, int status, std::string body, uint64_t n, std::string* detail = nullptr,
                  size_t* payload = nullptr) {
  std::unique_ptr<ResponseChecker> checker;
  REQUIRE(ResponseChecker::Create(e, &checker).ok());
  size_t bytes = 0;
  const CallOutcome outcome = checker->Check(status, body.data(), body.size(), n, &bytes, detail);
  if (payload != nullptr) *payload = bytes;
  return outcome;
}

}  // namespace

TEST_CASE("a good Increment response is ok and its payload counted", "[stress][checker]") {
  Expectation e;
  e.kind = Expectation::Kind::kPlusOne;
  size_t payload = 0;
  CHECK(Check(e, 200, Envelope("<l:IncrementResponse><l:result>42</l:result></l:IncrementResponse>"), 41, nullptr,
              &payload) == CallOutcome::kOk);
  CHECK(payload == 2);
}

TEST_CASE("a wrong result is a mismatch that names the value", "[stress][checker]") {
  Expectation e;
  e.kind = Expectation::Kind::kPlusOne;
  std::string detail;
  CHECK(Check(e, 200, Envelope("<l:IncrementResponse><l:result>43</l:result></l:IncrementResponse>"), 41, &detail) ==
        CallOutcome::kMismatch);
  CHECK(detail.find("43") != std::string::npos);
  CHECK(Check(e, 200, Envelope("<l:IncrementResponse/>"), 41) == CallOutcome::kMismatch);
}

TEST_CASE("a SOAP fault with the binding's status is a fault, with its reason once", "[stress][checker]") {
  Expectation e;
  std::string detail;
  const std::string fault11 =
      Envelope("<S:Fault><faultcode>S:Client</faultcode><faultstring>bad value</faultstring></S:Fault>");
  CHECK(Check(e, 500, fault11, 1, &detail) == CallOutcome::kFault);
  CHECK(detail == "bad value");  // the report adds the outcome's name: "fault: bad value"
  const std::string fault12 =
      Envelope("<S:Fault><S:Code><S:Value>S:Sender</S:Value></S:Code><S:Reason><S:Text>too big</S:Text></S:Reason></S:Fault>");
  CHECK(Check(e, 400, fault12, 1, &detail) == CallOutcome::kFault);
  CHECK(detail == "too big");
  CHECK(Check(e, 200, fault11, 1) == CallOutcome::kFault);
}

TEST_CASE("a Fault body with an HTTP refusal's status is a status failure that keeps the reason",
          "[stress][checker]") {
  Expectation e;
  std::string detail;
  const std::string fault11 =
      Envelope("<S:Fault><faultcode>S:Client</faultcode><faultstring>no resource at /</faultstring></S:Fault>");
  CHECK(Check(e, 404, fault11, 1, &detail) == CallOutcome::kStatus);
  CHECK(detail == "HTTP 404: no resource at /");
  CHECK(Check(e, 503, fault11, 1) == CallOutcome::kStatus);
}

TEST_CASE("malformed XML, non-envelopes and bad statuses are told apart", "[stress][checker]") {
  Expectation e;
  CHECK(Check(e, 200, "<a><b></a>", 1) == CallOutcome::kMalformed);
  CHECK(Check(e, 200, "<html/>", 1) == CallOutcome::kMalformed);
  CHECK(Check(e, 503, "Service Unavailable", 1) == CallOutcome::kStatus);
  CHECK(Check(e, 404, Envelope("<l:x/>"), 1) == CallOutcome::kStatus);
}

TEST_CASE("equals, positive, child count and XPath expectations", "[stress][checker]") {
  Expectation equals;
  equals.kind = Expectation::Kind::kEquals;
  equals.text = "Hello World";
  CHECK(Check(equals, 200, Envelope("<l:R><l:result>Hello World</l:result></l:R>"), 1) == CallOutcome::kOk);
  CHECK(Check(equals, 200, Envelope("<l:R><l:result>Hello</l:result></l:R>"), 1) == CallOutcome::kMismatch);

  Expectation positive;
  positive.kind = Expectation::Kind::kPositive;
  CHECK(Check(positive, 200, Envelope("<l:R><l:result>7</l:result></l:R>"), 1) == CallOutcome::kOk);
  CHECK(Check(positive, 200, Envelope("<l:R><l:result>0</l:result></l:R>"), 1) == CallOutcome::kMismatch);

  Expectation count;
  count.kind = Expectation::Kind::kChildCount;
  count.count = 2;
  CHECK(Check(count, 200, Envelope("<l:R><l:samples><l:sample/><l:sample/></l:samples></l:R>"), 1) == CallOutcome::kOk);
  CHECK(Check(count, 200, Envelope("<l:R><l:samples><l:sample/></l:samples></l:R>"), 1) == CallOutcome::kMismatch);

  Expectation xpath;
  xpath.kind = Expectation::Kind::kXPath;
  xpath.xpath = "//*[local-name()='result'] = $n1";
  CHECK(Check(xpath, 200, Envelope("<l:R><l:result>10</l:result></l:R>"), 9) == CallOutcome::kOk);
  CHECK(Check(xpath, 200, Envelope("<l:R><l:result>10</l:result></l:R>"), 10) == CallOutcome::kMismatch);

  Expectation bad;
  bad.kind = Expectation::Kind::kXPath;
  bad.xpath = "//[";
  std::unique_ptr<ResponseChecker> checker;
  CHECK_FALSE(ResponseChecker::Create(bad, &checker).ok());
}

TEST_CASE("the response reader frames Content-Length, chunked and close-delimited bodies", "[stress][http]") {
  lather::HttpResponseReader reader;
  lather::HttpResponseView view;
  std::string fixed = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1";
  REQUIRE(reader.Read(fixed.data(), fixed.size(), false, &view) == lather::HttpResponseReader::Result::kComplete);
  CHECK(view.status == 200);
  CHECK(std::string(view.body, view.body_size) == "hello");
  CHECK(view.total_bytes == fixed.size() - 8);
  CHECK_FALSE(view.close);
  CHECK(reader.Read(fixed.data(), 20, false, &view) == lather::HttpResponseReader::Result::kNeedMore);

  std::string chunked = "HTTP/1.1 500 X\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
  REQUIRE(reader.Read(chunked.data(), chunked.size(), false, &view) == lather::HttpResponseReader::Result::kComplete);
  CHECK(view.status == 500);
  CHECK(std::string(view.body, view.body_size) == "abcde");
  CHECK(view.total_bytes == chunked.size());
  CHECK(view.close);

  std::string until_close = "HTTP/1.0 200 OK\r\n\r\nall of it";
  CHECK(reader.Read(until_close.data(), until_close.size(), false, &view) == lather::HttpResponseReader::Result::kNeedMore);
  REQUIRE(reader.Read(until_close.data(), until_close.size(), true, &view) == lather::HttpResponseReader::Result::kComplete);
  CHECK(std::string(view.body, view.body_size) == "all of it");

  std::string garbage = "SSH-2.0-OpenSSH\r\n\r\n";
  CHECK(reader.Read(garbage.data(), garbage.size(), false, &view) == lather::HttpResponseReader::Result::kError);
}

TEST_CASE("the response reader finds the head's end, Connection and a bad length as it always did",
          "[stress][http]") {
  using Result = lather::HttpResponseReader::Result;
  lather::HttpResponseReader reader;
  lather::HttpResponseView view;
  std::string partial = "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\nServer: s";
  // The bad length is judged once the head is complete.
  CHECK(reader.Read(partial.data(), partial.size(), false, &view) == Result::kNeedMore);
  partial += "\r\n\r\nbody";
  CHECK(reader.Read(partial.data(), partial.size(), false, &view) == Result::kError);
  std::string twice = "HTTP/1.1 200 OK\r\nContent-Length: x\r\nContent-Length: 2\r\n\r\nok";
  CHECK(reader.Read(twice.data(), twice.size(), false, &view) == Result::kError);

  std::string http10 = "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok";
  REQUIRE(reader.Read(http10.data(), http10.size(), false, &view) == Result::kComplete);
  CHECK_FALSE(view.close);
  std::string last_wins =
      "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
  REQUIRE(reader.Read(last_wins.data(), last_wins.size(), false, &view) == Result::kComplete);
  CHECK(view.close);
  CHECK(view.total_bytes == last_wins.size());

  // A lone CR is part of a line; the head ends at the first CRLF CRLF.
  std::string lone_cr = "HTTP/1.1 204 No\rContent\r\nX: a\r\r\n\r\nnext";
  REQUIRE(reader.Read(lone_cr.data(), lone_cr.size(), false, &view) == Result::kComplete);
  CHECK(view.status == 204);
  CHECK(view.head_bytes == lone_cr.size() - 4);
  std::string bare = "HTTP/1.1 200 OK\r\n\r\n";
  CHECK(reader.Read(bare.data(), bare.size(), false, &view) == Result::kNeedMore);  // close-delimited body
  REQUIRE(reader.Read(bare.data(), bare.size(), true, &view) == Result::kComplete);
  CHECK(view.head_bytes == bare.size());
  std::string empty_first = "\r\n\r\nHTTP/1.1 200 OK\r\n\r\n";
  CHECK(reader.Read(empty_first.data(), empty_first.size(), false, &view) == Result::kError);
  CHECK(reader.Read(empty_first.data(), 2, false, &view) == Result::kNeedMore);
}

TEST_CASE("durations and bit rates parse in the units people type", "[stress][units]") {
  double v = 0;
  REQUIRE(lather::ParseDuration("10s", &v).ok());
  CHECK(v == 10);
  REQUIRE(lather::ParseDuration("500ms", &v).ok());
  CHECK(v == Approx(0.5));
  REQUIRE(lather::ParseDuration("2m", &v).ok());
  CHECK(v == 120);
  REQUIRE(lather::ParseDuration("3", &v).ok());
  CHECK(v == 3);
  CHECK_FALSE(lather::ParseDuration("ten", &v).ok());
  CHECK_FALSE(lather::ParseDuration("5 parsecs", &v).ok());
  REQUIRE(lather::ParseBitRate("100Mbit", &v).ok());
  CHECK(v == 1e8);
  REQUIRE(lather::ParseBitRate("1Gbit", &v).ok());
  CHECK(v == 1e9);
  CHECK_FALSE(lather::ParseBitRate("fast", &v).ok());
  CHECK(lather::WithThousands(1234567.4) == "1,234,567");
  CHECK(lather::FormatNanos(1250000) == "1.25 ms");
}
