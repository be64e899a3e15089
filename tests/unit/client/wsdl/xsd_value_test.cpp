#include "client/wsdl/xsd_value.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using lather::Status;
using lather::wsdl::CheckValue;
using lather::wsdl::JsonKind;
using lather::wsdl::JsonKindOf;
using lather::wsdl::SampleValue;
using lather::wsdl::SimpleType;

namespace {

SimpleType Builtin(const std::string& name) {
  SimpleType t;
  t.builtin = name;
  t.display = "xsd:" + name;
  return t;
}

// Why `text` is refused by `type` (fails the test when it is accepted).
std::string Refusal(const SimpleType& type, const std::string& text) {
  const Status s = CheckValue(type, text);
  INFO("'" << text << "' against " << type.display);
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  return s.message();
}

bool Accepts(const SimpleType& type, const std::string& text) { return CheckValue(type, text).ok(); }

// The sample of `type` passes its own check.
void SampleFits(const SimpleType& type) {
  const std::string sample = SampleValue(type);
  const Status s = CheckValue(type, sample);
  INFO(type.display << ": sample '" << sample << "': " << s.ToString());
  CHECK(s.ok());
}

}  // namespace

TEST_CASE("xsd:int takes exactly the 32-bit range", "[wsdl][xsd_value]") {
  const SimpleType t = Builtin("int");
  CHECK(Accepts(t, "0"));
  CHECK(Accepts(t, "2147483647"));
  CHECK(Accepts(t, "-2147483648"));
  CHECK(Accepts(t, "+42"));
  CHECK(Accepts(t, " 42 "));  // white space collapsed
  CHECK_THAT(Refusal(t, "2147483648"), Catch::Contains("'2147483648' is outside the range of xsd:int"));
  CHECK_THAT(Refusal(t, "-2147483649"), Catch::Contains("outside the range of xsd:int"));
  CHECK_THAT(Refusal(t, "99999999999999999999999999999999999999"), Catch::Contains("outside the range"));
  CHECK(Refusal(t, "abc") == "'abc' is not an xsd:int");
  Refusal(t, "1.0");
  Refusal(t, "");
  Refusal(t, "-");
  Refusal(t, "1 2");
  SampleFits(t);
}

TEST_CASE("xsd:unsignedLong takes its maximum, xsd:byte only -128..127", "[wsdl][xsd_value]") {
  const SimpleType unsigned_long = Builtin("unsignedLong");
  CHECK(Accepts(unsigned_long, "18446744073709551615"));
  CHECK(Accepts(unsigned_long, "0"));
  CHECK_THAT(Refusal(unsigned_long, "18446744073709551616"),
             Catch::Contains("outside the range of xsd:unsignedLong"));
  Refusal(unsigned_long, "-1");
  SampleFits(unsigned_long);

  const SimpleType byte = Builtin("byte");
  CHECK(Accepts(byte, "127"));
  CHECK(Accepts(byte, "-128"));
  CHECK_THAT(Refusal(byte, "128"), Catch::Contains("[-128, 127]"));
  Refusal(byte, "-129");
  SampleFits(byte);

  const SimpleType positive = Builtin("positiveInteger");
  Refusal(positive, "0");
  CHECK(Accepts(positive, "123456789012345678901234567890"));  // unbounded above
  const std::string huge(40, '9');
  CHECK(Accepts(positive, huge));
  CHECK(Accepts(Builtin("nonNegativeInteger"), huge));
  CHECK(Accepts(Builtin("integer"), "-" + huge));
  CHECK(Accepts(Builtin("negativeInteger"), "-" + huge));  // unbounded below
  CHECK_THAT(Refusal(Builtin("nonNegativeInteger"), "-" + huge), Catch::Contains("outside the range"));
  CHECK_THAT(Refusal(Builtin("long"), huge), Catch::Contains("outside the range"));
  SampleFits(positive);
  const SimpleType negative = Builtin("negativeInteger");
  Refusal(negative, "0");
  SampleFits(negative);
}

TEST_CASE("xsd:boolean takes true, false, 1 and 0 only", "[wsdl][xsd_value]") {
  const SimpleType t = Builtin("boolean");
  for (const char* good : {"true", "false", "1", "0"}) CHECK(Accepts(t, good));
  for (const char* bad : {"TRUE", "False", "yes", "2", ""})
    CHECK(Refusal(t, bad) == "'" + std::string(bad) + "' is not an xsd:boolean");
  SampleFits(t);
}

TEST_CASE("xsd:dateTime and xsd:date take the lexical forms with and without a time zone",
          "[wsdl][xsd_value]") {
  const SimpleType dt = Builtin("dateTime");
  for (const char* good : {"2024-02-29T13:45:00", "2024-02-29T13:45:00Z", "2024-02-29T13:45:00.123+05:30",
                           "-0044-03-15T12:00:00-01:00", "2024-12-31T24:00:00"}) {
    INFO(good);
    CHECK(Accepts(dt, good));
  }
  for (const char* bad : {"2024-02-29", "2024-02-29 13:45:00", "2024-13-01T00:00:00Z", "2024-02-29T25:00:00",
                          "2024-02-29T13:45:00+15:00", "24-02-29T13:45:00"}) {
    INFO(bad);
    CHECK_THAT(Refusal(dt, bad), Catch::Contains("is not an xsd:dateTime"));
  }
  SampleFits(dt);

  const SimpleType date = Builtin("date");
  for (const char* good : {"2024-02-29", "2024-02-29Z", "2024-02-29-05:00"}) CHECK(Accepts(date, good));
  for (const char* bad : {"2024-2-29", "2024-02-29T00:00:00", "29.02.2024", "2024-02-32"}) {
    INFO(bad);
    Refusal(date, bad);
  }
  SampleFits(date);
  for (const char* name : {"time", "duration", "gYear", "gYearMonth", "gMonthDay", "gDay", "gMonth"}) {
    SampleFits(Builtin(name));
  }
}

TEST_CASE("xsd:decimal takes plain decimals and xsd:double the exponent forms, INF and NaN",
          "[wsdl][xsd_value]") {
  const SimpleType dec = Builtin("decimal");
  for (const char* good : {"3.14", "-0.5", ".5", "5.", "+7", "00012.340"}) CHECK(Accepts(dec, good));
  for (const char* bad : {"1e5", "INF", "abc", "1,5", "."}) {
    INFO(bad);
    CHECK_THAT(Refusal(dec, bad), Catch::Contains("is not an xsd:decimal"));
  }
  SampleFits(dec);

  const SimpleType dbl = Builtin("double");
  for (const char* good : {"INF", "-INF", "+INF", "NaN", "1.5e10", "-2E-3", "42"}) CHECK(Accepts(dbl, good));
  for (const char* bad : {"inf", "nan", "1e", "e5"}) {
    INFO(bad);
    Refusal(dbl, bad);
  }
  SampleFits(dbl);
  SampleFits(Builtin("float"));
}

TEST_CASE("an enumeration refuses other values, listing the allowed ones", "[wsdl][xsd_value]") {
  SimpleType t = Builtin("string");
  t.facets.enumeration = {"NEW", "PAID"};
  t.display = "Status(NEW|PAID)";
  CHECK(Accepts(t, "NEW"));
  CHECK(Accepts(t, "PAID"));
  CHECK(Refusal(t, "BLUE") == "'BLUE' is not one of NEW, PAID");
  Refusal(t, "new");
  CHECK(SampleValue(t) == "NEW");
  SampleFits(t);

  SimpleType numbers = Builtin("int");
  numbers.facets.enumeration = {"1", "2", "3"};
  CHECK(Accepts(numbers, "2"));
  CHECK_THAT(Refusal(numbers, "4"), Catch::Contains("not one of 1, 2, 3"));
  Refusal(numbers, "x");  // the built-in's check first
  SampleFits(numbers);
}

TEST_CASE("a pattern is anchored at both ends and refuses what does not match", "[wsdl][xsd_value]") {
  SimpleType t = Builtin("string");
  t.facets.patterns = {{"\\d{3}-[A-Z]{2}"}};
  CHECK(Accepts(t, "123-AB"));
  CHECK_THAT(Refusal(t, "12-AB"), Catch::Contains("does not match the pattern \\d{3}-[A-Z]{2}"));
  Refusal(t, "x123-AB");
  Refusal(t, "123-ABx");
  Refusal(t, "123-ab");

  SimpleType alternatives = Builtin("string");  // one step's patterns are alternatives
  alternatives.facets.patterns = {{"[0-9]+", "[a-z]+"}};
  CHECK(Accepts(alternatives, "123"));
  CHECK(Accepts(alternatives, "abc"));
  Refusal(alternatives, "a1");

  SimpleType dollar = Builtin("string");  // '^' and '$' are ordinary characters in XSD
  dollar.facets.patterns = {{"$[0-9]+"}};
  CHECK(Accepts(dollar, "$12"));
  Refusal(dollar, "12");

  SimpleType names = Builtin("string");  // \i and \c, XML's name classes
  names.facets.patterns = {{"\\i\\c*"}};
  CHECK(Accepts(names, "_a.b-c"));
  Refusal(names, "1abc");

  SimpleType category = Builtin("string");  // \p{..} cannot be checked with std::regex: named, not refused
  category.facets.patterns = {{"\\p{Lu}+"}};
  std::string unchecked;
  CHECK(CheckValue(category, "whatever", &unchecked).ok());
  CHECK(unchecked == "pattern \\p{Lu}+");

  SimpleType letters = Builtin("string");
  letters.facets.patterns = {{"[A-Z]{2}"}};
  SampleFits(letters);
}

TEST_CASE("length, minLength and maxLength count characters, not bytes", "[wsdl][xsd_value]") {
  SimpleType exact = Builtin("string");
  exact.facets.length = 3;
  CHECK(Accepts(exact, "abc"));
  CHECK(Accepts(exact, "äöü"));
  CHECK(Refusal(exact, "ab") == "'ab' has 2 characters, not 3");
  SampleFits(exact);
  CHECK(SampleValue(exact) == "sam");

  SimpleType range = Builtin("string");
  range.facets.min_length = 2;
  range.facets.max_length = 4;
  CHECK(Accepts(range, "ab"));
  CHECK(Accepts(range, "abcd"));
  CHECK_THAT(Refusal(range, "a"), Catch::Contains("fewer than 2"));
  CHECK_THAT(Refusal(range, "abcde"), Catch::Contains("more than 4"));
  SampleFits(range);

  SimpleType longer = Builtin("string");
  longer.facets.min_length = 10;
  CHECK(SampleValue(longer) == "samplexxxx");
  SampleFits(longer);

  SimpleType shorter = Builtin("string");  // "sample" cut to the maximum
  shorter.facets.max_length = 4;
  CHECK(SampleValue(shorter) == "samp");
  SampleFits(shorter);

  SimpleType hex = Builtin("hexBinary");  // octets for the binary types
  hex.facets.length = 2;
  CHECK(Accepts(hex, "0AFF"));
  Refusal(hex, "0A");
  Refusal(Builtin("hexBinary"), "0G");
  SimpleType base64 = Builtin("base64Binary");
  base64.facets.max_length = 2;
  CHECK(Accepts(base64, "AAA="));
  Refusal(base64, "AAAA");
  SampleFits(Builtin("base64Binary"));
}

TEST_CASE("minInclusive and maxExclusive bound numbers, and samples fall inside", "[wsdl][xsd_value]") {
  SimpleType t = Builtin("int");
  t.facets.min_inclusive = "1";
  t.facets.max_exclusive = "10";
  CHECK(Accepts(t, "1"));
  CHECK(Accepts(t, "9"));
  CHECK(Refusal(t, "0") == "'0' is below the minimum 1");
  CHECK(Refusal(t, "10") == "'10' is not below 10");
  CHECK(SampleValue(t) == "1");
  SampleFits(t);

  SimpleType above = Builtin("decimal");
  above.facets.min_exclusive = "0.5";
  above.facets.max_inclusive = "2";
  CHECK(Accepts(above, "0.51"));
  CHECK_THAT(Refusal(above, "0.5"), Catch::Contains("not above 0.5"));
  CHECK_THAT(Refusal(above, "2.01"), Catch::Contains("above the maximum 2"));
  SampleFits(above);

  SimpleType negative = Builtin("int");  // only values below zero
  negative.facets.max_inclusive = "-5";
  SampleFits(negative);
  SimpleType below = Builtin("int");
  below.facets.max_exclusive = "-5";
  CHECK(Accepts(below, "-6"));
  Refusal(below, "-5");
  SampleFits(below);

  SimpleType exclusive = Builtin("int");
  exclusive.facets.min_exclusive = "7";
  CHECK(SampleValue(exclusive) == "8");
}

TEST_CASE("totalDigits and fractionDigits count significant digits", "[wsdl][xsd_value]") {
  SimpleType t = Builtin("decimal");
  t.facets.total_digits = 5;
  t.facets.fraction_digits = 2;
  CHECK(Accepts(t, "123.45"));
  CHECK(Accepts(t, "-123.45"));
  CHECK(Accepts(t, "1234.5"));
  CHECK(Accepts(t, "00123.40"));  // leading and trailing zeros do not count
  CHECK_THAT(Refusal(t, "123.456"), Catch::Contains("more than 2 fraction digits"));
  CHECK_THAT(Refusal(t, "1234.56"), Catch::Contains("more than 5 digits"));
  CHECK_THAT(Refusal(t, "123456"), Catch::Contains("more than 5 digits"));
  SampleFits(t);

  SimpleType two = Builtin("decimal");  // 0.12 is 12 x 10^-2: two digits
  two.facets.total_digits = 2;
  CHECK(Accepts(two, "0.12"));
  CHECK(Accepts(two, "99"));
  Refusal(two, "100");
  Refusal(two, "1.23");

  SimpleType whole = Builtin("integer");
  whole.facets.total_digits = 3;
  CHECK(Accepts(whole, "999"));
  Refusal(whole, "1000");
  SampleFits(whole);
}

TEST_CASE("a list checks each item and counts items for its lengths", "[wsdl][xsd_value]") {
  SimpleType t = Builtin("int");
  t.list = true;
  t.display = "list of xsd:int";
  CHECK(Accepts(t, "1 2 3"));
  CHECK(Accepts(t, "  7\t8\n9 "));
  CHECK(Accepts(t, ""));
  CHECK(Refusal(t, "1 x 3") == "'x' is not an xsd:int");
  SampleFits(t);

  t.facets.length = 2;
  CHECK(Accepts(t, "1 2"));
  CHECK(Refusal(t, "1 2 3") == "'1 2 3' has 3 items, not 2");
}

TEST_CASE("a union takes a value of any member and says why none took it", "[wsdl][xsd_value]") {
  SimpleType word = Builtin("string");
  word.facets.enumeration = {"auto", "none"};
  word.display = "Word(auto|none)";
  SimpleType t;
  t.builtin = "union";
  t.members = {Builtin("int"), word};
  t.display = "union(xsd:int|Word(auto|none))";
  CHECK(Accepts(t, "12"));
  CHECK(Accepts(t, "auto"));
  const std::string why = Refusal(t, "big");
  CHECK_THAT(why, Catch::StartsWith("'big' is none of union(xsd:int|Word(auto|none))"));
  CHECK_THAT(why, Catch::Contains("'big' is not an xsd:int"));
  CHECK_THAT(why, Catch::Contains("'big' is not one of auto, none"));
  CHECK(SampleValue(t) == "0");
  SampleFits(t);
}

TEST_CASE("the remaining built-ins have samples of their own form", "[wsdl][xsd_value]") {
  for (const char* name : {"string",
                           "normalizedString",
                           "token",
                           "language",
                           "Name",
                           "NCName",
                           "ID",
                           "IDREF",
                           "NMTOKEN",
                           "anyURI",
                           "QName",
                           "hexBinary",
                           "base64Binary",
                           "long",
                           "short",
                           "unsignedInt",
                           "unsignedShort",
                           "unsignedByte",
                           "nonNegativeInteger",
                           "nonPositiveInteger",
                           "integer",
                           "anySimpleType"}) {
    SampleFits(Builtin(name));
  }
  Refusal(Builtin("NCName"), "a:b");
  CHECK(Accepts(Builtin("QName"), "a:b"));
  Refusal(Builtin("language"), "en_GB");
  CHECK(Accepts(Builtin("string"), "  any  text "));
}

TEST_CASE("JSON kinds follow the built-in: numbers, booleans, and strings for the rest",
          "[wsdl][xsd_value]") {
  CHECK(JsonKindOf(Builtin("int")) == JsonKind::kNumber);
  CHECK(JsonKindOf(Builtin("unsignedLong")) == JsonKind::kNumber);
  CHECK(JsonKindOf(Builtin("decimal")) == JsonKind::kNumber);
  CHECK(JsonKindOf(Builtin("double")) == JsonKind::kNumber);
  CHECK(JsonKindOf(Builtin("boolean")) == JsonKind::kBoolean);
  CHECK(JsonKindOf(Builtin("string")) == JsonKind::kString);
  CHECK(JsonKindOf(Builtin("dateTime")) == JsonKind::kString);
  SimpleType list = Builtin("int");
  list.list = true;
  CHECK(JsonKindOf(list) == JsonKind::kString);
}
