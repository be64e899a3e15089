#include "service/http/host_syntax.h"

#include <catch2/catch.hpp>

using lather::HostWithoutPort;
using lather::IsValidHostValue;

TEST_CASE("Host values: reg-names and IPv4 and bracketed IPv6 with an optional port are valid", "[http][host]") {
  for (const char* host : {"", "localhost", "lather.example:8080", "127.0.0.1", "127.0.0.1:", "[::1]", "[::1]:443",
                           "[2001:db8::7]:80", "[v7.fe80::a+b]", "a-b.c_d~e!$&'()*+,;=", "caf%C3%A9.example"}) {
    INFO(host);
    CHECK(IsValidHostValue(host));
  }
  CHECK(HostWithoutPort("lather.example:8080") == "lather.example");
  CHECK(HostWithoutPort("[::1]:443") == "[::1]");
  CHECK(HostWithoutPort(":80").empty());
  CHECK(HostWithoutPort("h") == "h");
}

TEST_CASE("Host values with userinfo or spaces or a bad port or bad escapes or open brackets are invalid", "[http][host]") {
  for (const char* host : {"user@host", "a b", " h", "h:80:80", "h:-1", "h:8O", "%4", "%zz", "[::1", "::1", "[::g]",
                           "[]", "[v.x]", "[v1.]", "h/x", "h?x", "h#x", "\"h\"", "h\t", "h\x7f", "h\xc3\xa9"}) {
    INFO(host);
    CHECK_FALSE(IsValidHostValue(host));
    CHECK(HostWithoutPort(host).empty());
  }
}
