#include "service/soap/envelope_rules.h"

#include <catch2/catch.hpp>
#include <string>

using lather::CheckEncodingStyle;
using lather::EncodingStyleVerdict;
using lather::OnlyCommentsAndSpace;

namespace {

constexpr char kEnv11[] = "http://schemas.xmlsoap.org/soap/envelope/";
constexpr char kEnv12[] = "http://www.w3.org/2003/05/soap-envelope";

std::string Envelope(const char* ns, const std::string& envelope_attr, const std::string& body_attr,
                     const std::string& child_attr, const std::string& header = "") {
  return "<?xml version=\"1.0\"?><s:Envelope xmlns:s=\"" + std::string(ns) + "\"" + envelope_attr + ">" + header +
         "<s:Body" + body_attr + "><l:Op xmlns:l=\"urn:lather:v1\"" + child_attr +
         "><l:v s:encodingStyle=\"x\">1</l:v></l:Op></s:Body></s:Envelope>";
}

EncodingStyleVerdict Verdict(const std::string& xml, int version) {
  return CheckEncodingStyle(xml, std::string::npos, version).verdict;
}

}  // namespace

TEST_CASE("SOAP 1.1: encodingStyle on an envelope element or a Body child is refused (WS-I BP R1005 and R1006)",
          "[service][soap][conformance]") {
  const std::string style = " s:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\"";
  // Deeper (the grandchild in Envelope() carries one) and on header blocks it is left alone.
  CHECK(Verdict(Envelope(kEnv11, "", "", "", "<s:Header><h:x xmlns:h=\"urn:h\"" + style + "/></s:Header>"), 1) ==
        EncodingStyleVerdict::kNone);
  CHECK(Verdict(Envelope(kEnv11, style, "", ""), 1) == EncodingStyleVerdict::kMisplaced);
  CHECK(Verdict(Envelope(kEnv11, "", " s:encodingStyle=\"\"", ""), 1) == EncodingStyleVerdict::kMisplaced);
  const auto child = CheckEncodingStyle(Envelope(kEnv11, "", "", style), std::string::npos, 1);
  CHECK(child.verdict == EncodingStyleVerdict::kMisplaced);
  CHECK(child.reason.find("R1006") != std::string::npos);
  // Only the SOAP attribute counts: another namespace's, or an unqualified one, is not it.
  CHECK(Verdict(Envelope(kEnv11, "", "", " encodingStyle=\"x\" o:encodingStyle=\"x\" xmlns:o=\"urn:o\""), 1) ==
        EncodingStyleVerdict::kNone);
  // Whatever prefix the envelope namespace has, declared where it is used.
  CHECK(Verdict(Envelope(kEnv11, "", "", " q:encodingStyle=\"\" xmlns:q=\"" + std::string(kEnv11) + "\""), 1) ==
        EncodingStyleVerdict::kMisplaced);
}

TEST_CASE("SOAP 1.2: encodingStyle on Envelope or Header or Body is refused and an encoding on a Body child is unknown",
          "[service][soap][conformance]") {
  const std::string encoded = " s:encodingStyle=\"http://www.w3.org/2003/05/soap-encoding\"";
  CHECK(Verdict(Envelope(kEnv12, encoded, "", ""), 2) == EncodingStyleVerdict::kMisplaced);
  CHECK(Verdict(Envelope(kEnv12, "", "", "", "<s:Header" + encoded + "/>"), 2) == EncodingStyleVerdict::kMisplaced);
  CHECK(Verdict(Envelope(kEnv12, "", "", encoded), 2) == EncodingStyleVerdict::kUnknownEncoding);
  // SOAP 1.2 part 1 5.1.1: .../encoding/none makes no claim: a literal service reads it.
  CHECK(Verdict(Envelope(kEnv12, "", "", " s:encodingStyle=\" http://www.w3.org/2003/05/soap-envelope/encoding/none \""),
                2) == EncodingStyleVerdict::kNone);
  // The SOAP 1.1 attribute on a SOAP 1.2 envelope is another namespace's attribute.
  CHECK(Verdict(Envelope(kEnv12, "", "", " o:encodingStyle=\"x\" xmlns:o=\"" + std::string(kEnv11) + "\""), 2) ==
        EncodingStyleVerdict::kNone);
}

TEST_CASE("only comments and white space may follow the Envelope", "[service][soap][conformance]") {
  CHECK(OnlyCommentsAndSpace(""));
  CHECK(OnlyCommentsAndSpace(" \r\n\t<!-- a -- b --> <!---->\n"));
  CHECK_FALSE(OnlyCommentsAndSpace("<x/>"));
  CHECK_FALSE(OnlyCommentsAndSpace("\ntext"));
  CHECK_FALSE(OnlyCommentsAndSpace("<!-- never closed"));
  CHECK_FALSE(OnlyCommentsAndSpace("<!-- c --></s:Envelope>"));
}
