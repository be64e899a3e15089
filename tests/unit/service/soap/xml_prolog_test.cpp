#include "service/soap/xml_prolog.h"

#include <string>

#include "service/soap/markup_limits.h"

#include <catch2/catch.hpp>

using lather::ScanXmlProlog;

TEST_CASE("a DTD anywhere in the prolog is found", "[service][xml]") {
  CHECK(ScanXmlProlog("<!DOCTYPE x><x/>").has_doctype);
  CHECK(ScanXmlProlog("<?xml version=\"1.0\"?>\n<!-- c --><!DOCTYPE lolz [<!ENTITY a \"a\">]><x/>").has_doctype);
  CHECK(ScanXmlProlog("\xEF\xBB\xBF <?pi x?><!DOCTYPE x SYSTEM \"http://127.0.0.1/x.dtd\"><x/>").has_doctype);
}

TEST_CASE("an ordinary envelope has no DTD and names its document element", "[service][xml]") {
  const auto prolog = ScanXmlProlog("<?xml version=\"1.0\"?><!-- hi --><soap:Envelope xmlns:soap=\"u\"/>");
  CHECK_FALSE(prolog.has_doctype);
  CHECK(prolog.root_name == "soap:Envelope");
  CHECK(ScanXmlProlog("<Envelope>").root_name == "Envelope");
  CHECK(ScanXmlProlog("garbage").root_name.empty());
  CHECK(ScanXmlProlog("").root_name.empty());
}

TEST_CASE("attribute floods are found in one pass, and comments and CDATA are skipped", "[service][xml][limits]") {
  using lather::MostAttributesPerElement;
  CHECK(MostAttributesPerElement("<a x=\"1\" y=\"2\"><b z=\"3\"/></a>", 256) == 2);
  CHECK(MostAttributesPerElement("<a><!-- x=1 y=2 z=3 --><![CDATA[ a=1 b=2 c=3 d=4 ]]></a>", 256) == 0);
  std::string flood = "<a";
  for (int i = 0; i < 25000; ++i) flood += " a" + std::to_string(i) + "=\"1\"";
  flood += "/>";
  CHECK(MostAttributesPerElement(flood, 256) > 256);
  CHECK(MostAttributesPerElement("<a x=\"1\"", 256) == 1);  // unterminated tag: counted to the end
}

TEST_CASE("names longer than the limit are found, and quoted values and '=' in them are not names",
          "[service][xml][limits]") {
  using lather::CountMarkup;
  const auto ordinary = CountMarkup("<?xml version=\"1.0\"?><s:Envelope xmlns:s=\"urn:a=b\"><s:Body/></s:Envelope>", 256, 1000);
  CHECK(ordinary.most_attributes == 1);              // the '=' inside the quoted value is not counted
  CHECK(ordinary.longest_name == std::string("s:Envelope").size());
  CHECK(CountMarkup("<a x='" + std::string(5000, 'v') + "'/>", 256, 1000).longest_name == 1);
  CHECK(CountMarkup("<" + std::string(2000, 'n') + "/>", 256, 1000).longest_name > 1000);
  CHECK(CountMarkup("<a></" + std::string(2000, 'n') + ">", 256, 1000).longest_name > 1000);
  CHECK(CountMarkup("<a " + std::string(2000, 'n') + "=\"1\"/>", 256, 1000).longest_name > 1000);
  CHECK(CountMarkup("<a>" + std::string(2000, 'n') + "</a>", 256, 1000).longest_name == 1);  // text is not a name
}

TEST_CASE("the longest run of character data bounds the longest string value", "[service][xml][limits]") {
  using lather::LongestTextRun;
  CHECK(LongestTextRun("<a><b>hello</b><c>hi</c></a>") == 5);
  CHECK(LongestTextRun("<a>" + std::string(3000, 'x') + "</a>") == 3000);
  CHECK(LongestTextRun("<a>" + std::string(10, 'x')) == 10);  // unterminated: to the end
  CHECK(LongestTextRun("no markup") == 0);
}

TEST_CASE("bytes that are not UTF-8, forbidden characters and other encodings are named", "[service][xml][utf8]") {
  using lather::CharacterProblem;
  CHECK(CharacterProblem("<?xml version=\"1.0\" encoding=\"UTF-8\"?><a>Z\xC3\xBCrich \xE6\x9D\xB1\xE4\xBA\xAC &#233; &#x1F600;</a>").empty());
  CHECK(CharacterProblem("<a>\t\r\n</a>").empty());
  CHECK(CharacterProblem("<a>\xC0\xAF</a>") == "bytes that are not UTF-8");           // overlong
  CHECK(CharacterProblem("<a>\x80</a>") == "bytes that are not UTF-8");               // lone continuation
  CHECK(CharacterProblem("<a>\xED\xA0\x80</a>") == "bytes that are not UTF-8");       // surrogate
  CHECK(CharacterProblem("<a>\xE6\x9D") == "bytes that are not UTF-8");               // truncated
  CHECK(CharacterProblem(std::string("<a>\x01</a>")) == "a control character that XML 1.0 forbids");
  CHECK(CharacterProblem(std::string("<a>x\0y</a>", 10)) == "a control character that XML 1.0 forbids");
  CHECK(CharacterProblem("<a>&#0;</a>") == "a character reference to a character that XML 1.0 forbids");
  CHECK(CharacterProblem("<a>&#x1F;</a>") == "a character reference to a character that XML 1.0 forbids");
  CHECK(CharacterProblem("<a>&#xD800;</a>") == "a character reference to a character that XML 1.0 forbids");
  CHECK(CharacterProblem("<a>&#12z;</a>") == "a malformed character reference");
  const std::string undeclared = "an entity reference that is not declared (only &lt; &gt; &amp; &quot; &apos; are)";
  CHECK(CharacterProblem("<a>&undeclared;</a>") == undeclared);
  CHECK(CharacterProblem("<a>fish & chips</a>") == undeclared);  // a bare '&'
  CHECK(CharacterProblem("<a>&amp</a>") == undeclared);          // unterminated
  CHECK(CharacterProblem("<a b=\"&x;\"/>") == undeclared);
  CHECK(CharacterProblem("<a>&lt;&gt;&amp;&quot;&apos;</a>").empty());
  CHECK(CharacterProblem("<a><![CDATA[fish & chips &x; &#0;]]><!-- & --></a>").empty());
  CHECK(CharacterProblem("<a><![CDATA[x]]>&x;</a>") == undeclared);  // after the section ends
  CHECK(CharacterProblem("<a><![CDATA[&]]>&amp;<!--&-->&lt;<![CDATA[&x;]]></a>").empty());  // several sections
  CHECK(CharacterProblem("<a><!--&-->&bad;<!--&--></a>") == undeclared);                  // between two
  CHECK(CharacterProblem("<?xml version='1.0' encoding='ISO-8859-1'?><a/>") ==
        "an encoding declaration other than UTF-8 (only UTF-8 is accepted)");
  CHECK(CharacterProblem("\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"us-ascii\"?><a/>").empty());
  CHECK(CharacterProblem(std::string("\xFF\xFE<\0a\0/\0>\0", 10)) == "bytes that are not UTF-8");  // UTF-16
}

TEST_CASE("CharacterProblem finds a bad character at every offset of a word, in long ASCII runs",
          "[service][limits]") {
  using lather::CharacterProblem;
  const std::string plain(40, 'a');
  CHECK(CharacterProblem(plain).empty());
  for (size_t at = 0; at < 24; ++at) {
    INFO("offset " << at);
    std::string s = plain;
    s[at] = '\x01';
    CHECK(CharacterProblem(s) == "a control character that XML 1.0 forbids");
    s = plain;
    s.replace(at, 4, "&#0;");
    CHECK(CharacterProblem(s) == "a character reference to a character that XML 1.0 forbids");
    s = plain;
    s[at] = '\x80';
    CHECK(CharacterProblem(s) == "bytes that are not UTF-8");
    s = plain;
    s.replace(at, 2, "\xC3\xA9");
    CHECK(CharacterProblem(s).empty());
    s = plain;
    s[at] = '\t';
    CHECK(CharacterProblem(s).empty());
  }
}

TEST_CASE("MostAttributesPerElement reports the first href or ref attribute, whatever its prefix",
          "[service][limits]") {
  using lather::MostAttributesPerElement;
  auto reference = [](const std::string& xml) {
    std::string_view found;
    MostAttributesPerElement(xml, 256, &found);
    return std::string(found);
  };
  CHECK(reference("<a><b x=\"1\">text</b></a>").empty());
  CHECK(reference("<?xml version=\"1.0\"?><a id=\"s1\"><b/></a>").empty());  // an id alone refers to nothing
  CHECK(reference("<a><b href=\"#s1\"/></a>") == "href");
  CHECK(reference("<a><b x='1' ref='s1'/></a>") == "ref");
  CHECK(reference("<a xmlns:enc=\"urn:e\"><b  enc:ref = \"s1\" /></a>") == "enc:ref");
  CHECK(reference("<a xmlns:ref=\"urn:r\" xmlns:href=\"urn:h\"><b/></a>").empty());  // namespace prefixes named so
  CHECK(reference("<a><b title=\"href='#x'\"/></a>").empty());  // inside a value
  CHECK(reference("<a><!-- <b href=\"#x\"/> --></a>").empty());
  CHECK(reference("<a><b hrefs=\"x\" xref=\"y\"/></a>").empty());
}

TEST_CASE("processing instructions are found but the XML declaration at the start is not one", "[service][xml][limits]") {
  using lather::CountMarkup;
  const auto found = [](const std::string& xml, bool document_start = true) {
    return std::string(CountMarkup(xml, 256, 1000, document_start).processing_instruction);
  };
  CHECK(found("<?xml version=\"1.0\"?><e/>").empty());
  CHECK(found("\xEF\xBB\xBF\n <?xml version=\"1.0\"?><e/>").empty());  // BOM and white space before it
  CHECK(found("<?xml-stylesheet href=\"a\"?><e/>") == "<?xml-stylesheet href=\"a\"");
  CHECK(found("<?xml version=\"1.0\"?><e><?pi data?></e>") == "<?pi data");
  CHECK(found("<e/><?xml version=\"1.0\"?>") == "<?xml version=\"1.0\"");  // a declaration later is not one
  CHECK(found("<?xml version=\"1.0\"?><e/>", false) == "<?xml version=\"1.0\"");  // not the document's start
  CHECK(found("<e><!-- <?pi?> --><![CDATA[<?pi?>]]></e>").empty());  // in comments and CDATA: text
  CHECK(found("<e>" + std::string(40, 'x') + "<?" + std::string(100, 'p') + "?></e>").size() == 32);
}
