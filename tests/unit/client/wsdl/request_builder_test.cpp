#include "client/wsdl/request_builder.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "client/wsdl/wsdl_model.h"
#include "tests/unit/client/wsdl/wsdl_test_files.h"

using lather::Status;
using lather::wsdl::AppendXmlEscaped;
using lather::wsdl::Operation;
using lather::wsdl::Port;
using lather::wsdl::RequestBuilder;
using lather::wsdl::WithPlaceholdersAsNumbers;
using lather::wsdl::WsdlModel;
using lather::wsdl::testing::LatherWsdlPath;
using lather::wsdl::testing::LoadOk;
using lather::wsdl::testing::OperationOf;
using lather::wsdl::testing::TempFolder;
using lather::wsdl::testing::WsdlText;
using lather::wsdl::testing::XsdText;

namespace {

constexpr char kEnvelopeStart[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<soap:Envelope "
    "xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"";

const char kOrderSchema[] = R"(
      <xsd:import namespace="urn:other" schemaLocation="other.xsd"/>
      <xsd:simpleType name="Status">
        <xsd:restriction base="xsd:string"><xsd:enumeration value="NEW"/><xsd:enumeration value="PAID"/></xsd:restriction>
      </xsd:simpleType>
      <xsd:complexType name="Item"><xsd:sequence>
        <xsd:element name="sku" type="xsd:string"/>
        <xsd:element name="qty" type="xsd:int"/>
      </xsd:sequence></xsd:complexType>
      <xsd:complexType name="Money"><xsd:simpleContent><xsd:extension base="xsd:decimal">
        <xsd:attribute name="currency" type="xsd:string" use="required"/>
      </xsd:extension></xsd:simpleContent></xsd:complexType>
      <xsd:complexType name="StringList"><xsd:sequence>
        <xsd:element name="item" type="xsd:string" minOccurs="0" maxOccurs="unbounded"/>
      </xsd:sequence></xsd:complexType>
      <xsd:element name="PlaceOrder"><xsd:complexType><xsd:sequence>
        <xsd:element name="order"><xsd:complexType><xsd:sequence>
          <xsd:element name="customer"><xsd:complexType><xsd:sequence>
            <xsd:element name="name" type="xsd:string"/>
            <xsd:element name="address"><xsd:complexType><xsd:sequence>
              <xsd:element name="street" type="xsd:string" minOccurs="0"/>
              <xsd:element name="city" type="xsd:string"/>
            </xsd:sequence></xsd:complexType></xsd:element>
          </xsd:sequence></xsd:complexType></xsd:element>
          <xsd:element name="items" type="tns:Item" maxOccurs="3"/>
          <xsd:element name="total" type="tns:Money"/>
          <xsd:element name="status" type="tns:Status"/>
          <xsd:element name="contactNos" type="tns:StringList" minOccurs="0"/>
          <xsd:element name="note" type="xsd:string" minOccurs="0" nillable="true"/>
          <xsd:element name="count" type="xsd:int" minOccurs="0"/>
          <xsd:element name="express" type="xsd:boolean" minOccurs="0"/>
        </xsd:sequence></xsd:complexType></xsd:element>
      </xsd:sequence></xsd:complexType></xsd:element>

      <xsd:element name="Annotate"><xsd:complexType><xsd:sequence>
        <xsd:element ref="o:Stamp"/>
        <xsd:element name="subject" type="xsd:string"/>
        <xsd:element ref="o:Note"/>
      </xsd:sequence></xsd:complexType></xsd:element>

      <xsd:element name="Tag"><xsd:complexType>
        <xsd:sequence><xsd:element name="label" type="xsd:string"/></xsd:sequence>
        <xsd:attribute name="owner" type="xsd:string" use="required"/>
        <xsd:attribute name="kind" type="xsd:string" fixed="v1"/>
        <xsd:attribute name="comment" type="xsd:string"/>
      </xsd:complexType></xsd:element>

      <xsd:element name="Pay"><xsd:complexType><xsd:choice>
        <xsd:element name="card" type="xsd:string"/>
        <xsd:element name="iban" type="xsd:string"/>
      </xsd:choice></xsd:complexType></xsd:element>

      <xsd:element name="Register"><xsd:complexType><xsd:sequence>
        <xsd:element name="code"><xsd:simpleType><xsd:restriction base="xsd:string">
          <xsd:pattern value="\d{3}-[A-Z]{2}"/></xsd:restriction></xsd:simpleType></xsd:element>
      </xsd:sequence></xsd:complexType></xsd:element>)";

// A WSDL with PlaceOrder, Annotate, Tag, Pay and Register (urn:t, qualified) and other.xsd (urn:other).
struct OrderService {
  TempFolder folder;
  std::unique_ptr<WsdlModel> model;

  OrderService() {
    folder.Write("other.xsd", XsdText("targetNamespace=\"urn:other\" elementFormDefault=\"qualified\"",
                                      "<xsd:element name=\"Stamp\" type=\"xsd:dateTime\"/>\n"
                                      "<xsd:element name=\"Note\" type=\"xsd:string\"/>"));
    WsdlText w;
    w.schema = kOrderSchema;
    w.extra_namespaces = "xmlns:o=\"urn:other\"";
    w.operations = {
        {"PlaceOrder", "", ""}, {"Annotate", "", ""}, {"Tag", "", ""}, {"Pay", "", ""}, {"Register", "", ""}};
    model = LoadOk(folder.Write("orders.wsdl", w.ToString()));
  }
  const Operation& Op(const std::string& name) const { return OperationOf(*model, name); }
};

// The envelope of `builder`, which must build; *filled gets the sampled fields.
std::string Built(const RequestBuilder& builder, std::vector<std::string>* filled = nullptr) {
  std::string envelope;
  std::vector<std::string> ignored;
  const Status s = builder.Build(&envelope, filled != nullptr ? filled : &ignored);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return envelope;
}

// The text between <soap:Body> and </soap:Body>.
std::string BodyOf(const std::string& envelope) {
  const size_t start = envelope.find("<soap:Body>");
  const size_t end = envelope.rfind("</soap:Body>");
  REQUIRE(start != std::string::npos);
  REQUIRE(end != std::string::npos);
  return envelope.substr(start + 11, end - start - 11);
}

std::string Refused(const Status& s) {
  INFO(s.ToString());
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  return s.message();
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("Increment's envelope is exactly the one Lather's clients send", "[wsdl][builder]") {
  const std::unique_ptr<WsdlModel> model = LoadOk(LatherWsdlPath());
  RequestBuilder builder(*model->ports()[0].Find("Increment"), 1);
  REQUIRE(builder.Set("value", "5").ok());
  std::vector<std::string> filled;
  CHECK(
      Built(builder, &filled) ==
      std::string(kEnvelopeStart) +
          " xmlns:l=\"urn:lather:v1\"><soap:Body><l:Increment><l:value>5</l:value></l:Increment></soap:Body>"
          "</soap:Envelope>");
  CHECK(filled.empty());

  RequestBuilder soap12(*model->ports()[1].Find("Increment"), 2);
  CHECK(Built(soap12) ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<soap:Envelope "
        "xmlns:soap=\"http://www.w3.org/2003/05/soap-envelope\""
        " xmlns:l=\"urn:lather:v1\"><soap:Body><l:Increment><l:value>0</l:value></l:Increment></soap:Body>"
        "</soap:Envelope>");
}

TEST_CASE("an operation without fields writes an empty element", "[wsdl][builder]") {
  const std::unique_ptr<WsdlModel> model = LoadOk(LatherWsdlPath());
  RequestBuilder builder(*model->ports()[0].Find("HelloWorld"), 1);
  CHECK(BodyOf(Built(builder)) == "<l:HelloWorld/>");
  const Status s = builder.Set("name", "x");
  CHECK_THAT(Refused(s), Catch::Contains("no field 'name' (fields of HelloWorld: none)"));
}

TEST_CASE("unqualified local elements are written without a prefix", "[wsdl][builder]") {
  TempFolder folder;
  WsdlText w;
  w.schema_attributes = "";  // elementFormDefault unqualified
  w.schema =
      "<xsd:element name=\"Add\"><xsd:complexType><xsd:sequence><xsd:element name=\"a\" type=\"xsd:int\"/>"
      "<xsd:element name=\"b\" type=\"xsd:int\"/></xsd:sequence></xsd:complexType></xsd:element>";
  w.operations = {{"Add", "", ""}};
  const std::unique_ptr<WsdlModel> model = LoadOk(folder.Write("add.wsdl", w.ToString()));
  RequestBuilder builder(OperationOf(*model, "Add"), 1);
  REQUIRE(builder.Set("a", "1").ok());
  REQUIRE(builder.Set("b", "-2").ok());
  CHECK(Built(builder) ==
        std::string(kEnvelopeStart) +
            " xmlns:l=\"urn:t\"><soap:Body><l:Add><a>1</a><b>-2</b></l:Add></soap:Body></soap:Envelope>");
}

TEST_CASE("Set reaches a nested field and Build fills the other required fields with samples, naming them",
          "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("PlaceOrder"), 1);
  REQUIRE(builder.Set("order.customer.address.city", "Bern").ok());
  std::vector<std::string> filled;
  const std::string envelope = Built(builder, &filled);
  CHECK(
      BodyOf(envelope) ==
      "<l:PlaceOrder><l:order><l:customer><l:name>sample</l:name><l:address><l:city>Bern</l:city></l:address>"
      "</l:customer><l:items><l:sku>sample</l:sku><l:qty>0</l:qty></l:items><l:total "
      "currency=\"sample\">0</l:total>"
      "<l:status>NEW</l:status></l:order></l:PlaceOrder>");
  CHECK(filled == (std::vector<std::string>{"order.customer.name=sample", "order.items[0].sku=sample",
                                            "order.items[0].qty=0", "order.total.@currency=sample",
                                            "order.total=0", "order.status=NEW"}));
}

TEST_CASE("an index past the first gives the earlier occurrences sample values", "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("PlaceOrder"), 1);
  REQUIRE(builder.Set("order.items[1].sku", "B-2").ok());
  REQUIRE(builder.Set("order.items[1].qty", "4").ok());
  std::vector<std::string> filled;
  const std::string body = BodyOf(Built(builder, &filled));
  CHECK_THAT(body, Catch::Contains("<l:items><l:sku>sample</l:sku><l:qty>0</l:qty></l:items>"
                                   "<l:items><l:sku>B-2</l:sku><l:qty>4</l:qty></l:items><l:total"));
  CHECK(std::find(filled.begin(), filled.end(), "order.items[0].sku=sample") != filled.end());
  CHECK(std::find(filled.begin(), filled.end(), "order.items[0].qty=0") != filled.end());
  CHECK(std::find(filled.begin(), filled.end(), "order.items[1].qty=0") == filled.end());
}

TEST_CASE("an attribute is set with @name, beside the element's own value", "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("PlaceOrder"), 1);
  REQUIRE(builder.Set("order.total.@currency", "EUR").ok());
  REQUIRE(builder.Set("order.total", "12.50").ok());
  std::vector<std::string> filled;
  CHECK_THAT(BodyOf(Built(builder, &filled)), Catch::Contains("<l:total currency=\"EUR\">12.50</l:total>"));
  for (const std::string& f : filled) CHECK_THAT(f, !Catch::StartsWith("order.total"));
  CHECK_THAT(Refused(builder.Set("order.total.@nope", "x")),
             Catch::Contains("order.total.@nope: no attribute 'nope' (fields of order.total: @currency)"));
  CHECK_THAT(Refused(builder.Set("order.total", "twelve")),
             Catch::Contains("'twelve' is not an xsd:decimal"));
}

TEST_CASE("a required attribute of the operation's element is sampled and a fixed one written",
          "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("Tag"), 1);
  std::vector<std::string> filled;
  CHECK(BodyOf(Built(builder, &filled)) ==
        "<l:Tag owner=\"sample\" kind=\"v1\"><l:label>sample</l:label></l:Tag>");
  CHECK(filled == (std::vector<std::string>{"@owner=sample", "label=sample"}));
  REQUIRE(builder.Set("@owner", "me").ok());
  REQUIRE(builder.Set("@comment", "a \"quoted\" <note> & more").ok());
  CHECK(BodyOf(Built(builder)) ==
        "<l:Tag owner=\"me\" kind=\"v1\" comment=\"a &quot;quoted&quot; &lt;note&gt; &amp; more\">"
        "<l:label>sample</l:label></l:Tag>");
}

TEST_CASE("a wrapper type's items are reached with name[i]", "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("PlaceOrder"), 1);
  REQUIRE(builder.Set("order.contactNos[1]", "+41 44").ok());
  std::vector<std::string> filled;
  CHECK_THAT(BodyOf(Built(builder, &filled)),
             Catch::Contains("<l:contactNos><l:item>sample</l:item><l:item>+41 44</l:item></l:contactNos>"));
  CHECK(std::find(filled.begin(), filled.end(), "order.contactNos.item[0]=sample") != filled.end());

  RequestBuilder explicit_path(svc.Op("PlaceOrder"), 1);
  REQUIRE(explicit_path.Set("order.contactNos.item[0]", "1").ok());
  REQUIRE(explicit_path.Set("order.contactNos.item[1]", "2").ok());
  CHECK_THAT(BodyOf(Built(explicit_path)),
             Catch::Contains("<l:contactNos><l:item>1</l:item><l:item>2</l:item></l:contactNos>"));
}

TEST_CASE("an unknown field is refused, listing the fields where it was looked for", "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("PlaceOrder"), 1);
  CHECK(Refused(builder.Set("order.colour", "red")) ==
        "order.colour: no field 'colour' (fields of order: customer, items, total, status, contactNos, note, "
        "count, "
        "express)");
  CHECK(Refused(builder.Set("colour", "red")) == "colour: no field 'colour' (fields of PlaceOrder: order)");
  CHECK_THAT(Refused(builder.Set("order.customer.address.zip", "3000")),
             Catch::Contains("(fields of order.customer.address: street, city)"));
  CHECK_THAT(Refused(builder.Set("order.customer.name.first", "A")), Catch::Contains("is a simple value"));
  CHECK_THAT(Refused(builder.Set("order..city", "A")), Catch::Contains("an empty field name"));
  CHECK_THAT(Refused(builder.Set("order.items[x].sku", "A")),
             Catch::Contains("the index 'x' is not a number"));
  CHECK_THAT(Refused(builder.Set("order.items[1.sku", "A")), Catch::Contains("write an index as name[N]"));
}

TEST_CASE("an index beyond maxOccurs is refused, and so is an index on a single element", "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("PlaceOrder"), 1);
  CHECK(builder.Set("order.items[2].sku", "C").ok());
  CHECK(Refused(builder.Set("order.items[3].sku", "D")) == "order.items[3]: items occurs at most 3 times");
  CHECK(Refused(builder.Set("order.customer.name[1]", "D")) ==
        "order.customer.name[1]: name is not repeated (maxOccurs 1)");
}

TEST_CASE("a structure given a value is refused with an example of its fields", "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("PlaceOrder"), 1);
  CHECK(Refused(builder.Set("order.customer", "Ann")) ==
        "order.customer: a structure (name, address); set its fields, e.g. order.customer.name=...");
}

TEST_CASE("a value outside its type is refused with the field's path and type", "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("PlaceOrder"), 1);
  CHECK(Refused(builder.Set("order.status", "BLUE")) ==
        "order.status: 'BLUE' is not one of NEW, PAID (Status(NEW|PAID))");
  CHECK_THAT(Refused(builder.Set("order.count", "many")),
             Catch::StartsWith("order.count: 'many' is not an xsd:int"));
  CHECK_THAT(Refused(builder.Set("order.express", "yes")), Catch::Contains("is not an xsd:boolean"));
  CHECK(builder.Set("order.status", "PAID").ok());
}

TEST_CASE("nil is written as xsi:nil for a nillable field and refused for the others", "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("PlaceOrder"), 1);
  CHECK(Refused(builder.SetNil("order.status")) == "order.status: not nillable, it cannot be null");
  CHECK_THAT(Refused(builder.SetNil("order.total.@currency")), Catch::Contains("an attribute cannot be nil"));
  REQUIRE(builder.SetNil("order.note").ok());
  const std::string envelope = Built(builder);
  CHECK_THAT(envelope, Catch::Contains("<l:note xsi:nil=\"true\"/>"));
  CHECK_THAT(envelope, Catch::StartsWith(
                           std::string(kEnvelopeStart) +
                           " xmlns:l=\"urn:t\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">"));
}

TEST_CASE("SetJson sets nested objects, arrays (also of a wrapper type), numbers, booleans and null",
          "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("PlaceOrder"), 1);
  const Status s = builder.SetJson(R"({"order": {
      "customer": {"name": "Ann", "address": {"city": "Bern"}},
      "items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}],
      "total": "9.90", "status": "PAID", "contactNos": ["1", "2"],
      "note": null, "count": 3, "express": true}})");
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(builder.Set("order.total.@currency", "CHF").ok());
  std::vector<std::string> filled;
  CHECK(BodyOf(Built(builder, &filled)) ==
        "<l:PlaceOrder><l:order><l:customer><l:name>Ann</l:name><l:address><l:city>Bern</l:city></l:address>"
        "</l:customer><l:items><l:sku>A</l:sku><l:qty>1</l:qty></l:items><l:items><l:sku>B</l:sku><l:qty>2</"
        "l:qty>"
        "</l:items><l:total "
        "currency=\"CHF\">9.90</l:total><l:status>PAID</l:status><l:contactNos><l:item>1</l:item>"
        "<l:item>2</l:item></l:contactNos><l:note "
        "xsi:nil=\"true\"/><l:count>3</l:count><l:express>true</l:express>"
        "</l:order></l:PlaceOrder>");
  CHECK(filled.empty());
}

TEST_CASE("SetJson refuses text that is not a JSON object, and a field the schema refuses",
          "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("PlaceOrder"), 1);
  CHECK_THAT(Refused(builder.SetJson("{not json")), Catch::Contains("not JSON"));
  CHECK_THAT(Refused(builder.SetJson("[1, 2]")), Catch::Contains("must be an object"));
  CHECK_THAT(Refused(builder.SetJson(R"({"order": {"colour": "red"}})")),
             Catch::Contains("no field 'colour'"));
  CHECK_THAT(Refused(builder.SetJson(R"({"order": {"count": "x"}})")),
             Catch::Contains("order.count: 'x' is not an xsd:int"));
  CHECK_THAT(Refused(builder.SetJson(R"({"order": {"items": [{}, {}, {}, {"sku": "D"}]}})")),
             Catch::Contains("occurs at most 3 times"));
}

TEST_CASE("namespaces are declared once on the Envelope, prefixed l, l2 in the order of first use",
          "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("Annotate"), 1);
  REQUIRE(builder.Set("Stamp", "2024-01-02T03:04:05Z").ok());
  REQUIRE(builder.Set("subject", "s").ok());
  REQUIRE(builder.Set("Note", "n").ok());
  const std::string envelope = Built(builder);
  CHECK(envelope ==
        std::string(kEnvelopeStart) +
            " xmlns:l=\"urn:t\" xmlns:l2=\"urn:other\"><soap:Body><l:Annotate>"
            "<l2:Stamp>2024-01-02T03:04:05Z</l2:Stamp><l:subject>s</l:subject><l2:Note>n</l2:Note>"
            "</l:Annotate></soap:Body></soap:Envelope>");
  CHECK(Count(envelope, "xmlns") == 3);
  CHECK_THAT(Refused(builder.Set("Stamp", "yesterday")), Catch::Contains("is not an xsd:dateTime"));
}

TEST_CASE("text and attribute values are escaped", "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("PlaceOrder"), 1);
  REQUIRE(builder.Set("order.customer.name", "a<b & \"c\" > d").ok());
  REQUIRE(builder.Set("order.total.@currency", "<&\">").ok());
  const std::string body = BodyOf(Built(builder));
  CHECK_THAT(body, Catch::Contains("<l:name>a&lt;b &amp; &quot;c&quot; &gt; d</l:name>"));
  CHECK_THAT(body, Catch::Contains("currency=\"&lt;&amp;&quot;&gt;\""));
  std::string out = "x";
  AppendXmlEscaped("1\r2'", &out);
  CHECK(out == "x1&#13;2'");
}

TEST_CASE("values with the harness's placeholders are checked with a number in their place",
          "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("PlaceOrder"), 1);
  CHECK(builder.Set("order.count", "${n}").ok());
  CHECK(builder.Set("order.items[0].qty", "random(1..50)").ok());
  CHECK(builder.Set("order.customer.name", "user-${n}").ok());
  CHECK_THAT(Refused(builder.Set("order.count", "${n}x")), Catch::Contains("'1x' is not an xsd:int"));
  const std::string body = BodyOf(Built(builder));
  CHECK_THAT(body, Catch::Contains("<l:count>${n}</l:count>"));
  CHECK_THAT(body, Catch::Contains("<l:qty>random(1..50)</l:qty>"));
  CHECK_THAT(body, Catch::Contains("<l:name>user-${n}</l:name>"));
  CHECK(WithPlaceholdersAsNumbers("a${n}b random(5..9) random(-3..3) ${n}") == "a1b 5 -3 1");
  CHECK(WithPlaceholdersAsNumbers("plain") == "plain");
}

TEST_CASE("a choice is written with the alternative that was set, else its first", "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder first(svc.Op("Pay"), 1);
  std::vector<std::string> filled;
  CHECK(BodyOf(Built(first, &filled)) == "<l:Pay><l:card>sample</l:card></l:Pay>");
  CHECK(filled == (std::vector<std::string>{"card=sample"}));
  RequestBuilder second(svc.Op("Pay"), 1);
  REQUIRE(second.Set("iban", "CH93").ok());
  CHECK(BodyOf(Built(second)) == "<l:Pay><l:iban>CH93</l:iban></l:Pay>");
}

TEST_CASE("a required field whose pattern no sample fits must be set", "[wsdl][builder]") {
  OrderService svc;
  RequestBuilder builder(svc.Op("Register"), 1);
  std::string envelope;
  std::vector<std::string> filled;
  const Status s = builder.Build(&envelope, &filled);
  CHECK(Refused(s) == "code: no sample value fits xsd:string: set it");
  CHECK_THAT(Refused(builder.Set("code", "12-AB")), Catch::Contains("does not match the pattern"));
  REQUIRE(builder.Set("code", "123-AB").ok());
  CHECK(BodyOf(Built(builder)) == "<l:Register><l:code>123-AB</l:code></l:Register>");
}

TEST_CASE("Headers are SOAP 1.1's Content-Type and SOAPAction, or SOAP 1.2's action parameter",
          "[wsdl][builder]") {
  const std::unique_ptr<WsdlModel> model = LoadOk(LatherWsdlPath());
  RequestBuilder soap11(*model->ports()[0].Find("Increment"), 1);
  CHECK(soap11.Headers() == (std::vector<std::string>{"Content-Type: text/xml; charset=utf-8",
                                                      "SOAPAction: \"urn:lather:v1#Increment\""}));
  RequestBuilder soap12(*model->ports()[1].Find("Increment"), 2);
  CHECK(soap12.Headers() ==
        (std::vector<std::string>{
            "Content-Type: application/soap+xml; charset=utf-8; action=\"urn:lather:v1#Increment\""}));

  Operation no_action = *model->ports()[1].Find("HelloWorld");
  no_action.action.clear();
  CHECK(RequestBuilder(no_action, 2).Headers() ==
        (std::vector<std::string>{"Content-Type: application/soap+xml; charset=utf-8"}));
  CHECK(RequestBuilder(no_action, 1).Headers() ==
        (std::vector<std::string>{"Content-Type: text/xml; charset=utf-8", "SOAPAction: \"\""}));
}

TEST_CASE("minOccurs that multiply past 10,000 elements nobody set are refused, naming the field", "[wsdl][builder]") {
  // The fuzzer's find: a schema asking for millions of required elements made a sample request for minutes.
  TempFolder folder;
  WsdlText w;
  w.schema =
      "<xsd:complexType name=\"Row\"><xsd:sequence><xsd:element name=\"cell\" type=\"xsd:int\" minOccurs=\"200\" "
      "maxOccurs=\"unbounded\"/></xsd:sequence></xsd:complexType>"
      "<xsd:element name=\"Fill\"><xsd:complexType><xsd:sequence><xsd:element name=\"row\" type=\"tns:Row\" "
      "minOccurs=\"40\" maxOccurs=\"unbounded\"/></xsd:sequence></xsd:complexType></xsd:element>"
      "<xsd:element name=\"Many\"><xsd:complexType><xsd:sequence><xsd:element name=\"v\" type=\"xsd:int\" "
      "minOccurs=\"18446744073709551615\" maxOccurs=\"unbounded\"/></xsd:sequence></xsd:complexType></xsd:element>"
      "<xsd:element name=\"Few\"><xsd:complexType><xsd:sequence><xsd:element name=\"row\" type=\"tns:Row\" "
      "minOccurs=\"2\" maxOccurs=\"unbounded\"/></xsd:sequence></xsd:complexType></xsd:element>";
  w.operations = {{"Fill", "", ""}, {"Many", "", ""}, {"Few", "", ""}};
  const std::unique_ptr<WsdlModel> model = LoadOk(folder.Write("fill.wsdl", w.ToString()));
  std::string envelope;
  std::vector<std::string> filled;
  // 40 rows of 200 cells (8,040 elements) fit.
  RequestBuilder fill(OperationOf(*model, "Fill"), 1);
  REQUIRE(fill.Build(&envelope, &filled).ok());
  CHECK(Count(envelope, "<l:cell>") == 8000);
  RequestBuilder many(OperationOf(*model, "Many"), 1);
  CHECK_THAT(Refused(many.Build(&envelope, &filled)),
             Catch::Contains("v: minOccurs 18446744073709551615 would take the request past 10000 elements"));
  // Occurrences the caller reached are not counted: a row whose 20,000th cell is set has 20,000 cells.
  RequestBuilder few(OperationOf(*model, "Few"), 1);
  REQUIRE(few.Set("row[0].cell[19999]", "7").ok());
  REQUIRE(few.Build(&envelope, &filled).ok());
  CHECK(Count(envelope, "<l:cell>") == 20000);
}
