#include "wsdl/sample_writer.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

using lather::DataSample;
using lather::SampleSet;
using lather::SampleWriteForm;
using lather::WriteSampleWrapper;

namespace {

DataSample Small(const std::string& name) {
  DataSample s;
  s.firstname = name;
  s.zip = 4294967295u;
  s.experience = -2147483647 - 1;
  s.salary = 0.1;
  s.contact_nos = {"+1"};
  s.date_of_birth = "1969-07-20T20:17:40Z";
  s.is_married = true;
  return s;
}

std::string Write(const SampleSet& set, int soap_version = 1) {
  SampleWriteForm form;
  form.soap_version = soap_version;
  std::string out;
  WriteSampleWrapper(set, "EchoDataSamplesResponse", form, &out);
  return out;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a sample is written in the contract's element order with its values", "[samples][writer]") {
  SampleSet set;
  set.Append(Small("Zoë <&>\r"));
  const std::string xml = Write(set);
  CHECK(xml ==
        "<l:EchoDataSamplesResponse><l:samples><l:sample><l:firstname>Zoë &lt;&amp;&gt;&#xD;</l:firstname>"
        "<l:lastname></l:lastname><l:city></l:city><l:zip>4294967295</l:zip><l:email></l:email>"
        "<l:contactNos><l:item>+1</l:item></l:contactNos><l:designation></l:designation>"
        "<l:experience>-2147483648</l:experience><l:salary>0.1</l:salary><l:companiesWorkedFor></l:companiesWorkedFor>"
        "<l:dateOfBirth>1969-07-20T20:17:40Z</l:dateOfBirth><l:isMarried>true</l:isMarried><l:children></l:children>"
        "</l:sample></l:samples></l:EchoDataSamplesResponse>");
  CHECK(Write(SampleSet()) == "<l:EchoDataSamplesResponse><l:samples></l:samples></l:EchoDataSamplesResponse>");
}

TEST_CASE("doubles are written in their shortest round-trip form with XML Schema's special values",
          "[samples][writer]") {
  const std::pair<double, const char*> cases[] = {
      {0.1 + 0.2, "0.30000000000000004"}, {-0.0, "-0"}, {1e17, "1E+17"}, {1.5e-5, "1.5E-05"},
      {std::nan(""), "NaN"}, {HUGE_VAL, "INF"}, {-HUGE_VAL, "-INF"}, {123456.75, "123456.75"}};
  for (const auto& [value, text] : cases) {
    SampleSet set;
    DataSample s;
    s.salary = value;
    set.Append(s);
    CHECK(Write(set).find(std::string("<l:salary>") + text + "</l:salary>") != std::string::npos);
  }
}

TEST_CASE("a tree is written plain even when the set is marked a graph", "[samples][writer][graph]") {
  SampleSet set;
  DataSample parent = Small("p");
  parent.children = {set.Add(), set.Add()};
  set.Append(parent);
  set.graph = true;
  const std::string xml = Write(set);
  CHECK(xml.find("id=") == std::string::npos);
  CHECK(Count(xml, "<l:sample>") == 3);
}

TEST_CASE("a shared sample is written once with an id and referred to elsewhere, in each SOAP version's spelling",
          "[samples][writer][graph]") {
  SampleSet set;
  DataSample* shared = set.Add();
  *shared = Small("shared");
  DataSample holder = Small("holder");
  holder.children = {shared};
  set.samples.push_back(shared);
  set.Append(holder);
  set.samples.push_back(shared);
  set.graph = true;
  const std::string v11 = Write(set, 1);
  CHECK(Count(v11, "<l:firstname>shared</l:firstname>") == 1);
  CHECK(v11.find("<l:samples><l:sample id=\"_1\"><l:firstname>shared<") != std::string::npos);
  CHECK(Count(v11, "<l:sample href=\"#_1\"/>") == 2);
  const std::string v12 = Write(set, 2);
  CHECK(v12.find("<l:samples><l:sample SOAP-ENC:id=\"_1\"><l:firstname>shared<") != std::string::npos);
  CHECK(Count(v12, "<l:sample SOAP-ENC:ref=\"_1\"/>") == 2);
}

TEST_CASE("a cycle is written as a reference to the ancestor and the writer ends", "[samples][writer][graph]") {
  SampleSet set;
  DataSample* a = set.Add();
  DataSample* b = set.Add();
  *a = Small("a");
  *b = Small("b");
  a->children = {b};
  b->children = {a, b};  // back to the parent, and to itself
  set.samples = {a};
  set.graph = true;
  const std::string xml = Write(set);
  CHECK(Count(xml, "<l:firstname>") == 2);
  CHECK(xml.find("<l:sample id=\"_1\"><l:firstname>a<") != std::string::npos);
  CHECK(xml.find("<l:sample id=\"_2\"><l:firstname>b<") != std::string::npos);
  CHECK(xml.find("<l:children><l:sample href=\"#_1\"/><l:sample href=\"#_2\"/></l:children>") != std::string::npos);
}

TEST_CASE("a chain 200,000 samples deep is written without recursion", "[samples][writer]") {
  SampleSet set;
  DataSample* top = set.Add();
  DataSample* last = top;
  for (int i = 0; i < 200000; ++i) {
    DataSample* next = set.Add();
    last->children = {next};
    last = next;
  }
  set.samples = {top};
  const std::string xml = Write(set);
  CHECK(Count(xml, "<l:sample>") == 200001);
  CHECK(xml.size() > 200001 * 300);
}
