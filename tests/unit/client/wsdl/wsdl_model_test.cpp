#include "client/wsdl/wsdl_model.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "tests/unit/client/wsdl/wsdl_test_files.h"

using lather::Status;
using lather::wsdl::FieldSignature;
using lather::wsdl::Operation;
using lather::wsdl::Port;
using lather::wsdl::ResultSignature;
using lather::wsdl::WsdlModel;
using lather::wsdl::testing::LatherWsdlPath;
using lather::wsdl::testing::LineOf;
using lather::wsdl::testing::LoadOk;
using lather::wsdl::testing::LoadWsdl;
using lather::wsdl::testing::TempFolder;
using lather::wsdl::testing::WsdlText;
using lather::wsdl::testing::XsdText;

namespace {

const char kOneOperation[] =
    "      <xsd:element name=\"Ping\"><xsd:complexType><xsd:sequence>\n"
    "        <xsd:element name=\"value\" type=\"xsd:int\"/>\n"
    "      </xsd:sequence></xsd:complexType></xsd:element>";

// Loads `text` written as `name` into a fresh folder; the load must fail with `kind`.
Status LoadFails(const std::string& name, const std::string& text,
                 Status::Kind kind = Status::Kind::kInvalidArgument) {
  TempFolder folder;
  std::unique_ptr<WsdlModel> model;
  const Status s = LoadWsdl(folder.Write(name, text), &model);
  INFO(s.ToString());
  CHECK(s.kind() == kind);
  CHECK(model == nullptr);
  return s;
}

}  // namespace

TEST_CASE("Lather's WSDL has a SOAP 1.1 and a SOAP 1.2 port with the five operations and their actions",
          "[wsdl][model]") {
  const std::unique_ptr<WsdlModel> model = LoadOk(LatherWsdlPath());
  CHECK(model->url() == LatherWsdlPath());
  REQUIRE(model->ports().size() == 2);
  const Port& soap11 = model->ports()[0];
  const Port& soap12 = model->ports()[1];
  CHECK(soap11.name == "LatherSoap");
  CHECK(soap11.binding == "LatherSoap");
  CHECK(soap11.soap_version == 1);
  CHECK(soap11.address == "http://127.0.0.1:8080/soap");
  CHECK(soap12.name == "LatherSoap12");
  CHECK(soap12.soap_version == 2);
  CHECK(soap12.address == "http://127.0.0.1:8080/soap");
  const std::vector<std::string> names = {"Increment", "HelloWorld", "IncCounter", "GetCounter",
                                          "EchoDataSamples"};
  for (const Port* port : {&soap11, &soap12}) {
    REQUIRE(port->operations.size() == names.size());
    for (size_t i = 0; i < names.size(); ++i) {
      const Operation& op = port->operations[i];
      INFO(port->name << " " << op.name);
      CHECK(op.name == names[i]);
      CHECK(op.action == "urn:lather:v1#" + names[i]);
      CHECK(op.style == "document");
      CHECK_FALSE(op.one_way);
      CHECK(op.faults.empty());
      CHECK(op.notes.empty());
      REQUIRE(op.input.root != nullptr);
      REQUIRE(op.output.root != nullptr);
      CHECK(op.input.write_root);
      CHECK(op.output.write_root);
      CHECK(op.input.root->name.ns == "urn:lather:v1");
      CHECK(op.input.root->name.local == names[i]);
      CHECK(op.output.root->name.local == names[i] + "Response");
      CHECK(port->Find(names[i]) == &op);
    }
    CHECK(port->Find("Decrement") == nullptr);
  }
  CHECK(model->notes().empty());
}

TEST_CASE("Lather's operations print their field and result signatures", "[wsdl][model]") {
  const std::unique_ptr<WsdlModel> model = LoadOk(LatherWsdlPath());
  const Port& port = model->ports()[0];
  CHECK(FieldSignature(port.Find("Increment")->input) == "value: xsd:int");
  CHECK(ResultSignature(port.Find("Increment")->output) == "result: xsd:int");
  CHECK(FieldSignature(port.Find("HelloWorld")->input).empty());
  CHECK(ResultSignature(port.Find("HelloWorld")->output) == "result: xsd:string");
  CHECK(FieldSignature(port.Find("IncCounter")->input) == "name: tns:CounterName");
  CHECK(ResultSignature(port.Find("IncCounter")->output) == "result: xsd:long");
  CHECK(FieldSignature(port.Find("EchoDataSamples")->input) == "samples: tns:DataSampleList");
  CHECK(ResultSignature(port.Find("EchoDataSamples")->output) == "samples: tns:DataSampleList");
}

TEST_CASE("FindPort with no name gives the SOAP 1.1 port and refuses an unknown one, listing the ports",
          "[wsdl][model]") {
  const std::unique_ptr<WsdlModel> model = LoadOk(LatherWsdlPath());
  const Port* port = nullptr;
  REQUIRE(model->FindPort("", &port).ok());
  CHECK(port == &model->ports()[0]);
  CHECK(port->soap_version == 1);
  REQUIRE(model->FindPort("LatherSoap12", &port).ok());
  CHECK(port == &model->ports()[1]);

  const Port* untouched = nullptr;
  const Status s = model->FindPort("nope", &untouched);
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK(untouched == nullptr);
  CHECK_THAT(s.message(), Catch::Contains("no port 'nope'"));
  CHECK_THAT(s.message(), Catch::Contains("(ports: LatherSoap, LatherSoap12)"));
}

TEST_CASE("WsdlModel::Load reads a file:// URL as it reads a path", "[wsdl][model]") {
  TempFolder folder;
  WsdlText w;
  w.schema = kOneOperation;
  w.operations = {{"Ping", "", ""}};
  const std::string path = folder.Write("svc.wsdl", w.ToString());
  const std::unique_ptr<WsdlModel> model = LoadOk("file://" + path);
  REQUIRE(model->ports().size() == 1);
  CHECK(model->ports()[0].name == "TestSoap");
  CHECK(model->ports()[0].address == "http://127.0.0.1:1/t");
  CHECK(FieldSignature(model->ports()[0].operations.at(0).input) == "value: xsd:int");
}

TEST_CASE("a document that is not XML is refused with its line", "[wsdl][refusal]") {
  const Status s = LoadFails(
      "broken.wsdl",
      "<?xml version=\"1.0\"?>\n<wsdl:definitions xmlns:wsdl=\"http://schemas.xmlsoap.org/wsdl/\">\n"
      "  <wsdl:types>\n  </wsdl:typo>\n</wsdl:definitions>\n");
  CHECK_THAT(s.message(), Catch::Contains("broken.wsdl:4: not well-formed XML"));
}

TEST_CASE("a schema imported by a schema that it imports is an import cycle", "[wsdl][refusal]") {
  TempFolder folder;
  folder.Write("a.xsd", XsdText("targetNamespace=\"urn:a\"",
                                "<xsd:import namespace=\"urn:b\" schemaLocation=\"b.xsd\"/>\n"
                                "<xsd:element name=\"A\" type=\"xsd:string\"/>"));
  folder.Write("b.xsd", XsdText("targetNamespace=\"urn:b\"",
                                "<xsd:import namespace=\"urn:a\" schemaLocation=\"a.xsd\"/>\n"
                                "<xsd:element name=\"B\" type=\"xsd:string\"/>"));
  WsdlText w;
  w.schema =
      std::string("      <xsd:import namespace=\"urn:a\" schemaLocation=\"a.xsd\"/>\n") + kOneOperation;
  w.operations = {{"Ping", "", ""}};
  std::unique_ptr<WsdlModel> model;
  const Status s = LoadWsdl(folder.Write("svc.wsdl", w.ToString()), &model);
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("import cycle"));
  CHECK_THAT(s.message(), Catch::Contains("a.xsd -> file://" + folder.path() + "/b.xsd -> file://" +
                                          folder.path() + "/a.xsd"));
}

TEST_CASE("a schema imported twice along different paths is no cycle", "[wsdl][model]") {
  TempFolder folder;
  folder.Write("common.xsd",
               XsdText("targetNamespace=\"urn:c\"", "<xsd:element name=\"C\" type=\"xsd:string\"/>"));
  folder.Write("a.xsd", XsdText("targetNamespace=\"urn:a\"",
                                "<xsd:import namespace=\"urn:c\" schemaLocation=\"common.xsd\"/>"));
  folder.Write("b.xsd", XsdText("targetNamespace=\"urn:b\"",
                                "<xsd:import namespace=\"urn:c\" schemaLocation=\"common.xsd\"/>"));
  WsdlText w;
  w.schema = std::string(
      "      <xsd:import namespace=\"urn:a\" schemaLocation=\"a.xsd\"/>\n"
      "      <xsd:import namespace=\"urn:b\" schemaLocation=\"b.xsd\"/>\n"
      "      <xsd:import namespace=\"urn:c\"/>\n"
      "      <xsd:element name=\"Get\"><xsd:complexType><xsd:sequence>"
      "<xsd:element ref=\"c:C\"/></xsd:sequence></xsd:complexType></xsd:element>");
  w.extra_namespaces = "xmlns:c=\"urn:c\"";
  w.operations = {{"Get", "", ""}};
  const std::unique_ptr<WsdlModel> model = LoadOk(folder.Write("svc.wsdl", w.ToString()));
  CHECK(FieldSignature(model->ports()[0].operations[0].input) == "C: xsd:string");
  CHECK(model->schemas().SchemaDocuments().size() == 4);
}

TEST_CASE("an unknown binding style is refused by name", "[wsdl][refusal]") {
  WsdlText w;
  w.schema = kOneOperation;
  w.operations = {{"Ping", "", ""}};
  w.style = "message";
  const std::string text = w.ToString();
  const Status s = LoadFails("svc.wsdl", text);
  CHECK_THAT(s.message(), Catch::Contains("unknown binding style 'message'"));
  CHECK_THAT(s.message(),
             Catch::Contains("svc.wsdl:" + std::to_string(LineOf(text, "<wsdl:operation name=\"Ping\">\n"))));
}

TEST_CASE("rpc/encoded is refused as SOAP encoding", "[wsdl][refusal]") {
  const std::string text =
      "<?xml version=\"1.0\"?>\n"
      "<wsdl:definitions targetNamespace=\"urn:t\" xmlns:tns=\"urn:t\" "
      "xmlns:wsdl=\"http://schemas.xmlsoap.org/wsdl/\"\n"
      "    xmlns:soap=\"http://schemas.xmlsoap.org/wsdl/soap/\" "
      "xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\">\n"
      "  <wsdl:message name=\"AddIn\"><wsdl:part name=\"a\" type=\"xsd:int\"/></wsdl:message>\n"
      "  <wsdl:message name=\"AddOut\"><wsdl:part name=\"sum\" type=\"xsd:int\"/></wsdl:message>\n"
      "  <wsdl:portType name=\"P\"><wsdl:operation name=\"Add\"><wsdl:input message=\"tns:AddIn\"/>"
      "<wsdl:output message=\"tns:AddOut\"/></wsdl:operation></wsdl:portType>\n"
      "  <wsdl:binding name=\"B\" type=\"tns:P\"><soap:binding style=\"rpc\" "
      "transport=\"http://schemas.xmlsoap.org/soap/http\"/>\n"
      "    <wsdl:operation name=\"Add\"><soap:operation soapAction=\"urn:t#Add\"/>\n"
      "      <wsdl:input><soap:body use=\"encoded\" namespace=\"urn:t\" "
      "encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\"/></wsdl:input>\n"
      "      <wsdl:output><soap:body use=\"encoded\" namespace=\"urn:t\"/></wsdl:output>\n"
      "    </wsdl:operation></wsdl:binding>\n"
      "  <wsdl:service name=\"S\"><wsdl:port name=\"Port\" binding=\"tns:B\"><soap:address "
      "location=\"http://h/\"/>"
      "</wsdl:port></wsdl:service>\n"
      "</wsdl:definitions>\n";
  const Status s = LoadFails("encoded.wsdl", text);
  CHECK_THAT(s.message(), Catch::Contains("rpc/encoded"));
  CHECK_THAT(s.message(), Catch::Contains("encoded.wsdl:9"));
}

TEST_CASE("rpc/literal wraps the parts in an element named after the operation in the body's namespace",
          "[wsdl][model]") {
  const std::string text =
      "<?xml version=\"1.0\"?>\n"
      "<wsdl:definitions targetNamespace=\"urn:t\" xmlns:tns=\"urn:t\" "
      "xmlns:wsdl=\"http://schemas.xmlsoap.org/wsdl/\"\n"
      "    xmlns:soap=\"http://schemas.xmlsoap.org/wsdl/soap/\" "
      "xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\">\n"
      "  <wsdl:message name=\"AddIn\"><wsdl:part name=\"a\" type=\"xsd:int\"/><wsdl:part name=\"b\" "
      "type=\"xsd:int\"/>"
      "</wsdl:message>\n"
      "  <wsdl:message name=\"AddOut\"><wsdl:part name=\"sum\" type=\"xsd:long\"/></wsdl:message>\n"
      "  <wsdl:portType name=\"P\"><wsdl:operation name=\"Add\"><wsdl:input message=\"tns:AddIn\"/>"
      "<wsdl:output message=\"tns:AddOut\"/></wsdl:operation></wsdl:portType>\n"
      "  <wsdl:binding name=\"B\" type=\"tns:P\"><soap:binding style=\"rpc\" "
      "transport=\"http://schemas.xmlsoap.org/soap/http\"/>\n"
      "    <wsdl:operation name=\"Add\"><soap:operation soapAction=\"\"/>\n"
      "      <wsdl:input><soap:body use=\"literal\" namespace=\"urn:calc\"/></wsdl:input>\n"
      "      <wsdl:output><soap:body use=\"literal\" namespace=\"urn:calc\"/></wsdl:output>\n"
      "    </wsdl:operation></wsdl:binding>\n"
      "  <wsdl:service name=\"S\"><wsdl:port name=\"Port\" binding=\"tns:B\"><soap:address "
      "location=\"http://h/\"/>"
      "</wsdl:port></wsdl:service>\n"
      "</wsdl:definitions>\n";
  TempFolder folder;
  const std::unique_ptr<WsdlModel> model = LoadOk(folder.Write("rpc.wsdl", text));
  const Operation& op = model->ports().at(0).operations.at(0);
  CHECK(op.style == "rpc");
  CHECK(op.action.empty());
  REQUIRE(op.input.root != nullptr);
  CHECK(op.input.write_root);
  CHECK(op.input.root->name.ns == "urn:calc");
  CHECK(op.input.root->name.local == "Add");
  CHECK(op.output.root->name.local == "AddResponse");
  CHECK(FieldSignature(op.input) == "a: xsd:int, b: xsd:int");
  CHECK(ResultSignature(op.output) == "sum: xsd:long");
}

TEST_CASE("a WSDL 2.0 description is refused as such", "[wsdl][refusal]") {
  const Status s = LoadFails("v2.wsdl",
                             "<?xml version=\"1.0\"?>\n<description xmlns=\"http://www.w3.org/ns/wsdl\" "
                             "targetNamespace=\"urn:t\"><types/></description>\n");
  CHECK_THAT(s.message(), Catch::Contains("a WSDL 2.0 description"));
  CHECK_THAT(s.message(), Catch::Contains("WSDL 1.1"));
}

TEST_CASE("a document that is XML but no WSDL is refused naming its root", "[wsdl][refusal]") {
  const Status s = LoadFails("page.wsdl", "<html><body>Not found</body></html>");
  CHECK_THAT(s.message(), Catch::Contains("not a WSDL 1.1 document"));
  CHECK_THAT(s.message(), Catch::Contains("<html>"));
}

TEST_CASE("a type no schema declares is refused by its qualified name", "[wsdl][refusal]") {
  WsdlText w;
  w.schema =
      "      <xsd:element name=\"Ping\"><xsd:complexType><xsd:sequence>\n"
      "        <xsd:element name=\"order\" type=\"tns:Missing\"/>\n"
      "      </xsd:sequence></xsd:complexType></xsd:element>";
  w.operations = {{"Ping", "", ""}};
  const std::string text = w.ToString();
  const Status s = LoadFails("svc.wsdl", text);
  CHECK_THAT(s.message(), Catch::Contains("no schema declares the type {urn:t}Missing"));
  CHECK_THAT(s.message(),
             Catch::Contains("svc.wsdl:" + std::to_string(LineOf(text, "type=\"tns:Missing\""))));
}

TEST_CASE("a message part naming an element no schema declares is refused", "[wsdl][refusal]") {
  WsdlText w;
  w.schema = kOneOperation;
  w.operations = {{"Ping", "", "PingResponse"}};  // tns:PingResponse is not declared
  const Status s = LoadFails("svc.wsdl", w.ToString());
  CHECK_THAT(s.message(), Catch::Contains("no schema declares the element {urn:t}PingResponse"));
  CHECK_THAT(s.message(), Catch::Contains("part parameters"));
}

TEST_CASE("xsd:redefine is refused naming the file and line", "[wsdl][refusal]") {
  TempFolder folder;
  folder.Write("base.xsd", XsdText("targetNamespace=\"urn:t\"",
                                   "<xsd:simpleType name=\"Code\"><xsd:restriction "
                                   "base=\"xsd:string\"/></xsd:simpleType>"));
  WsdlText w;
  w.schema = std::string("      <xsd:redefine schemaLocation=\"base.xsd\"/>\n") + kOneOperation;
  w.operations = {{"Ping", "", ""}};
  const std::string text = w.ToString();
  const std::string path = folder.Write("svc.wsdl", text);
  std::unique_ptr<WsdlModel> model;
  const Status s = LoadWsdl(path, &model);
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(),
             Catch::StartsWith(path + ":" + std::to_string(LineOf(text, "<xsd:redefine")) + ": "));
  CHECK_THAT(s.message(), Catch::Contains("cannot model xsd:redefine"));
}

TEST_CASE("an abstract element in an imported schema is refused naming that file and line",
          "[wsdl][refusal]") {
  TempFolder folder;
  const std::string xsd = XsdText("targetNamespace=\"urn:shapes\" elementFormDefault=\"qualified\"",
                                  "<xsd:element name=\"Square\" type=\"xsd:int\"/>\n"
                                  "<xsd:element name=\"Shape\" abstract=\"true\" type=\"xsd:string\"/>");
  folder.Write("shapes.xsd", xsd);
  WsdlText w;
  w.extra_namespaces = "xmlns:s=\"urn:shapes\"";
  w.schema =
      "      <xsd:import namespace=\"urn:shapes\" schemaLocation=\"shapes.xsd\"/>\n"
      "      <xsd:element name=\"Draw\"><xsd:complexType><xsd:sequence>"
      "<xsd:element ref=\"s:Shape\"/></xsd:sequence></xsd:complexType></xsd:element>";
  w.operations = {{"Draw", "", ""}};
  std::unique_ptr<WsdlModel> model;
  const Status s = LoadWsdl(folder.Write("svc.wsdl", w.ToString()), &model);
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("file://" + folder.path() + "/shapes.xsd:" +
                                          std::to_string(LineOf(xsd, "name=\"Shape\"")) + ": cannot model"));
  CHECK_THAT(s.message(), Catch::Contains("abstract element 'Shape'"));
}

TEST_CASE("a missing WSDL file is an IOError, and so is a missing imported schema", "[wsdl][refusal]") {
  TempFolder folder;
  std::unique_ptr<WsdlModel> model;
  Status s = LoadWsdl(folder.path() + "/nope.wsdl", &model);
  CHECK(s.kind() == Status::Kind::kIOError);
  CHECK_THAT(s.message(), Catch::Contains("nope.wsdl"));
  CHECK(model == nullptr);

  WsdlText w;
  w.schema =
      std::string("      <xsd:import namespace=\"urn:gone\" schemaLocation=\"gone.xsd\"/>\n") + kOneOperation;
  w.operations = {{"Ping", "", ""}};
  s = LoadWsdl(folder.Write("svc.wsdl", w.ToString()), &model);
  CHECK(s.kind() == Status::Kind::kIOError);
  CHECK_THAT(s.message(), Catch::Contains("gone.xsd"));
}

TEST_CASE(
    "a wsdl:import brings in the messages and the schema of another WSDL, resolved against the importer",
    "[wsdl][model]") {
  TempFolder folder;
  std::filesystem::create_directory(folder.path() + "/defs");
  WsdlText inner;
  inner.schema = kOneOperation;
  inner.operations = {{"Ping", "", ""}};
  std::string inner_text = inner.ToString();
  // Keep only the types and messages of the inner document: the outer one binds them.
  const size_t port_type = inner_text.find("  <wsdl:portType");
  inner_text = inner_text.substr(0, port_type) + "</wsdl:definitions>\n";
  folder.Write("defs/types.wsdl", inner_text);
  const std::string outer =
      "<?xml version=\"1.0\"?>\n"
      "<wsdl:definitions targetNamespace=\"urn:t\" xmlns:tns=\"urn:t\" "
      "xmlns:wsdl=\"http://schemas.xmlsoap.org/wsdl/\"\n"
      "    xmlns:soap12=\"http://schemas.xmlsoap.org/wsdl/soap12/\">\n"
      "  <wsdl:import namespace=\"urn:t\" location=\"defs/types.wsdl\"/>\n"
      "  <wsdl:portType name=\"P\"><wsdl:operation name=\"Ping\"><wsdl:input message=\"tns:PingRequest\"/>"
      "<wsdl:output message=\"tns:PingResponse\"/></wsdl:operation></wsdl:portType>\n"
      "  <wsdl:binding name=\"B12\" type=\"tns:P\"><soap12:binding "
      "transport=\"http://schemas.xmlsoap.org/soap/http\"/>\n"
      "    <wsdl:operation name=\"Ping\"><soap12:operation soapAction=\"urn:t#Ping\"/>\n"
      "      <wsdl:input><soap12:body use=\"literal\"/></wsdl:input><wsdl:output><soap12:body "
      "use=\"literal\"/></wsdl:output>\n"
      "    </wsdl:operation></wsdl:binding>\n"
      "  <wsdl:service name=\"S\"><wsdl:port name=\"Port12\" binding=\"tns:B12\">"
      "<soap12:address location=\"http://h:9/x\"/></wsdl:port></wsdl:service>\n"
      "</wsdl:definitions>\n";
  const std::unique_ptr<WsdlModel> model = LoadOk(folder.Write("main.wsdl", outer));
  REQUIRE(model->ports().size() == 1);
  const Port* port = nullptr;
  REQUIRE(model->FindPort("", &port).ok());  // no SOAP 1.1 port: the first one
  CHECK(port->name == "Port12");
  CHECK(port->soap_version == 2);
  CHECK(port->address == "http://h:9/x");
  CHECK(port->operations.at(0).style == "document");  // soap12:binding without a style
  CHECK(FieldSignature(port->operations.at(0).input) == "value: xsd:int");
}

TEST_CASE("minOccurs and maxOccurs are read as XML Schema defines them, and what it forbids is refused by name",
          "[wsdl][refusal]") {
  // Part 1, 3.9: minOccurs a nonNegativeInteger, maxOccurs one or "unbounded", minOccurs <= maxOccurs; blanks
  // around a value are collapsed.
  const auto load = [](const std::string& occurs, std::unique_ptr<WsdlModel>* model) {
    TempFolder folder;
    WsdlText w;
    w.schema = "      <xsd:element name=\"Ping\"><xsd:complexType><xsd:sequence>"
               "<xsd:element name=\"v\" type=\"xsd:int\" " + occurs + "/></xsd:sequence></xsd:complexType></xsd:element>";
    w.operations = {{"Ping", "", ""}};
    return LoadWsdl(folder.Write("svc.wsdl", w.ToString()), model);
  };
  for (const std::string& ok : {"minOccurs=\" 2 \" maxOccurs=\"unbounded\"", "minOccurs=\"+0\" maxOccurs=\"3\"",
                                "minOccurs=\"0\" maxOccurs=\"0\"", "maxOccurs=\"1\""}) {
    std::unique_ptr<WsdlModel> model;
    const Status s = load(ok, &model);
    INFO(ok << ": " << s.ToString());
    CHECK(s.ok());
  }
  const std::pair<std::string, std::string> refused[] = {
      {"minOccurs=\"unbounded\"", "minOccurs=\"unbounded\": not a non-negative integer"},
      {"minOccurs=\"-1\"", "minOccurs=\"-1\": not a non-negative integer"},
      {"maxOccurs=\"many\"", "maxOccurs=\"many\": neither a non-negative integer nor unbounded"},
      {"minOccurs=\"3\" maxOccurs=\"2\"", "minOccurs 3 greater than maxOccurs 2"},
      {"minOccurs=\"2\"", "minOccurs 2 greater than maxOccurs 1"}};
  for (const auto& [occurs, why] : refused) {
    std::unique_ptr<WsdlModel> model;
    const Status s = load(occurs, &model);
    INFO(occurs);
    CHECK(s.kind() == Status::Kind::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains("cannot model " + why));
  }
}
