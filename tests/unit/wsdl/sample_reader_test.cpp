#include "wsdl/sample_reader.h"

#include <catch2/catch.hpp>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "client/data_sample.h"
#include "wsdl/sample_writer.h"

using lather::DataSample;
using lather::NamespaceBinding;
using lather::ReadSampleWrapper;
using lather::SampleReadLimits;
using lather::SampleReadProblem;
using lather::SampleReadResult;
using lather::SampleSet;
using lather::XmlNamespace;

namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

// The children of a valid sample (element name, content), for tests to change.
Fields SampleFields() {
  return {{"firstname", "Anna"},
          {"lastname", "Müller"},
          {"city", "Zürich"},
          {"zip", "8001"},
          {"email", "anna@example.org"},
          {"contactNos", "<l:item>+41 44 123 4567</l:item><l:item>+41 79 000 0000</l:item>"},
          {"designation", "Lead Architect"},
          {"experience", "12"},
          {"salary", "123456.75"},
          {"companiesWorkedFor", "<l:item>Initech</l:item><l:item>Soylent &amp; Söhne</l:item>"},
          {"dateOfBirth", "1980-02-29T08:15:00+01:00"},
          {"isMarried", "true"},
          {"children", ""}};
}

std::string Sample(const Fields& fields, const std::string& attributes = "") {
  std::string s = "<l:sample" + attributes + ">";
  for (const auto& f : fields) s += "<l:" + f.first + ">" + f.second + "</l:" + f.first + ">";
  return s + "</l:sample>";
}

std::string Sample() { return Sample(SampleFields()); }

// A sample with one field's content replaced.
std::string SampleWith(const std::string& name, const std::string& content) {
  Fields f = SampleFields();
  for (auto& field : f) {
    if (field.first == name) field.second = content;
  }
  return Sample(f);
}

std::string Doc(const std::string& samples) {
  return "<l:EchoDataSamples xmlns:l=\"urn:lather:v1\"><l:samples>" + samples + "</l:samples></l:EchoDataSamples>";
}

struct Read {
  SampleReadResult result;
  SampleSet set;
};

Read ReadDoc(const std::string& xml, const SampleReadLimits& limits = SampleReadLimits(),
             const std::vector<NamespaceBinding>& scope = {}, const std::string& wrapper = "EchoDataSamples") {
  Read r;
  r.result = ReadSampleWrapper(xml, 0, wrapper, scope, limits, &r.set);
  return r;
}

bool Mentions(const SampleReadResult& r, const std::string& word) {
  return r.message.find(word) != std::string::npos;
}

#define CHECK_PROBLEM(read, kind, word)          \
  do {                                           \
    const auto& res_ = (read).result;            \
    INFO(res_.message);                          \
    CHECK(res_.problem == (kind));               \
    CHECK(Mentions(res_, word));                 \
  } while (0)

// Reads a document with one sample whose `field` holds `content`; the problem or kNone.
Read ReadField(const std::string& field, const std::string& content) { return ReadDoc(Doc(SampleWith(field, content))); }

}  // namespace

TEST_CASE("The sample reader reads a realistic sample with every field", "[wsdl][sample_reader]") {
  const std::string xml = Doc(Sample());
  Read r = ReadDoc(xml);
  INFO(r.result.message);
  REQUIRE(r.result.ok());
  CHECK(r.result.end == xml.size());
  CHECK_FALSE(r.set.graph);
  REQUIRE(r.set.samples.size() == 1);
  const DataSample& s = *r.set.samples[0];
  CHECK(s.firstname == "Anna");
  CHECK(s.lastname == "Müller");
  CHECK(s.city == "Zürich");
  CHECK(s.zip == 8001);
  CHECK(s.email == "anna@example.org");
  CHECK(s.contact_nos == std::vector<std::string>{"+41 44 123 4567", "+41 79 000 0000"});
  CHECK(s.designation == "Lead Architect");
  CHECK(s.experience == 12);
  CHECK(s.salary == 123456.75);
  CHECK(s.companies_worked_for == std::vector<std::string>{"Initech", "Soylent & Söhne"});
  CHECK(s.date_of_birth == "1980-02-29T08:15:00+01:00");
  CHECK(s.is_married);
  CHECK(s.children.empty());
  CHECK(r.set.owned() == 1);
}

TEST_CASE("The sample reader reads nested children and many samples in document order", "[wsdl][sample_reader]") {
  Fields child2 = SampleFields();
  child2[0].second = "Child2";
  child2.back().second = SampleWith("firstname", "Grand");
  const std::string parent = SampleWith("children", SampleWith("firstname", "Child1") + Sample(child2));
  Read r = ReadDoc(Doc(parent + SampleWith("firstname", "Second")));
  INFO(r.result.message);
  REQUIRE(r.result.ok());
  REQUIRE(r.set.samples.size() == 2);
  CHECK(r.set.samples[1]->firstname == "Second");
  const DataSample& p = *r.set.samples[0];
  REQUIRE(p.children.size() == 2);
  CHECK(p.children[0]->firstname == "Child1");
  CHECK(p.children[1]->firstname == "Child2");
  REQUIRE(p.children[1]->children.size() == 1);
  CHECK(p.children[1]->children[0]->firstname == "Grand");
  CHECK(r.set.owned() == 5);
}

TEST_CASE("The sample reader reads empty-element tags as empty strings and lists", "[wsdl][sample_reader]") {
  std::string xml = Doc(Sample({{"firstname", ""},
                                {"lastname", ""},
                                {"city", ""},
                                {"zip", "0"},
                                {"email", ""},
                                {"contactNos", ""},
                                {"designation", ""},
                                {"experience", "0"},
                                {"salary", "0"},
                                {"companiesWorkedFor", ""},
                                {"dateOfBirth", "2000-01-01T00:00:00"},
                                {"isMarried", "0"},
                                {"children", ""}}));
  for (const char* name : {"firstname", "lastname", "city", "email", "contactNos", "designation", "companiesWorkedFor",
                           "children"}) {
    const std::string open = std::string("<l:") + name + "></l:" + name + ">";
    const size_t at = xml.find(open);
    REQUIRE(at != std::string::npos);
    xml.replace(at, open.size(), std::string("<l:") + name + "/>");
  }
  Read r = ReadDoc(xml);
  INFO(r.result.message);
  REQUIRE(r.result.ok());
  const DataSample& s = *r.set.samples.at(0);
  CHECK(s.firstname.empty());
  CHECK(s.email.empty());
  CHECK(s.contact_nos.empty());
  CHECK(s.companies_worked_for.empty());
  CHECK(s.children.empty());
  CHECK_FALSE(s.is_married);
  Read empty_list = ReadDoc("<l:EchoDataSamples xmlns:l='urn:lather:v1'><l:samples/></l:EchoDataSamples>");
  REQUIRE(empty_list.result.ok());
  CHECK(empty_list.set.samples.empty());
  Read empty_item = ReadField("contactNos", "<l:item/><l:item></l:item>");
  REQUIRE(empty_item.result.ok());
  CHECK(empty_item.set.samples[0]->contact_nos == std::vector<std::string>{"", ""});
}

TEST_CASE("The sample reader takes zip from 0 to 4294967295 and refuses the rest", "[wsdl][sample_reader]") {
  Read r = ReadField("zip", "0");
  REQUIRE(r.result.ok());
  CHECK(r.set.samples[0]->zip == 0);
  r = ReadField("zip", " +4294967295\n");
  REQUIRE(r.result.ok());
  CHECK(r.set.samples[0]->zip == 4294967295u);
  CHECK_PROBLEM(ReadField("zip", "4294967296"), SampleReadProblem::kSchema, "zip '4294967296' is not an xsd:unsignedInt");
  CHECK_PROBLEM(ReadField("zip", "12x"), SampleReadProblem::kSchema, "zip '12x' is not an xsd:unsignedInt");
  CHECK_PROBLEM(ReadField("zip", "-1"), SampleReadProblem::kSchema, "unsignedInt");
  CHECK_PROBLEM(ReadField("zip", ""), SampleReadProblem::kSchema, "unsignedInt");
  CHECK_PROBLEM(ReadField("zip", "1 2"), SampleReadProblem::kSchema, "unsignedInt");
}

TEST_CASE("The sample reader takes experience over the whole xsd:int range and no further", "[wsdl][sample_reader]") {
  Read r = ReadField("experience", "-2147483648");
  REQUIRE(r.result.ok());
  CHECK(r.set.samples[0]->experience == INT_MIN);
  r = ReadField("experience", "2147483647");
  REQUIRE(r.result.ok());
  CHECK(r.set.samples[0]->experience == INT_MAX);
  CHECK_PROBLEM(ReadField("experience", "-2147483649"), SampleReadProblem::kSchema, "xsd:int");
  CHECK_PROBLEM(ReadField("experience", "2147483648"), SampleReadProblem::kSchema, "experience");
  CHECK_PROBLEM(ReadField("experience", "1.0"), SampleReadProblem::kSchema, "xsd:int");
}

TEST_CASE("The sample reader takes the xsd:double lexical forms exactly", "[wsdl][sample_reader]") {
  const auto salary = [](const std::string& text) {
    Read r = ReadField("salary", text);
    INFO(text << ": " << r.result.message);
    REQUIRE(r.result.ok());
    return r.set.samples[0]->salary;
  };
  CHECK(std::isnan(salary("NaN")));
  CHECK(salary("INF") == HUGE_VAL);
  CHECK(salary("+INF") == HUGE_VAL);
  CHECK(salary("-INF") == -HUGE_VAL);
  const double negative_zero = salary("-0.0");
  CHECK(negative_zero == 0.0);
  CHECK(std::signbit(negative_zero));
  CHECK(salary("1e308") == 1e308);
  CHECK(salary("5e-324") == 5e-324);
  CHECK(salary("0.1") == 0.1);
  CHECK(salary(" 1.5E2 ") == 150.0);
  CHECK(salary(".5") == 0.5);
  CHECK(salary("+7.") == 7.0);
  CHECK(salary("1e400") == HUGE_VAL);
  for (const char* bad : {"inf", "nan", "Infinity", "0x1p3", "1e", "e5", ".", "1.2.3", "1,5", "", "+NaN", "1 e5"}) {
    INFO(bad);
    CHECK_PROBLEM(ReadField("salary", bad), SampleReadProblem::kSchema, "xsd:double");
  }
}

TEST_CASE("The sample reader checks dateOfBirth with IsXsdDateTime and keeps its text", "[wsdl][sample_reader]") {
  for (const char* ok : {"1899-12-31T23:59:59Z", "1969-07-20T20:17:40-05:00", "-0044-03-15T12:00:00",
                         "2000-02-29T24:00:00+14:00", "1980-01-01T00:00:00.123456"}) {
    Read r = ReadField("dateOfBirth", ok);
    INFO(ok << ": " << r.result.message);
    REQUIRE(r.result.ok());
    CHECK(r.set.samples[0]->date_of_birth == ok);
  }
  for (const char* bad : {"1980-13-01T00:00:00", "1980-01-01", "80-01-01T00:00:00", "1980-01-01T00:00:00+15:00",
                          "1980-01-01T00:00:00 Z", "yesterday"}) {
    INFO(bad);
    CHECK_PROBLEM(ReadField("dateOfBirth", bad), SampleReadProblem::kSchema, "xsd:dateTime");
  }
}

TEST_CASE("The sample reader takes xsd:boolean as true false 1 or 0", "[wsdl][sample_reader]") {
  Read r = ReadField("isMarried", "1");
  REQUIRE(r.result.ok());
  CHECK(r.set.samples[0]->is_married);
  r = ReadField("isMarried", " false ");
  REQUIRE(r.result.ok());
  CHECK_FALSE(r.set.samples[0]->is_married);
  CHECK_PROBLEM(ReadField("isMarried", "TRUE"), SampleReadProblem::kSchema, "xsd:boolean");
  CHECK_PROBLEM(ReadField("isMarried", "yes"), SampleReadProblem::kSchema, "isMarried");
}

TEST_CASE("The sample reader decodes references and CDATA, skips comments and normalizes line ends",
          "[wsdl][sample_reader]") {
  const auto first = [](const std::string& content) {
    Read r = ReadField("firstname", content);
    INFO(content << ": " << r.result.message);
    REQUIRE(r.result.ok());
    return r.set.samples[0]->firstname;
  };
  CHECK(first("&lt;&gt;&amp;&quot;&apos;") == "<>&\"'");
  CHECK(first("A&#66;&#x43;&#x1F600;") == "ABC\xF0\x9F\x98\x80");
  CHECK(first("<![CDATA[a<b>&c]]>d") == "a<b>&cd");
  CHECK(first("An<!-- a comment -->na") == "Anna");
  CHECK(first("An<?pi data?>na") == "Anna");
  CHECK(first("a\r\nb\rc\nd") == "a\nb\nc\nd");
  CHECK(first("<![CDATA[a\r\nb]]>") == "a\nb");
  CHECK(first("  two  spaces\t") == "  two  spaces\t");
  CHECK(first("&#13;") == "\r");
  CHECK(first("Zoë 李 Олег 😀") == "Zoë 李 Олег 😀");
  Read r = ReadField("zip", "<!-- x -->1&#50;3");
  REQUIRE(r.result.ok());
  CHECK(r.set.samples[0]->zip == 123);
}

TEST_CASE("The sample reader refuses characters and bytes that are not UTF-8 XML", "[wsdl][sample_reader]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a\x01z", "control character"},      {std::string("a\0z", 3), "control character"},
      {"a\x80z", "not UTF-8"},              {"a\xC0\xAFz", "not UTF-8"},
      {"a\xE0\x80\xAFz", "not UTF-8"},      {"a\xED\xA0\x80z", "not UTF-8"},
      {"a\xF4\x90\x80\x80z", "not UTF-8"},  {"a\xF8\x88\x80\x80\x80z", "not UTF-8"},
      {"a\xC3", "not UTF-8"},               {"a\xEF\xBF\xBEz", "forbids"},
      {"&#0;", "forbids"},                  {"&#xD800;", "forbids"},
      {"&#x110000;", "forbids"},            {"&#xFFFE;", "forbids"},
      {"&#12a;", "malformed"},              {"&#;", "malformed"},
      {"&unknown;", "&unknown;"},           {"&nbsp;", "not declared"},
      {"a & b", "'&'"},                     {"<![CDATA[\x01]]>", "control character"},
      {"<!-- \xFF -->", "not UTF-8"},
  };
  for (const auto& c : cases) {
    INFO(c.first);
    CHECK_PROBLEM(ReadField("firstname", c.first), SampleReadProblem::kMalformed, c.second);
  }
  CHECK_PROBLEM(ReadDoc(Doc(Sample(SampleFields(), " foo='a\x02'"))), SampleReadProblem::kMalformed, "control");
  CHECK_PROBLEM(ReadDoc(Doc(Sample(SampleFields(), " foo='&bad;'"))), SampleReadProblem::kMalformed, "&bad;");
  CHECK_PROBLEM(ReadDoc(Doc(Sample(SampleFields(), " foo='a<b'"))), SampleReadProblem::kMalformed, "'<'");
  CHECK_PROBLEM(ReadDoc("<!DOCTYPE x>" + Doc(Sample())), SampleReadProblem::kMalformed, "DOCTYPE");
}

TEST_CASE("The sample reader resolves prefixes however the namespace is declared", "[wsdl][sample_reader]") {
  std::string plain = Doc(Sample());
  // The default namespace on the wrapper.
  std::string default_ns = plain;
  for (size_t at; (at = default_ns.find("l:")) != std::string::npos;) default_ns.erase(at, 2);
  default_ns.replace(default_ns.find("xmlns"), 7, "xmlns");
  Read r = ReadDoc(default_ns);
  INFO(default_ns << ": " << r.result.message);
  CHECK(r.result.ok());
  // Declared where reading starts (the Envelope), not on the wrapper.
  std::string outer = plain;
  outer.erase(outer.find(" xmlns:l=\"urn:lather:v1\""), std::strlen(" xmlns:l=\"urn:lather:v1\""));
  r = ReadDoc(outer, SampleReadLimits(), {NamespaceBinding{"l", XmlNamespace::kLather}});
  INFO(r.result.message);
  CHECK(r.result.ok());
  CHECK_PROBLEM(ReadDoc(outer), SampleReadProblem::kMalformed, "prefix 'l'");
  // On an inner element, for it and its descendants only, with another prefix.
  std::string inner = "<x:sample xmlns:x='urn:lather:v1'>";
  for (const auto& field : SampleFields()) inner += "<x:" + field.first + ">" + field.second + "</x:" + field.first + ">";
  inner += "</x:sample>";
  r = ReadDoc(Doc(inner + Sample()));
  INFO(r.result.message);
  CHECK(r.result.ok());
  CHECK_PROBLEM(ReadDoc(Doc(inner + inner.substr(inner.find("<x:firstname>")))), SampleReadProblem::kMalformed,
                "prefix 'x'");
  // Rebinding: l means another namespace on one field, and urn:lather:v1 again where the scope said otherwise.
  std::string rebound = SampleWith("firstname", "A");
  rebound.replace(rebound.find("<l:city>"), 8, "<l:city xmlns:l='urn:other'>");
  CHECK_PROBLEM(ReadDoc(Doc(rebound)), SampleReadProblem::kSchema, "'city' in urn:lather:v1");
  r = ReadDoc(Doc(Sample()), SampleReadLimits(), {NamespaceBinding{"l", XmlNamespace::kOther}});
  INFO(r.result.message);
  CHECK(r.result.ok());
  std::string again = SampleWith("firstname", "A");
  again.replace(again.find("<l:city>"), 8, "<l:city xmlns:l='urn:lather:v1'>");
  r = ReadDoc(Doc(again + Sample()));
  INFO(r.result.message);
  CHECK(r.result.ok());
  // A default namespace on one element, undone by xmlns="" below it.
  std::string undone = SampleWith("firstname", "A");
  undone.replace(undone.find("<l:lastname>"), 12, "<lastname xmlns=''>");
  undone.replace(undone.find("</l:lastname>"), 13, "</lastname>");
  CHECK_PROBLEM(ReadDoc(Doc(undone)), SampleReadProblem::kSchema, "no namespace");
  std::string inner_default = SampleWith("firstname", "A");
  inner_default.replace(inner_default.find("<l:lastname>"), 12, "<lastname xmlns='urn:lather:v1'>");
  inner_default.replace(inner_default.find("</l:lastname>"), 13, "</lastname>");
  r = ReadDoc(Doc(inner_default));
  INFO(r.result.message);
  CHECK(r.result.ok());
}

TEST_CASE("The sample reader refuses contract elements in another namespace", "[wsdl][sample_reader]") {
  std::string xml = Doc(Sample());
  xml.replace(xml.find("urn:lather:v1"), 13, "urn:lather:v2");
  CHECK_PROBLEM(ReadDoc(xml), SampleReadProblem::kSchema, "urn:lather:v1");
  CHECK_PROBLEM(ReadDoc(Doc(SampleWith("contactNos", "<item>1</item>"))), SampleReadProblem::kSchema, "no namespace");
  CHECK_PROBLEM(ReadDoc(Doc(Sample()), SampleReadLimits(), {}, "EchoDataSamplesResponse"), SampleReadProblem::kSchema,
                "EchoDataSamplesResponse");
}

TEST_CASE("The sample reader refuses a missing, extra or misplaced element", "[wsdl][sample_reader]") {
  Fields swapped = SampleFields();
  std::swap(swapped[0], swapped[1]);
  CHECK_PROBLEM(ReadDoc(Doc(Sample(swapped))), SampleReadProblem::kSchema, "'firstname' was expected");
  Fields missing = SampleFields();
  missing.erase(missing.begin() + 3);
  CHECK_PROBLEM(ReadDoc(Doc(Sample(missing))), SampleReadProblem::kSchema, "'zip' was expected");
  Fields no_children = SampleFields();
  no_children.pop_back();
  CHECK_PROBLEM(ReadDoc(Doc(Sample(no_children))), SampleReadProblem::kSchema, "'children' was expected");
  Fields extra = SampleFields();
  extra.emplace_back("nickname", "x");
  CHECK_PROBLEM(ReadDoc(Doc(Sample(extra))), SampleReadProblem::kSchema, "nickname");
  CHECK_PROBLEM(ReadField("firstname", "A<l:b>c</l:b>"), SampleReadProblem::kSchema, "simple value");
  CHECK_PROBLEM(ReadField("contactNos", "<l:entry>1</l:entry>"), SampleReadProblem::kSchema, "'item' was expected");
  CHECK_PROBLEM(ReadField("contactNos", "text"), SampleReadProblem::kSchema, "text");
  CHECK_PROBLEM(ReadDoc(Doc("<l:sample/>")), SampleReadProblem::kSchema, "firstname");
  CHECK_PROBLEM(ReadDoc("<l:EchoDataSamples xmlns:l='urn:lather:v1'/>"), SampleReadProblem::kSchema, "samples");
  CHECK_PROBLEM(ReadDoc("<l:EchoDataSamples xmlns:l='urn:lather:v1'><l:samples/><l:samples/></l:EchoDataSamples>"),
                SampleReadProblem::kSchema, "samples");
  CHECK_PROBLEM(ReadDoc(Doc(Sample() + "junk")), SampleReadProblem::kSchema, "text");
  CHECK_PROBLEM(ReadDoc(Doc(Sample() + "<![CDATA[x]]>")), SampleReadProblem::kSchema, "CDATA");
  Read ws = ReadDoc(" <!-- before -->\n<?pi x?>" + Doc("\n  " + Sample() + "<!--c-->\n  <![CDATA[ ]]>"));
  INFO(ws.result.message);
  CHECK(ws.result.ok());
}

TEST_CASE("The sample reader refuses markup that is not well-formed", "[wsdl][sample_reader]") {
  std::string mismatched = Doc(Sample());
  mismatched.replace(mismatched.find("</l:city>"), 9, "</l:town>");
  CHECK_PROBLEM(ReadDoc(mismatched), SampleReadProblem::kMalformed, "does not match");
  CHECK_PROBLEM(ReadDoc(Doc(Sample(SampleFields(), " a='1' a='2'"))), SampleReadProblem::kMalformed, "twice");
  CHECK_PROBLEM(ReadDoc(Doc(Sample(SampleFields(), " a='1'b='2'"))), SampleReadProblem::kMalformed, "white space");
  CHECK_PROBLEM(ReadDoc(Doc(Sample(SampleFields(), " a=1"))), SampleReadProblem::kMalformed, "quotes");
  const std::string whole = Doc(Sample());
  CHECK_PROBLEM(ReadDoc(whole.substr(0, whole.find("Anna") + 2)), SampleReadProblem::kMalformed, "ends");
  CHECK_PROBLEM(ReadDoc(whole.substr(0, whole.find("</l:city>") + 5)), SampleReadProblem::kMalformed, "ends");
  CHECK_PROBLEM(ReadDoc(whole.substr(0, whole.find("<l:city>") + 5)), SampleReadProblem::kMalformed, "ends");
  // Cut right after an end tag, in a buffer of exactly that size (ASan: nothing past it is read).
  for (const char* cut : {"</l:city>", "</l:item>", "</l:sample>"}) {
    const std::string text = whole.substr(0, whole.find(cut) + std::strlen(cut));
    const std::unique_ptr<char[]> exact(new char[text.size()]);
    std::memcpy(exact.get(), text.data(), text.size());
    SampleSet set;
    const SampleReadResult r = ReadSampleWrapper(std::string_view(exact.get(), text.size()), 0, "EchoDataSamples", {},
                                                 SampleReadLimits(), &set);
    INFO(cut << ": " << r.message);
    CHECK(r.problem == SampleReadProblem::kMalformed);
    CHECK(Mentions(r, "ends"));
  }
  CHECK_PROBLEM(ReadDoc(Doc(Sample() + "<?xml version='1.0'?>")), SampleReadProblem::kMalformed, "XML declaration");
  CHECK_PROBLEM(ReadDoc(Doc(Sample() + "<!-- open")), SampleReadProblem::kMalformed, "comment");
  std::string attributes;
  for (int i = 0; i < 256; ++i) attributes += " a" + std::to_string(i) + "='v'";
  Read r = ReadDoc(Doc(Sample(SampleFields(), attributes)));
  INFO(r.result.message);
  CHECK(r.result.ok());
  CHECK_PROBLEM(ReadDoc(Doc(Sample(SampleFields(), attributes + " xmlns:z='urn:z'"))), SampleReadProblem::kMalformed,
                "256 attributes");
  r = ReadDoc(Doc(Sample(SampleFields(), " " + std::string(1000, 'a') + "='v'")));
  CHECK(r.result.ok());
  CHECK_PROBLEM(ReadDoc(Doc(Sample(SampleFields(), " " + std::string(1001, 'a') + "='v'"))),
                SampleReadProblem::kMalformed, "1,000 bytes");
  CHECK_PROBLEM(ReadDoc(Doc("<l:" + std::string(1001, 'x') + "/>")), SampleReadProblem::kMalformed, "1,000 bytes");
}

TEST_CASE("The sample reader refuses xsi:nil on a contract element and ignores other attributes",
          "[wsdl][sample_reader]") {
  const std::string xsi = " xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance'";
  std::string nil = SampleWith("firstname", "A");
  nil.replace(nil.find("<l:city>"), 8, "<l:city" + xsi + " xsi:nil='true'>");
  CHECK_PROBLEM(ReadDoc(Doc(nil)), SampleReadProblem::kSchema, "nil");
  std::string typed = SampleWith("firstname", "A");
  typed.replace(typed.find("<l:city>"), 8, "<l:city" + xsi + " xsi:type='xsd:string' foo='bar' xsi:nil='false'>");
  Read r = ReadDoc(Doc(typed));
  INFO(r.result.message);
  CHECK(r.result.ok());
  CHECK(r.set.samples.at(0)->city == "Zürich");
  CHECK_PROBLEM(ReadDoc(Doc(Sample(SampleFields(), " q:foo='1'"))), SampleReadProblem::kMalformed, "prefix 'q'");
}

TEST_CASE("The sample reader enforces the depth limit exactly", "[wsdl][sample_reader]") {
  // wrapper 1, samples 2, sample 3, firstname and contactNos 4, item 5; in a child sample (children 4,
  // sample 5) its contactNos is level 6 and its items level 7.
  const std::string nested = Doc(SampleWith("children", Sample()));
  SampleReadLimits limits;
  limits.max_depth = 7;
  Read r = ReadDoc(nested, limits);
  INFO(r.result.message);
  CHECK(r.result.ok());
  limits.max_depth = 6;
  CHECK_PROBLEM(ReadDoc(nested, limits), SampleReadProblem::kDepth, "6 levels");
  limits.max_depth = 5;
  CHECK(ReadDoc(Doc(Sample()), limits).result.ok());
  limits.max_depth = 4;
  CHECK_PROBLEM(ReadDoc(Doc(Sample()), limits), SampleReadProblem::kDepth, "deeper");
  // A deep chain is refused without recursion, at the limit.
  const std::string open =
      "<l:sample><l:firstname/><l:lastname/><l:city/><l:zip>1</l:zip><l:email/><l:contactNos/><l:designation/>"
      "<l:experience>1</l:experience><l:salary>1</l:salary><l:companiesWorkedFor/>"
      "<l:dateOfBirth>2000-01-01T00:00:00</l:dateOfBirth><l:isMarried>0</l:isMarried><l:children>";
  std::string deep;
  for (int i = 0; i < 5000; ++i) deep += open;
  deep += Sample();
  for (int i = 0; i < 5000; ++i) deep += "</l:children></l:sample>";
  CHECK_PROBLEM(ReadDoc(Doc(deep)), SampleReadProblem::kDepth, "500");
  limits.max_depth = 20000;
  r = ReadDoc(Doc(deep), limits);
  INFO(r.result.message);
  CHECK(r.result.ok());
}

TEST_CASE("The sample reader enforces the occurrence limit at the first element over it", "[wsdl][sample_reader]") {
  SampleReadLimits limits;
  limits.max_occurs = 3;
  CHECK(ReadDoc(Doc(Sample() + Sample() + Sample()), limits).result.ok());
  Read over = ReadDoc(Doc(Sample() + Sample() + Sample() + Sample() + "<broken"), limits);
  CHECK_PROBLEM(over, SampleReadProblem::kOccurs, "'sample'");
  CHECK(over.set.owned() == 3);
  CHECK(ReadField("contactNos", "<l:item/><l:item/><l:item/>").result.ok() );
  limits.max_occurs = 2;
  Read items = ReadDoc(Doc(SampleWith("contactNos", "<l:item>1</l:item><l:item>2</l:item>")), limits);
  CHECK(items.result.ok());
  CHECK_PROBLEM(ReadDoc(Doc(SampleWith("contactNos", "<l:item/><l:item/><l:item/>")), limits),
                SampleReadProblem::kOccurs, "'item'");
}

TEST_CASE("The sample reader enforces the string limit in characters after decoding", "[wsdl][sample_reader]") {
  SampleReadLimits limits;
  limits.max_string = 25;  // the longest value of the sample (dateOfBirth) has 25
  const std::string x21(21, 'x');
  CHECK(ReadDoc(Doc(SampleWith("firstname", "Zoë" + x21 + "&#x1F600;")), limits).result.ok());  // 25 characters
  CHECK(ReadDoc(Doc(SampleWith("firstname", "<![CDATA[Zoë]]>" + x21 + "&amp;")), limits).result.ok());
  CHECK_PROBLEM(ReadDoc(Doc(SampleWith("firstname", "Zoë" + x21 + "&#x1F600;!")), limits), SampleReadProblem::kString,
                "'firstname' has 26 characters");
  CHECK_PROBLEM(ReadDoc(Doc(SampleWith("firstname", "Zoë" + x21 + "\r\n!")), limits), SampleReadProblem::kString,
                "26 characters");
  CHECK_PROBLEM(ReadDoc(Doc(SampleWith("lastname", std::string(26, 'a'))), limits), SampleReadProblem::kString,
                "lastname");
  CHECK_PROBLEM(ReadDoc(Doc(SampleWith("contactNos", "<l:item>" + std::string(26, 'b') + "</l:item>")), limits),
                SampleReadProblem::kString, "item");
  limits.max_string = 0;
  CHECK(ReadDoc(Doc(SampleWith("firstname", std::string(100000, 'x'))), limits).result.ok());
}

TEST_CASE("The sample reader shares samples named by id and reference in every spelling", "[wsdl][sample_reader]") {
  const std::string enc11 = " xmlns:SOAP-ENC='http://schemas.xmlsoap.org/soap/encoding/'";
  const std::string enc12 = " xmlns:enc='http://www.w3.org/2003/05/soap-encoding'";
  const std::vector<std::pair<std::string, std::string>> spellings = {
      {" id='a'", " href='#a'"}, {" id='a'", " ref='#a'"}, {" id='a'", " ref='a'"},
      {enc11 + " SOAP-ENC:id='a'", " href='#a'"}, {enc12 + " enc:id='a'", enc12 + " enc:ref='a'"}};
  for (const auto& s : spellings) {
    INFO(s.first << " / " << s.second);
    // The reference first (a forward reference), then the sample, then a reference again.
    const std::string xml = Doc("<l:sample" + s.second + "/>" + Sample(SampleFields(), s.first) + "<l:sample" +
                                s.second + "> <!-- empty --> </l:sample>");
    Read r = ReadDoc(xml);
    INFO(r.result.message);
    REQUIRE(r.result.ok());
    CHECK(r.set.graph);
    REQUIRE(r.set.samples.size() == 3);
    CHECK(r.set.samples[0] == r.set.samples[1]);
    CHECK(r.set.samples[2] == r.set.samples[1]);
    CHECK(r.set.samples[1]->firstname == "Anna");
    CHECK(r.set.owned() == 1);
  }
}

TEST_CASE("The sample reader keeps a cycle where a child refers to its ancestor", "[wsdl][sample_reader]") {
  Fields f = SampleFields();
  f.back().second = "<l:sample href='#root'/>";
  Read r = ReadDoc(Doc(Sample(f, " id='root'")));
  INFO(r.result.message);
  REQUIRE(r.result.ok());
  CHECK(r.set.graph);
  REQUIRE(r.set.samples.size() == 1);
  const DataSample* root = r.set.samples[0];
  REQUIRE(root->children.size() == 1);
  CHECK(root->children[0] == root);
}

TEST_CASE("The sample reader refuses a bad id or reference", "[wsdl][sample_reader]") {
  CHECK_PROBLEM(ReadDoc(Doc("<l:sample href='#x'/>")), SampleReadProblem::kSchema, "href '#x' names no sample");
  CHECK_PROBLEM(ReadDoc(Doc(Sample(SampleFields(), " id='a'") + Sample(SampleFields(), " id='a'"))),
                SampleReadProblem::kSchema, "duplicate");
  CHECK_PROBLEM(ReadDoc(Doc(Sample(SampleFields(), " id='a'") + Sample(SampleFields(), " href='#a'"))),
                SampleReadProblem::kSchema, "must be empty");
  CHECK_PROBLEM(ReadDoc(Doc(Sample(SampleFields(), " id='a'") + "<l:sample href='#a'>x</l:sample>")),
                SampleReadProblem::kSchema, "text");
  CHECK_PROBLEM(ReadDoc(Doc(Sample(SampleFields(), " href='a'"))), SampleReadProblem::kSchema, "#id");
  std::string on_field = SampleWith("firstname", "A");
  on_field.replace(on_field.find("<l:city>"), 8, "<l:city id='c'>");
  CHECK_PROBLEM(ReadDoc(Doc(on_field)), SampleReadProblem::kSchema, "only 'sample'");
  CHECK_PROBLEM(ReadDoc("<l:EchoDataSamples xmlns:l='urn:lather:v1'><l:samples ref='x'/></l:EchoDataSamples>"),
                SampleReadProblem::kSchema, "only 'sample'");
  Read foreign = ReadDoc(Doc(Sample(SampleFields(), " xmlns:f='urn:f' f:id='a' f:href='#b'")));
  INFO(foreign.result.message);
  CHECK(foreign.result.ok());
  CHECK_FALSE(foreign.set.graph);
}

TEST_CASE("The sample reader stops just past the wrapper and never reads what follows", "[wsdl][sample_reader]") {
  const std::string prefix = "<Envelope><Body>\n  ";
  const std::string body = Doc(Sample());
  const std::string xml = prefix + body + "</Body>\x01\xFF</Envelope>";
  SampleSet set;
  const SampleReadResult r = ReadSampleWrapper(xml, prefix.size() - 3, "EchoDataSamples", {}, SampleReadLimits(), &set);
  INFO(r.message);
  REQUIRE(r.ok());
  CHECK(r.end == prefix.size() + body.size());
  const std::string spaced = "<l:EchoDataSamples xmlns:l='urn:lather:v1'><l:samples/></l:EchoDataSamples  >rest";
  SampleReadResult s = ReadSampleWrapper(spaced, 0, "EchoDataSamples", {}, SampleReadLimits(), &set);
  REQUIRE(s.ok());
  CHECK(spaced.substr(s.end) == "rest");
}

TEST_CASE("The sample reader starts from empty samples when it reuses a set", "[wsdl][sample_reader]") {
  std::string many;
  for (int i = 0; i < 300; ++i) many += Sample();
  SampleSet set;
  for (int round = 0; round < 2; ++round) {
    const SampleReadResult r = ReadSampleWrapper(Doc(many), 0, "EchoDataSamples", {}, SampleReadLimits(), &set);
    REQUIRE(r.ok());
    REQUIRE(set.samples.size() == 300);
    CHECK(set.samples[0]->contact_nos.size() == 2);
    CHECK(set.samples[299]->companies_worked_for.size() == 2);
  }
}

TEST_CASE("ClassifyNamespace knows the four namespaces the reader cares about", "[wsdl][sample_reader]") {
  CHECK(lather::ClassifyNamespace("urn:lather:v1") == XmlNamespace::kLather);
  CHECK(lather::ClassifyNamespace("http://schemas.xmlsoap.org/soap/encoding/") == XmlNamespace::kSoapEncoding);
  CHECK(lather::ClassifyNamespace("http://www.w3.org/2003/05/soap-encoding") == XmlNamespace::kSoapEncoding);
  CHECK(lather::ClassifyNamespace("http://www.w3.org/2001/XMLSchema-instance") == XmlNamespace::kXsi);
  CHECK(lather::ClassifyNamespace("urn:lather:v2") == XmlNamespace::kOther);
  CHECK(lather::ClassifyNamespace("") == XmlNamespace::kOther);
}

TEST_CASE("ParseXsdDouble rounds short decimals exactly as from_chars does", "[wsdl][sample_reader]") {
  uint64_t state = 12345;
  for (int i = 0; i < 200000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const int digits = 1 + static_cast<int>((state >> 33) % 15);
    const int fraction = static_cast<int>((state >> 40) % static_cast<uint64_t>(digits + 1));
    std::string text = std::to_string((state >> 11) % 1000000000000000ull);
    text = text.substr(0, static_cast<size_t>(digits));
    if (fraction > 0 && fraction < static_cast<int>(text.size())) text.insert(text.size() - static_cast<size_t>(fraction), ".");
    if ((state & 1) != 0) text = "-" + text;
    double fast = 0, exact = 0;
    REQUIRE(lather::ParseXsdDouble(text, &fast));
    std::from_chars(text.data(), text.data() + text.size(), exact);
    INFO(text);
    REQUIRE(std::memcmp(&fast, &exact, sizeof fast) == 0);
  }
}

TEST_CASE("Samples written by the sample writer read back the same, graphs included, in both SOAP spellings",
          "[wsdl][sample_reader][round_trip]") {
  const std::vector<NamespaceBinding> scope = {{"l", XmlNamespace::kLather}, {"SOAP-ENC", XmlNamespace::kSoapEncoding}};
  for (const int version : {1, 2}) {
    for (const auto& shape : {lather::SampleShape{300, 2, 7, 0, 0}, lather::SampleShape{60, 2, 9, 5, 3}}) {
      const SampleSet written = lather::GenerateSamples(shape);
      lather::SampleWriteForm form;
      form.soap_version = version;
      std::string xml = "<Body>";
      lather::WriteSampleWrapper(written, "EchoDataSamplesResponse", form, &xml);
      const size_t end = xml.size();
      xml += "</Body>";
      SampleSet read;
      const SampleReadResult r = ReadSampleWrapper(xml, 6, "EchoDataSamplesResponse", scope, SampleReadLimits(), &read);
      INFO("SOAP 1." << version - 1 << ", shared " << shape.shared << ": " << r.message);
      REQUIRE(r.ok());
      CHECK(r.end == end);
      CHECK(read.graph == written.graph);
      CHECK(lather::FirstDifference(written, read).empty());
      CHECK(read.owned() == written.owned());
    }
  }
  // Strings that need escaping and odd doubles survive too.
  SampleSet odd;
  DataSample* s = odd.Add();
  odd.samples.push_back(s);
  s->firstname = " <a> & \"b\" 'c'\r\n\t ";
  s->lastname = "\xF0\x9F\x98\x80]]>";
  s->salary = -0.0;
  s->date_of_birth = "1900-01-01T00:00:00Z";
  s->contact_nos = {"", "x\r"};
  std::string xml;
  lather::WriteSampleWrapper(odd, "EchoDataSamples", lather::SampleWriteForm(), &xml);
  SampleSet read;
  const SampleReadResult r = ReadSampleWrapper(xml, 0, "EchoDataSamples", scope, SampleReadLimits(), &read);
  INFO(r.message);
  REQUIRE(r.ok());
  CHECK(lather::FirstDifference(odd, read).empty());
  CHECK(std::signbit(read.samples.at(0)->salary));
}
