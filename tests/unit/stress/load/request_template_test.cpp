#include "stress/load/request_template.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using lather::RequestTemplate;
using lather::TargetUrl;

namespace {
TargetUrl Url() {
  TargetUrl url;
  REQUIRE(lather::ParseTargetUrl("http://127.0.0.1:8080/soap", &url).ok());
  return url;
}
}  // namespace

TEST_CASE("each call renders its number into every placeholder with a matching Content-Length",
          "[stress][template]") {
  RequestTemplate t;
  REQUIRE(RequestTemplate::Create(Url(), {"Content-Type: text/xml", "SOAPAction: \"x\""},
                                  "<a>${n}</a><b>${n}</b>", true, &t).ok());
  CHECK(t.placeholder_count() == 2);
  std::string out;
  size_t head = 0, body = 0;
  t.Render(12345, &out, &head, &body);
  CHECK(out ==
        "POST /soap HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: text/xml\r\nSOAPAction: \"x\"\r\n"
        "Content-Length: 24\r\n\r\n<a>12345</a><b>12345</b>");
  CHECK(body == 24);
  CHECK(head + body == out.size());
  out.clear();
  t.Render(7, &out, &head, &body);
  CHECK(out.substr(out.size() - 16) == "<a>7</a><b>7</b>");
  CHECK(body == 16);
  CHECK(t.BodySize(7) == 16);
}

TEST_CASE("a body without placeholders and a closing request render as given", "[stress][template]") {
  RequestTemplate t;
  REQUIRE(RequestTemplate::Create(Url(), {}, "<x/>", false, &t).ok());
  std::string out;
  size_t head = 0, body = 0;
  t.Render(99, &out, &head, &body);
  CHECK(out.find("Connection: close\r\n") != std::string::npos);
  CHECK(out.substr(out.size() - 4) == "<x/>");
  CHECK(t.placeholder_count() == 0);
}

TEST_CASE("random(A..B) renders an integer of its range, the same for the same call, spread over calls",
          "[stress][template]") {
  RequestTemplate t;
  REQUIRE(RequestTemplate::Create(Url(), {}, "<a>random(-5..5)</a><b>${n}</b><c>random(100..100)</c>", true, &t).ok());
  CHECK(t.placeholder_count() == 3);
  std::set<int> seen;
  for (uint64_t n = 0; n < 2000; ++n) {
    std::string out;
    size_t head = 0, body = 0;
    t.Render(n, &out, &head, &body);
    const std::string b = out.substr(head);
    CHECK(body == b.size());
    CHECK(t.BodySize(n) == b.size());
    const size_t open = b.find("<a>") + 3;
    const int value = std::stoi(b.substr(open, b.find("</a>") - open));
    CHECK(value >= -5);
    CHECK(value <= 5);
    seen.insert(value);
    CHECK(b.find("<b>" + std::to_string(n) + "</b><c>100</c>") != std::string::npos);
    std::string again;
    t.Render(n, &again, &head, &body);
    CHECK(again == out);
  }
  CHECK(seen.size() == 11);  // every value of the range came up in 2,000 calls
}

TEST_CASE("${uuid} renders a version-4 UUID of its own for every call, the same for the same call and seed, "
          "another for another seed, spread over the whole range",
          "[stress][template]") {
  RequestTemplate a, b;
  REQUIRE(RequestTemplate::Create(Url(), {}, "<id>urn:uuid:${uuid}</id><n>${n}</n>", true, &a, 1).ok());
  REQUIRE(RequestTemplate::Create(Url(), {}, "<id>urn:uuid:${uuid}</id><n>${n}</n>", true, &b, 2).ok());
  CHECK(a.placeholder_count() == 2);
  auto id_of = [](const RequestTemplate& t, uint64_t n) {
    std::string out;
    size_t head = 0, body = 0;
    t.Render(n, &out, &head, &body);
    CHECK(body == t.BodySize(n));  // Content-Length matches what was rendered
    CHECK(head + body == out.size());
    const size_t at = out.find("urn:uuid:") + 9;
    return out.substr(at, out.find('<', at) - at);
  };
  std::set<std::string> seen;
  std::set<char> first_digits;
  for (uint64_t n = 0; n < 20000; ++n) {
    const std::string id = id_of(a, n);
    REQUIRE(id.size() == 36);
    CHECK(id[8] == '-');
    CHECK(id[13] == '-');
    CHECK(id[14] == '4');  // version 4
    CHECK(id[18] == '-');
    CHECK((id[19] == '8' || id[19] == '9' || id[19] == 'a' || id[19] == 'b'));  // variant 10
    CHECK(id[23] == '-');
    CHECK(id.find_first_not_of("0123456789abcdef-") == std::string::npos);
    seen.insert(id);
    first_digits.insert(id[0]);
  }
  CHECK(seen.size() == 20000);         // every call its own
  CHECK(first_digits.size() == 16);    // neighbours' ids are not neighbours: all of the key range is used
  CHECK(id_of(a, 12345) == id_of(a, 12345));
  CHECK(id_of(a, 12345) != id_of(b, 12345));  // another run, another id
  for (uint64_t n = 0; n < 20000; ++n) CHECK(seen.count(id_of(b, n)) == 0);
}

TEST_CASE("text that only looks like random() stays as it is, and random(B..A) is refused", "[stress][template]") {
  RequestTemplate t;
  REQUIRE(RequestTemplate::Create(Url(), {}, "<a>random(x..2) random(1..) random(3..4</a>", true, &t).ok());
  CHECK(t.placeholder_count() == 0);
  CHECK_FALSE(RequestTemplate::Create(Url(), {}, "<a>random(9..1)</a>", true, &t).ok());
}

TEST_CASE("a header without a colon or with a line break is refused", "[stress][template]") {
  RequestTemplate t;
  CHECK_FALSE(RequestTemplate::Create(Url(), {"NoColon"}, "", true, &t).ok());
  CHECK_FALSE(RequestTemplate::Create(Url(), {"A: b\r\nInjected: 1"}, "", true, &t).ok());
}

TEST_CASE("URLs are parsed into host, port and path, and others are refused", "[stress][url]") {
  TargetUrl url;
  REQUIRE(lather::ParseTargetUrl("http://[::1]:9000/a/b?c", &url).ok());
  CHECK(url.host == "::1");
  CHECK(url.port == 9000);
  CHECK(url.path == "/a/b?c");
  CHECK(url.host_header == "[::1]:9000");
  REQUIRE(lather::ParseTargetUrl("http://example", &url).ok());
  CHECK(url.port == 80);
  CHECK(url.path == "/");
  REQUIRE(lather::ParseTargetUrl("https://x/", &url).ok());
  CHECK(url.tls);
  CHECK(url.port == 443);
  CHECK(url.ToString() == "https://x:443/");
  CHECK_FALSE(lather::ParseTargetUrl("ftp://x/", &url).ok());
  CHECK_FALSE(lather::ParseTargetUrl("http://x:0/", &url).ok());
  CHECK_FALSE(lather::ParseTargetUrl("http://x:99999/", &url).ok());
  CHECK_FALSE(lather::ParseTargetUrl("http://:80/", &url).ok());
}
