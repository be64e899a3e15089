// Figures that could not be computed reach the JSON as null, never as nan or inf (which no JSON parser
// reads).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <sstream>

#include <Poco/JSON/Parser.h>

#include "stress/report/json_numbers.h"

TEST_CASE("NaN and infinity become null, in nested objects and arrays too", "[stress][report]") {
  Poco::JSON::Object root(Poco::JSON_PRESERVE_KEY_ORDER);
  root.set("ok", 1.5);
  root.set("bad", std::nan(""));
  Poco::JSON::Object inner;
  inner.set("worse", std::numeric_limits<double>::infinity());
  Poco::JSON::Array list;
  list.add(-std::numeric_limits<double>::infinity());
  list.add(2.0);
  inner.set("list", list);
  root.set("inner", inner);
  Poco::JSON::Object::Ptr shared = new Poco::JSON::Object;
  shared->set("x", std::nan(""));
  root.set("shared", shared);
  lather::NullNonFinite(root);
  std::ostringstream os;
  root.stringify(os);
  const std::string text = os.str();
  INFO(text);
  CHECK(text.find("nan") == std::string::npos);
  CHECK(text.find("inf") == std::string::npos);
  Poco::JSON::Parser parser;
  const auto parsed = parser.parse(text).extract<Poco::JSON::Object::Ptr>();
  CHECK(parsed->getValue<double>("ok") == 1.5);
  CHECK(parsed->isNull("bad"));
  CHECK(parsed->getObject("inner")->isNull("worse"));
  CHECK(parsed->getObject("inner")->getArray("list")->isNull(0));
  CHECK(parsed->getObject("inner")->getArray("list")->getElement<double>(1) == 2.0);
  CHECK(parsed->getObject("shared")->isNull("x"));
}
