#include "service/http/entity_tag.h"

#include <catch2/catch.hpp>

using lather::EntityTagListMatches;
using lather::StrongEntityTag;

TEST_CASE("an entity tag is quoted, fixed in length and follows the bytes", "[service][http]") {
  const std::string tag = StrongEntityTag("<definitions/>");
  CHECK(tag.size() == 18);
  CHECK(tag.front() == '"');
  CHECK(tag.back() == '"');
  CHECK(StrongEntityTag("<definitions/>") == tag);
  CHECK(StrongEntityTag("<definitions />") != tag);
}

TEST_CASE("If-Match lists compare strongly and If-None-Match lists weakly (RFC 9110 8.8.3.2)", "[service][http]") {
  const std::string tag = "\"0123456789abcdef\"";
  CHECK(EntityTagListMatches("*", tag, false));
  CHECK(EntityTagListMatches(" \"x\" ,\t" + tag, tag, false));
  CHECK_FALSE(EntityTagListMatches("\"x\", \"y\"", tag, false));
  CHECK_FALSE(EntityTagListMatches("W/" + tag, tag, false));  // strong: a weak tag never matches
  CHECK(EntityTagListMatches("W/" + tag, tag, true));          // weak: it does
  CHECK_FALSE(EntityTagListMatches("", tag, true));
  CHECK_FALSE(EntityTagListMatches("0123456789abcdef", tag, true));  // unquoted is not the tag
}
