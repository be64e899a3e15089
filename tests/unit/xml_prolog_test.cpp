#include "service/xml_prolog.h"

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
