#include "client/wsdl/response_view.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "client/wsdl/wsdl_model.h"
#include "tests/unit/client/wsdl/wsdl_test_files.h"

using lather::Status;
using lather::wsdl::JsonQuoted;
using lather::wsdl::MessageShape;
using lather::wsdl::ResponseView;
using lather::wsdl::WsdlModel;
using lather::wsdl::testing::LatherWsdlPath;
using lather::wsdl::testing::LoadOk;
using lather::wsdl::testing::OperationOf;
using lather::wsdl::testing::TempFolder;
using lather::wsdl::testing::WsdlText;

namespace {

constexpr char kEnv11[] = "http://schemas.xmlsoap.org/soap/envelope/";

const char kOrderSchema[] = R"(
      <xsd:complexType name="Item"><xsd:sequence>
        <xsd:element name="sku" type="xsd:string"/>
        <xsd:element name="qty" type="xsd:int"/>
      </xsd:sequence></xsd:complexType>
      <xsd:complexType name="Money"><xsd:simpleContent><xsd:extension base="xsd:decimal">
        <xsd:attribute name="currency" type="xsd:string"/>
      </xsd:extension></xsd:simpleContent></xsd:complexType>
      <xsd:element name="GetOrder"><xsd:complexType><xsd:sequence>
        <xsd:element name="id" type="xsd:int"/>
      </xsd:sequence></xsd:complexType></xsd:element>
      <xsd:element name="GetOrderResponse"><xsd:complexType><xsd:sequence>
        <xsd:element name="order"><xsd:complexType><xsd:sequence>
          <xsd:element name="id" type="xsd:int"/>
          <xsd:element name="items" type="tns:Item" maxOccurs="unbounded"/>
          <xsd:element name="total" type="tns:Money"/>
          <xsd:element name="paid" type="xsd:boolean"/>
          <xsd:element name="tags" type="xsd:string" minOccurs="0" maxOccurs="unbounded"/>
          <xsd:element name="ratio" type="xsd:double"/>
          <xsd:element name="code" type="xsd:string"/>
          <xsd:element name="note" type="xsd:string" minOccurs="0" nillable="true"/>
        </xsd:sequence></xsd:complexType></xsd:element>
      </xsd:sequence></xsd:complexType></xsd:element>)";

struct OrderService {
  TempFolder folder;
  std::unique_ptr<WsdlModel> model;

  OrderService() {
    WsdlText w;
    w.schema = kOrderSchema;
    w.operations = {{"GetOrder", "", "GetOrderResponse"}};
    model = LoadOk(folder.Write("orders.wsdl", w.ToString()));
  }
  const MessageShape& Output() const { return OperationOf(*model, "GetOrder").output; }
};

std::string Envelope11(const std::string& body) {
  return std::string("<?xml version=\"1.0\"?>\n<soap:Envelope xmlns:soap=\"") + kEnv11 + "\"><soap:Body>" +
         body + "</soap:Body></soap:Envelope>";
}

const char kOrderAnswer[] = R"(<?xml version="1.0" encoding="UTF-8"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">
  <soap:Body>
    <t:GetOrderResponse xmlns:t="urn:t" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
      <t:order>
        <t:id>7</t:id>
        <t:items><t:sku>A</t:sku><t:qty>1</t:qty></t:items>
        <t:items><t:sku>B</t:sku><t:qty>2</t:qty></t:items>
        <t:total currency="EUR">12.50</t:total>
        <t:paid>true</t:paid>
        <t:tags>x</t:tags>
        <t:ratio>1.5</t:ratio>
        <t:code>007</t:code>
        <t:note xsi:nil="true"/>
      </t:order>
    </t:GetOrderResponse>
  </soap:Body>
</soap:Envelope>)";

void Parse(ResponseView* view, const std::string& body, const MessageShape& output) {
  const Status s = view->Parse(body, output);
  INFO(s.ToString());
  REQUIRE(s.ok());
}

}  // namespace

TEST_CASE("the Tree of a lone simple value is that value, and a one-field answer is its name: value line",
          "[wsdl][response]") {
  lather::wsdl::Element answer;  // an output whose element is itself a simple value
  answer.name = {"urn:t", "Answer"};
  answer.simple.builtin = "int";
  ResponseView lone;
  Parse(&lone, Envelope11("<t:Answer xmlns:t=\"urn:t\">42</t:Answer>"), MessageShape{&answer, true});
  CHECK_FALSE(lone.is_fault());
  CHECK(lone.Tree() == "42\n");
  ResponseView empty;
  Parse(&empty, Envelope11("<t:Answer xmlns:t=\"urn:t\"/>"), MessageShape{&answer, true});
  CHECK(empty.Tree().empty());

  const std::unique_ptr<WsdlModel> model = LoadOk(LatherWsdlPath());
  const MessageShape& output = model->ports()[0].Find("Increment")->output;
  ResponseView view;
  Parse(&view,
        Envelope11(
            "<l:IncrementResponse xmlns:l=\"urn:lather:v1\"><l:result>43</l:result></l:IncrementResponse>"),
        output);
  CHECK_FALSE(view.is_fault());
  CHECK(view.Tree() == "result: 43\n");  // as docs/wsdl.md and tests/interop/wsdl (peers_lather) have it
  CHECK(view.Json() == "{\"result\": 43}\n");

  ResponseView hello;
  Parse(&hello,
        Envelope11("<l:HelloWorldResponse xmlns:l=\"urn:lather:v1\"><l:result>Hello World</l:result>"
                   "</l:HelloWorldResponse>"),
        model->ports()[0].Find("HelloWorld")->output);
  CHECK(hello.Tree() == "result: Hello World\n");
  CHECK(hello.Json() == "{\"result\": \"Hello World\"}\n");
}

TEST_CASE("the Tree of a nested answer is indented name: value lines with indexes and attributes",
          "[wsdl][response]") {
  OrderService svc;
  ResponseView view;
  Parse(&view, kOrderAnswer, svc.Output());
  CHECK(view.Tree() ==
        "order:\n"
        "  id: 7\n"
        "  items[0]:\n"
        "    sku: A\n"
        "    qty: 1\n"
        "  items[1]:\n"
        "    sku: B\n"
        "    qty: 2\n"
        "  total: 12.50\n"
        "    @currency: EUR\n"
        "  paid: true\n"
        "  tags: x\n"
        "  ratio: 1.5\n"
        "  code: 007\n"
        "  note: (nil)\n");
}

TEST_CASE("Json types values by the schema and makes arrays of repeated elements, even of one",
          "[wsdl][response]") {
  OrderService svc;
  std::string answer = kOrderAnswer;
  const std::string second = "<t:items><t:sku>B</t:sku><t:qty>2</t:qty></t:items>";
  answer.erase(answer.find(second), second.size());
  ResponseView view;
  Parse(&view, answer, svc.Output());
  CHECK(view.Json() ==
        "{\"order\": {\"id\": 7, \"items\": [{\"sku\": \"A\", \"qty\": 1}], \"total\": {\"@currency\": "
        "\"EUR\", "
        "\"value\": 12.50}, \"paid\": true, \"tags\": [\"x\"], \"ratio\": 1.5, \"code\": \"007\", \"note\": "
        "null}}\n");

  // Numbers JSON cannot write stay strings; "1" is a boolean's true; an int's leading zeros go.
  ResponseView odd;
  std::string other = answer;
  other.replace(other.find("<t:ratio>1.5"), 12, "<t:ratio>INF");
  other.replace(other.find("<t:paid>true"), 12, "<t:paid>1");
  other.replace(other.find("<t:id>7"), 7, "<t:id>+007");
  Parse(&odd, other, svc.Output());
  const std::string json = odd.Json();
  CHECK_THAT(json, Catch::Contains("\"ratio\": \"INF\""));
  CHECK_THAT(json, Catch::Contains("\"paid\": true"));
  CHECK_THAT(json, Catch::Contains("\"id\": 7,"));
}

TEST_CASE("Json of Lather's EchoDataSamples answer: numbers, booleans, arrays of one and an empty list",
          "[wsdl][response]") {
  const std::unique_ptr<WsdlModel> model = LoadOk(LatherWsdlPath());
  const std::string answer = Envelope11(
      "<l:EchoDataSamplesResponse xmlns:l=\"urn:lather:v1\"><l:samples><l:sample>"
      "<l:firstname>Anna</l:firstname><l:lastname>M\xc3\xbcller</l:lastname><l:city>Z\"rich</l:city>"
      "<l:zip>8001</l:zip><l:email>anna@example.org</l:email><l:contactNos><l:item>+41 "
      "44</l:item></l:contactNos>"
      "<l:designation>Lead</l:designation><l:experience>12</l:experience><l:salary>123456.75</l:salary>"
      "<l:companiesWorkedFor/><l:dateOfBirth>1980-01-02T00:00:00Z</l:dateOfBirth>"
      "<l:isMarried>false</l:isMarried><l:children/></l:sample></l:samples></l:EchoDataSamplesResponse>");
  ResponseView view;
  Parse(&view, answer, model->ports()[0].Find("EchoDataSamples")->output);
  CHECK(view.Json() ==
        "{\"samples\": {\"sample\": [{\"firstname\": \"Anna\", \"lastname\": \"M\xc3\xbcller\", \"city\": "
        "\"Z\\\"rich\", "
        "\"zip\": 8001, \"email\": \"anna@example.org\", \"contactNos\": {\"item\": [\"+41 44\"]}, "
        "\"designation\": \"Lead\", \"experience\": 12, \"salary\": 123456.75, \"companiesWorkedFor\": {}, "
        "\"dateOfBirth\": \"1980-01-02T00:00:00Z\", \"isMarried\": false, \"children\": {}}]}}\n");
}

TEST_CASE("a SOAP 1.1 fault gives its code, reason and detail", "[wsdl][response]") {
  OrderService svc;
  ResponseView view;
  Parse(&view,
        Envelope11(
            "<soap:Fault><faultcode>soap:Client</faultcode><faultstring>Out of stock</faultstring>"
            "<detail><e:OutOfStock xmlns:e=\"urn:e\"><e:sku>NONE</e:sku><e:left>0</e:left></e:OutOfStock>"
            "</detail></soap:Fault>"),
        svc.Output());
  CHECK(view.is_fault());
  CHECK(view.fault().code == "soap:Client");
  CHECK(view.fault().reason == "Out of stock");
  CHECK(view.fault().detail == "OutOfStock{sku: NONE, left: 0}");

  ResponseView plain;
  Parse(&plain,
        Envelope11("<soap:Fault><faultcode>soap:Server</faultcode><faultstring>busy</faultstring>"
                   "<detail>  try again later </detail></soap:Fault>"),
        svc.Output());
  CHECK(plain.fault().detail == "try again later");
  ResponseView none;
  Parse(&none,
        Envelope11("<soap:Fault><faultcode>soap:Server</faultcode><faultstring>x</faultstring></soap:Fault>"),
        svc.Output());
  CHECK(none.is_fault());
  CHECK(none.fault().detail.empty());
}

TEST_CASE("a SOAP 1.2 fault gives Code/Value with its Subcodes, Reason/Text and Detail", "[wsdl][response]") {
  OrderService svc;
  ResponseView view;
  Parse(&view,
        "<env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Body><env:Fault>"
        "<env:Code><env:Value>env:Sender</env:Value><env:Subcode><env:Value>app:OutOfStock</env:Value>"
        "<env:Subcode><env:Value>app:Warehouse</env:Value></env:Subcode></env:Subcode></env:Code>"
        "<env:Reason><env:Text xml:lang=\"en\">Out of stock</env:Text></env:Reason>"
        "<env:Detail><app:Info "
        "xmlns:app=\"urn:app\"><app:sku>NONE</app:sku><app:where><app:city>Bern</app:city>"
        "</app:where></app:Info></env:Detail></env:Fault></env:Body></env:Envelope>",
        svc.Output());
  CHECK(view.is_fault());
  CHECK(view.fault().code == "env:Sender / app:OutOfStock / app:Warehouse");
  CHECK(view.fault().reason == "Out of stock");
  CHECK(view.fault().detail == "Info{sku: NONE, where{city: Bern}}");
}

TEST_CASE("an answer that is not a SOAP envelope with a Body is refused", "[wsdl][response]") {
  OrderService svc;
  ResponseView view;
  Status s = view.Parse("<html><body>502 Bad Gateway</body></html>", svc.Output());
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("not a SOAP envelope (its root is <html>)"));
  s = ResponseView().Parse("Bad Gateway", svc.Output());
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("not XML"));
  s = ResponseView().Parse("<Envelope xmlns=\"urn:not-soap\"><Body/></Envelope>", svc.Output());
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  s = ResponseView().Parse(
      std::string("<soap:Envelope xmlns:soap=\"") + kEnv11 + "\"><soap:Header/></soap:Envelope>",
      svc.Output());
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("no Body"));
}

TEST_CASE("JsonQuoted escapes quotes, backslashes and control characters", "[wsdl][response]") {
  CHECK(JsonQuoted("plain") == "\"plain\"");
  CHECK(JsonQuoted("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(JsonQuoted("1\n2\t3\r4\x01") == "\"1\\n2\\t3\\r4\\u0001\"");
  CHECK(JsonQuoted("Z\xc3\xbcrich") == "\"Z\xc3\xbcrich\"");
}
