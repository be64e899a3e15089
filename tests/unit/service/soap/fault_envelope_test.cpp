#include "service/soap/fault_envelope.h"

#include <catch2/catch.hpp>
#include <pugixml.hpp>

#include <string>

using lather::AppendFaultEnvelope;
using lather::AppendXmlEscaped;

TEST_CASE("text is XML-escaped in runs, every special character replaced where it is", "[service][soap]") {
  const auto escaped = [](std::string_view text) {
    std::string out = "prefix:";
    AppendXmlEscaped(text, &out);
    return out;
  };
  CHECK(escaped("") == "prefix:");
  CHECK(escaped("plain text, 200 ms") == "prefix:plain text, 200 ms");
  CHECK(escaped("<a href=\"x\">&</a>") == "prefix:&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
  CHECK(escaped("&") == "prefix:&amp;");
  CHECK(escaped("ends with >") == "prefix:ends with &gt;");
  CHECK(escaped(std::string("nul\0bell\a tab\t line\n", 20)) == "prefix:nul?bell? tab\t line\n");
}

TEST_CASE("a fault envelope carries its reason, escaped, in either SOAP version", "[service][soap]") {
  for (int version : {1, 2}) {
    std::string out;
    AppendFaultEnvelope(version, false, "waited 80 ms > 50 ms & <retry>", &out);
    pugi::xml_document doc;
    REQUIRE(doc.load_string(out.c_str()));
    const std::string reason = version == 2 ? doc.select_node("//*[local-name()='Text']").node().text().get()
                                            : doc.select_node("//faultstring").node().text().get();
    CHECK(reason == "waited 80 ms > 50 ms & <retry>");
  }
}
