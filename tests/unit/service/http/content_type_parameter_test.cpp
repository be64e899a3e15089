#include <catch2/catch.hpp>

#include "service/http/http_response.h"

using lather::ContentTypeParameter;

TEST_CASE("a Content-Type parameter is found by name, case-insensitively, its quotes removed", "[service][http]") {
  CHECK(ContentTypeParameter("application/soap+xml; charset=utf-8; action=\"urn:lather:v1#Increment\"", "action") ==
        "urn:lather:v1#Increment");
  CHECK(ContentTypeParameter("application/soap+xml;ACTION=urn:a;charset=utf-8", "action") == "urn:a");
  CHECK(ContentTypeParameter("text/xml; Charset=UTF-16", "charset") == "UTF-16");
  CHECK(ContentTypeParameter("application/soap+xml", "action").empty());
  CHECK(ContentTypeParameter("application/soap+xml; xaction=\"urn:b\"", "action").empty());
  CHECK(ContentTypeParameter("application/soap+xml; actions=\"urn:b\"", "action").empty());
}

TEST_CASE("a semicolon inside a quoted Content-Type parameter does not end it (RFC 9110 5.6.4)", "[service][http]") {
  CHECK(ContentTypeParameter("application/soap+xml; action=\"urn:a;b=c\"; charset=utf-8", "action") == "urn:a;b=c");
  CHECK(ContentTypeParameter("application/soap+xml; action=\"urn:a;charset=latin1\"; charset=utf-8", "charset") ==
        "utf-8");
  // A backslash quotes the next character, a '"' included: the string goes on past it.
  CHECK(ContentTypeParameter("application/soap+xml; action=\"a\\\";b\"; charset=utf-8", "charset") == "utf-8");
}
