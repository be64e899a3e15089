#include "client/wsdl/schema_validator.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "client/wsdl/schema_set.h"
#include "client/wsdl/wsdl_model.h"
#include "tests/unit/client/wsdl/wsdl_test_files.h"

using lather::Status;
using lather::wsdl::SchemaDocument;
using lather::wsdl::SchemaValidator;
using lather::wsdl::WsdlModel;
using lather::wsdl::testing::LatherWsdlPath;
using lather::wsdl::testing::LoadOk;
using lather::wsdl::testing::TempFolder;
using lather::wsdl::testing::WsdlText;
using lather::wsdl::testing::XsdText;

namespace {

const char kSchema[] = R"(
      <xsd:import namespace="urn:other" schemaLocation="other.xsd"/>
      <xsd:element name="Lookup"><xsd:complexType><xsd:sequence>
        <xsd:element name="id" type="xsd:int"/>
      </xsd:sequence></xsd:complexType></xsd:element>
      <xsd:element name="LookupResponse"><xsd:complexType><xsd:sequence>
        <xsd:element name="count" type="xsd:int"/>
        <xsd:element ref="o:Note"/>
      </xsd:sequence></xsd:complexType></xsd:element>)";

const char kOther[] =
    "<xsd:element name=\"Note\"><xsd:complexType><xsd:sequence>\n"
    "  <xsd:element name=\"text\" type=\"xsd:string\"/>\n"
    "</xsd:sequence><xsd:attribute name=\"lang\" type=\"xsd:language\"/></xsd:complexType></xsd:element>";

// A WSDL whose inline schema (urn:t) imports urn:other from other.xsd beside it.
struct LookupService {
  TempFolder folder;
  std::unique_ptr<WsdlModel> model;

  LookupService() {
    folder.Write("other.xsd", XsdText("targetNamespace=\"urn:other\"", kOther));
    WsdlText w;
    w.schema = kSchema;
    w.extra_namespaces = "xmlns:o=\"urn:other\"";  // declared on wsdl:definitions, used inside the schema
    w.operations = {{"Lookup", "", "LookupResponse"}};
    model = LoadOk(folder.Write("lookup.wsdl", w.ToString()));
  }
};

std::string Answer(const std::string& count, const std::string& note) {
  return "<?xml version=\"1.0\"?>\n<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">"
         "<soap:Header/><soap:Body>\n<t:LookupResponse xmlns:t=\"urn:t\" xmlns:o=\"urn:other\">\n<t:count>" +
         count + "</t:count>\n" + note + "\n</t:LookupResponse></soap:Body></soap:Envelope>";
}

std::unique_ptr<SchemaValidator> Compiled(const std::vector<SchemaDocument>& documents) {
  std::unique_ptr<SchemaValidator> validator;
  const Status s = SchemaValidator::Create(documents, &validator);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(validator != nullptr);
  return validator;
}

Status Validate(const SchemaValidator& v, const std::string& envelope) {
  return v.Validate(envelope.data(), envelope.size());
}

}  // namespace

TEST_CASE("SchemaDocuments hands out the inline schema with its namespaces, and the imported file",
          "[wsdl][validator]") {
  LookupService svc;
  const std::vector<SchemaDocument> documents = svc.model->schemas().SchemaDocuments();
  REQUIRE(documents.size() == 2);
  CHECK(documents[0].url == svc.folder.path() + "/lookup.wsdl#schema1");
  CHECK(documents[0].target_ns == "urn:t");
  CHECK_THAT(documents[0].text, Catch::Contains("xmlns:o=\"urn:other\""));
  CHECK_THAT(documents[0].text, Catch::Contains("xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\""));
  CHECK_THAT(documents[0].text, Catch::Contains("name=\"LookupResponse\""));
  CHECK(documents[1].url == "file://" + svc.folder.path() + "/other.xsd");
  CHECK(documents[1].target_ns == "urn:other");
  CHECK_THAT(documents[1].text, Catch::Contains("name=\"Note\""));
}

TEST_CASE("a valid answer validates against an inline schema importing a second file", "[wsdl][validator]") {
  LookupService svc;
  const std::unique_ptr<SchemaValidator> v = Compiled(svc.model->schemas().SchemaDocuments());
  const Status s = Validate(*v, Answer("3", "<o:Note lang=\"en\"><text>hi</text></o:Note>"));
  INFO(s.ToString());
  CHECK(s.ok());
}

TEST_CASE(
    "an answer with text in an int field, or missing an element, fails validation with libxml2's message",
    "[wsdl][validator]") {
  LookupService svc;
  const std::unique_ptr<SchemaValidator> v = Compiled(svc.model->schemas().SchemaDocuments());
  Status s = Validate(*v, Answer("abc", "<o:Note><text>hi</text></o:Note>"));
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("count"));
  CHECK_THAT(s.message(), Catch::Contains("'abc'"));
  CHECK_THAT(s.message(), Catch::StartsWith("line 4: "));

  s = Validate(*v, Answer("3", ""));
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("Note"));

  s = Validate(*v,
               Answer("3", "<o:Note><o:text>qualified, but urn:other's locals are not</o:text></o:Note>"));
  CHECK(s.kind() == Status::Kind::kInvalidArgument);

  s = Validate(*v, Answer("3", "<o:Note lang=\"not a language\"><text>hi</text></o:Note>"));
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("lang"));
}

TEST_CASE("a validator refuses what is not XML and an envelope without a Body", "[wsdl][validator]") {
  LookupService svc;
  const std::unique_ptr<SchemaValidator> v = Compiled(svc.model->schemas().SchemaDocuments());
  CHECK(Validate(*v, "<soap:Envelope").kind() == Status::Kind::kInvalidArgument);
  const Status s = Validate(*v, "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"/>");
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("no SOAP Body"));
}

TEST_CASE("Lather's schema validates Lather's answers, in SOAP 1.1 and 1.2", "[wsdl][validator]") {
  const std::unique_ptr<WsdlModel> model = LoadOk(LatherWsdlPath());
  const std::unique_ptr<SchemaValidator> v = Compiled(model->schemas().SchemaDocuments());
  CHECK(
      Validate(*v,
               "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>"
               "<l:IncrementResponse xmlns:l=\"urn:lather:v1\"><l:result>43</l:result></l:IncrementResponse>"
               "</soap:Body></soap:Envelope>")
          .ok());
  CHECK(Validate(*v,
                 "<env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Body>"
                 "<l:IncCounterResponse xmlns:l=\"urn:lather:v1\"><l:result>9000000000</l:result>"
                 "</l:IncCounterResponse></env:Body></env:Envelope>")
            .ok());
  const Status s =
      Validate(*v,
               "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>"
               "<l:IncrementResponse xmlns:l=\"urn:lather:v1\"><l:result>9000000000</l:result>"
               "</l:IncrementResponse></soap:Body></soap:Envelope>");
  CHECK(s.kind() == Status::Kind::kInvalidArgument);  // beyond xsd:int
}

TEST_CASE("schemas libxml2 cannot compile are refused with its message", "[wsdl][validator]") {
  std::vector<SchemaDocument> documents = {
      {"file:///nowhere/bad.xsd", "urn:bad",
       "<xsd:schema xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" targetNamespace=\"urn:bad\">"
       "<xsd:element name=\"X\" type=\"xsd:nosuchtype\"/></xsd:schema>"}};
  std::unique_ptr<SchemaValidator> validator;
  const Status s = SchemaValidator::Create(documents, &validator);
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("libxml2 cannot compile"));
  CHECK(validator == nullptr);
}
