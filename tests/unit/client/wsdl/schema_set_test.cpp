#include "client/wsdl/schema_set.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "client/wsdl/request_builder.h"
#include "client/wsdl/wsdl_model.h"
#include "client/wsdl/xsd_value.h"
#include "tests/unit/client/wsdl/wsdl_test_files.h"

using lather::Status;
using lather::wsdl::Attribute;
using lather::wsdl::CheckValue;
using lather::wsdl::ComplexType;
using lather::wsdl::Element;
using lather::wsdl::FieldSignature;
using lather::wsdl::kUnbounded;
using lather::wsdl::Operation;
using lather::wsdl::Particle;
using lather::wsdl::QName;
using lather::wsdl::RequestBuilder;
using lather::wsdl::ResultSignature;
using lather::wsdl::SimpleType;
using lather::wsdl::WsdlModel;
using lather::wsdl::testing::FieldNames;
using lather::wsdl::testing::FieldOf;
using lather::wsdl::testing::LoadOk;
using lather::wsdl::testing::OperationOf;
using lather::wsdl::testing::TempFolder;
using lather::wsdl::testing::WsdlText;
using lather::wsdl::testing::XsdText;

namespace {

// The second namespace: unqualified local elements (no elementFormDefault), one local element
// qualified by its own form attribute.
const char kOtherXsd[] =
    "<xsd:element name=\"Note\">\n"
    "  <xsd:complexType><xsd:sequence>\n"
    "    <xsd:element name=\"text\" type=\"xsd:string\"/>\n"
    "    <xsd:element name=\"lang\" type=\"xsd:language\" form=\"qualified\" minOccurs=\"0\"/>\n"
    "  </xsd:sequence></xsd:complexType>\n"
    "</xsd:element>\n"
    "<xsd:element name=\"Stamp\" type=\"xsd:dateTime\"/>";

const char kSchema[] = R"(
      <xsd:import namespace="urn:other" schemaLocation="other.xsd"/>

      <xsd:complexType name="Base">
        <xsd:sequence>
          <xsd:element name="id" type="xsd:int"/>
          <xsd:element name="name" type="xsd:string"/>
        </xsd:sequence>
        <xsd:attribute name="version" type="xsd:int"/>
      </xsd:complexType>
      <xsd:complexType name="Derived">
        <xsd:complexContent>
          <xsd:extension base="tns:Base">
            <xsd:sequence>
              <xsd:element name="extra" type="xsd:string"/>
              <xsd:element name="more" type="xsd:int" minOccurs="0"/>
            </xsd:sequence>
            <xsd:attribute name="flag" type="xsd:boolean"/>
          </xsd:extension>
        </xsd:complexContent>
      </xsd:complexType>
      <xsd:element name="Extend"><xsd:complexType><xsd:sequence>
        <xsd:element name="item" type="tns:Derived"/>
      </xsd:sequence></xsd:complexType></xsd:element>

      <xsd:complexType name="Money">
        <xsd:simpleContent>
          <xsd:extension base="xsd:decimal">
            <xsd:attribute name="currency" type="xsd:string" use="required"/>
            <xsd:attribute name="rounded" type="xsd:boolean"/>
          </xsd:extension>
        </xsd:simpleContent>
      </xsd:complexType>
      <xsd:element name="Pay"><xsd:complexType><xsd:sequence>
        <xsd:element name="amount" type="tns:Money"/>
        <xsd:choice>
          <xsd:element name="card" type="xsd:string"/>
          <xsd:element name="iban" type="xsd:string"/>
        </xsd:choice>
      </xsd:sequence></xsd:complexType></xsd:element>

      <xsd:element name="Settings"><xsd:complexType><xsd:all>
        <xsd:element name="colour" type="xsd:string"/>
        <xsd:element name="size" type="xsd:int" minOccurs="0"/>
      </xsd:all></xsd:complexType></xsd:element>

      <xsd:simpleType name="Status">
        <xsd:restriction base="xsd:string">
          <xsd:enumeration value="NEW"/>
          <xsd:enumeration value="PAID"/>
        </xsd:restriction>
      </xsd:simpleType>
      <xsd:element name="Order"><xsd:complexType><xsd:sequence>
        <xsd:element name="customer"><xsd:complexType><xsd:sequence>
          <xsd:element name="address"><xsd:complexType><xsd:sequence>
            <xsd:element name="city" type="xsd:string"/>
          </xsd:sequence></xsd:complexType></xsd:element>
        </xsd:sequence></xsd:complexType></xsd:element>
        <xsd:element name="status" type="tns:Status"/>
        <xsd:element name="lines" type="xsd:string" minOccurs="0" maxOccurs="unbounded"/>
        <xsd:element name="pair" type="xsd:int" minOccurs="2" maxOccurs="2"/>
        <xsd:element name="note" type="xsd:string" nillable="true"/>
      </xsd:sequence></xsd:complexType></xsd:element>

      <xsd:element name="Annotate"><xsd:complexType><xsd:sequence>
        <xsd:element name="subject" type="xsd:string"/>
        <xsd:element ref="o:Note"/>
        <xsd:element ref="o:Stamp" minOccurs="0" maxOccurs="3"/>
      </xsd:sequence></xsd:complexType></xsd:element>

      <xsd:group name="Contact">
        <xsd:sequence>
          <xsd:element name="email" type="xsd:string"/>
          <xsd:element name="phone" type="xsd:string" minOccurs="0"/>
        </xsd:sequence>
      </xsd:group>
      <xsd:attributeGroup name="Audit">
        <xsd:attribute name="createdBy" type="xsd:string" use="required"/>
        <xsd:attribute name="createdAt" type="xsd:dateTime"/>
      </xsd:attributeGroup>
      <xsd:element name="Person"><xsd:complexType>
        <xsd:sequence>
          <xsd:element name="name" type="xsd:string"/>
          <xsd:group ref="tns:Contact"/>
        </xsd:sequence>
        <xsd:attributeGroup ref="tns:Audit"/>
      </xsd:complexType></xsd:element>

      <xsd:complexType name="Node">
        <xsd:sequence>
          <xsd:element name="label" type="xsd:string"/>
          <xsd:element name="children" type="tns:Node" minOccurs="0" maxOccurs="unbounded"/>
        </xsd:sequence>
      </xsd:complexType>
      <xsd:element name="Tree"><xsd:complexType><xsd:sequence>
        <xsd:element name="root" type="tns:Node"/>
      </xsd:sequence></xsd:complexType></xsd:element>

      <xsd:element name="Folder" type="tns:FolderType"/>
      <xsd:complexType name="FolderType">
        <xsd:sequence>
          <xsd:element name="title" type="xsd:string"/>
          <xsd:element ref="tns:Folder" minOccurs="0" maxOccurs="unbounded"/>
        </xsd:sequence>
      </xsd:complexType>

      <xsd:element name="Section"><xsd:complexType><xsd:sequence>
        <xsd:element name="heading" type="xsd:string"/>
        <xsd:element ref="tns:Section" minOccurs="0"/>
      </xsd:sequence></xsd:complexType></xsd:element>)";

// Lather-style test folder: the WSDL with kSchema inline and other.xsd beside it.
struct Fixture {
  TempFolder folder;
  std::unique_ptr<WsdlModel> model;

  Fixture() {
    folder.Write("other.xsd", XsdText("targetNamespace=\"urn:other\"", kOtherXsd));
    WsdlText w;
    w.schema = kSchema;
    w.extra_namespaces = "xmlns:o=\"urn:other\"";
    for (const char* op :
         {"Extend", "Pay", "Settings", "Order", "Annotate", "Person", "Tree", "Folder", "Section"}) {
      w.operations.push_back({op, "", ""});
    }
    model = LoadOk(folder.Write("svc.wsdl", w.ToString()));
  }

  const ComplexType& Input(const std::string& op) const {
    const Operation& o = OperationOf(*model, op);
    REQUIRE(o.input.root != nullptr);
    REQUIRE(o.input.root->complex != nullptr);
    return *o.input.root->complex;
  }
  const Operation& Op(const std::string& op) const { return OperationOf(*model, op); }
};

const Element& Field(const ComplexType& type, const std::string& local) {
  const Element* e = FieldOf(type, local);
  INFO("field " << local);
  REQUIRE(e != nullptr);
  return *e;
}

}  // namespace

TEST_CASE("complexContent extension puts the base type's fields first and keeps both attribute sets",
          "[wsdl][xsd]") {
  Fixture f;
  const Element& item = Field(f.Input("Extend"), "item");
  REQUIRE(item.complex != nullptr);
  CHECK(item.type_display == "tns:Derived");
  CHECK(item.complex->name == (QName{"urn:t", "Derived"}));
  CHECK(FieldNames(*item.complex) == (std::vector<std::string>{"id", "name", "extra", "more"}));
  REQUIRE(item.complex->attributes.size() == 2);
  CHECK(item.complex->attributes[0].name.local == "version");
  CHECK(item.complex->attributes[1].name.local == "flag");
  CHECK(item.complex->attributes[1].type.builtin == "boolean");
  CHECK(Field(*item.complex, "more").min_occurs == 0);
  CHECK(FieldSignature(f.Op("Extend").input) == "item: tns:Derived");
}

TEST_CASE("simpleContent extension holds a value of its base and the attributes it adds", "[wsdl][xsd]") {
  Fixture f;
  const Element& amount = Field(f.Input("Pay"), "amount");
  REQUIRE(amount.complex != nullptr);
  const ComplexType& money = *amount.complex;
  CHECK(money.simple_content);
  CHECK(money.value.builtin == "decimal");
  CHECK(FieldNames(money).empty());
  REQUIRE(money.attributes.size() == 2);
  const Attribute& currency = money.attributes[0];
  CHECK(currency.name == (QName{"", "currency"}));  // attributeFormDefault unqualified
  CHECK(currency.required);
  CHECK(currency.type.builtin == "string");
  CHECK_FALSE(money.attributes[1].required);
  CHECK(FieldSignature({&amount, true}) ==
        "value: xsd:decimal, @currency: xsd:string, @rounded?: xsd:boolean");
}

TEST_CASE("a choice is a choice particle of its alternatives", "[wsdl][xsd]") {
  Fixture f;
  const ComplexType& pay = f.Input("Pay");
  CHECK(FieldNames(pay) == (std::vector<std::string>{"amount", "card", "iban"}));
  REQUIRE(pay.content.children.size() == 1);
  const Particle& sequence = pay.content.children[0];
  CHECK(sequence.kind == Particle::Kind::kSequence);
  REQUIRE(sequence.children.size() == 2);
  CHECK(sequence.children[0].kind == Particle::Kind::kElement);
  const Particle& choice = sequence.children[1];
  CHECK(choice.kind == Particle::Kind::kChoice);
  REQUIRE(choice.children.size() == 2);
  CHECK(choice.children[0].element->name.local == "card");
  CHECK(choice.children[1].element->name.local == "iban");
}

TEST_CASE("xsd:all is an all particle with its optional members", "[wsdl][xsd]") {
  Fixture f;
  const ComplexType& settings = f.Input("Settings");
  REQUIRE(settings.content.children.size() == 1);
  const Particle& all = settings.content.children[0];
  CHECK(all.kind == Particle::Kind::kAll);
  REQUIRE(all.children.size() == 2);
  CHECK(all.children[0].element->name.local == "colour");
  CHECK(all.children[1].min_occurs == 0);
  CHECK(FieldSignature(f.Op("Settings").input) == "colour: xsd:string, size?: xsd:int");
}

TEST_CASE("nested anonymous types, enumerations, repeated and nillable elements are modelled",
          "[wsdl][xsd]") {
  Fixture f;
  const ComplexType& order = f.Input("Order");
  const Element& customer = Field(order, "customer");
  REQUIRE(customer.complex != nullptr);
  CHECK(customer.type_display == "(anonymous)");
  CHECK(customer.complex->display == "(anonymous)");
  const Element& address = Field(*customer.complex, "address");
  REQUIRE(address.complex != nullptr);
  const Element& city = Field(*address.complex, "city");
  CHECK(city.complex == nullptr);
  CHECK(city.simple.builtin == "string");
  CHECK(city.name == (QName{"urn:t", "city"}));

  const Element& status = Field(order, "status");
  CHECK(status.complex == nullptr);
  CHECK(status.simple.builtin == "string");
  CHECK(status.simple.facets.enumeration == (std::vector<std::string>{"NEW", "PAID"}));
  CHECK(status.simple.display == "Status(NEW|PAID)");
  CHECK(status.type_display == "Status(NEW|PAID)");

  const Element& lines = Field(order, "lines");
  CHECK(lines.min_occurs == 0);
  CHECK(lines.max_occurs == kUnbounded);
  const Element& pair = Field(order, "pair");
  CHECK(pair.min_occurs == 2);
  CHECK(pair.max_occurs == 2);
  CHECK(Field(order, "note").nillable);
  CHECK_FALSE(Field(order, "pair").nillable);

  CHECK(FieldSignature(f.Op("Order").input) ==
        "customer: {address: {city: xsd:string}}, status: Status(NEW|PAID), lines[]: xsd:string, pair[]: "
        "xsd:int, "
        "note: xsd:string");
  CHECK(ResultSignature(f.Op("Order").output) == "()");
}

TEST_CASE("an element ref reaches a second namespace imported from another XSD file", "[wsdl][xsd]") {
  Fixture f;
  const ComplexType& annotate = f.Input("Annotate");
  CHECK(FieldNames(annotate) == (std::vector<std::string>{"subject", "Note", "Stamp"}));
  const Element& note = Field(annotate, "Note");
  CHECK(note.name == (QName{"urn:other", "Note"}));
  REQUIRE(note.complex != nullptr);
  CHECK(note.min_occurs == 1);
  const Element& stamp = Field(annotate, "Stamp");
  CHECK(stamp.name == (QName{"urn:other", "Stamp"}));
  CHECK(stamp.simple.builtin == "dateTime");
  CHECK(stamp.min_occurs == 0);  // the occurrence bounds of the reference, not of the declaration
  CHECK(stamp.max_occurs == 3);
}

TEST_CASE("elementFormDefault qualified and unqualified, and form= on one element, name local elements",
          "[wsdl][xsd]") {
  Fixture f;
  const ComplexType& annotate = f.Input("Annotate");
  CHECK(Field(annotate, "subject").name == (QName{"urn:t", "subject"}));  // urn:t is qualified
  const Element& note = Field(annotate, "Note");
  CHECK(Field(*note.complex, "text").name == (QName{"", "text"}));           // urn:other is not
  CHECK(Field(*note.complex, "lang").name == (QName{"urn:other", "lang"}));  // but form="qualified"
}

TEST_CASE("group and attributeGroup references are expanded in place", "[wsdl][xsd]") {
  Fixture f;
  const ComplexType& person = f.Input("Person");
  CHECK(FieldNames(person) == (std::vector<std::string>{"name", "email", "phone"}));
  CHECK(Field(person, "phone").min_occurs == 0);
  REQUIRE(person.attributes.size() == 2);
  CHECK(person.attributes[0].name.local == "createdBy");
  CHECK(person.attributes[0].required);
  CHECK(person.attributes[1].name.local == "createdAt");
  CHECK(person.attributes[1].type.builtin == "dateTime");
  CHECK(FieldSignature(f.Op("Person").input) ==
        "@createdBy: xsd:string, @createdAt?: xsd:dateTime, name: xsd:string, email: xsd:string, phone?: "
        "xsd:string");
}

TEST_CASE("a recursive named type refers to itself and nothing loops", "[wsdl][xsd]") {
  Fixture f;
  const Element& root = Field(f.Input("Tree"), "root");
  REQUIRE(root.complex != nullptr);
  const Element& children = Field(*root.complex, "children");
  CHECK(children.complex == root.complex);
  CHECK(children.min_occurs == 0);
  CHECK(children.max_occurs == kUnbounded);
  CHECK(FieldSignature(f.Op("Tree").input) == "root: tns:Node");
  CHECK(FieldSignature({&root, true}) == "label: xsd:string, children[]: tns:Node");

  RequestBuilder builder(f.Op("Tree"), 1);
  std::string envelope;
  std::vector<std::string> filled;
  REQUIRE(builder.Set("root.children[0].children[0].label", "leaf").ok());
  REQUIRE(builder.Build(&envelope, &filled).ok());
  CHECK(filled == (std::vector<std::string>{"root.label=sample", "root.children[0].label=sample"}));
  CHECK_THAT(envelope,
             Catch::Contains("<l:children><l:label>sample</l:label><l:children><l:label>leaf</l:label>"
                             "</l:children></l:children>"));
}

TEST_CASE("a global element whose named type refers back to the element keeps its type", "[wsdl][xsd]") {
  Fixture f;
  const Operation& op = f.Op("Folder");
  REQUIRE(op.input.root->complex != nullptr);
  const Element& inner = Field(*op.input.root->complex, "Folder");
  CHECK(inner.name == (QName{"urn:t", "Folder"}));
  CHECK(inner.complex == op.input.root->complex);
  CHECK(inner.min_occurs == 0);
  CHECK(inner.max_occurs == kUnbounded);
  CHECK(FieldSignature(op.input) == "title: xsd:string, Folder[]: tns:FolderType");
}

TEST_CASE("a global element with an anonymous type that refers to itself prints and builds without looping",
          "[wsdl][xsd]") {
  Fixture f;
  const Operation& op = f.Op("Section");
  REQUIRE(op.input.root->complex != nullptr);
  const Element& inner = Field(*op.input.root->complex, "Section");
  CHECK(inner.complex == op.input.root->complex);
  const std::string signature = FieldSignature(op.input);
  CHECK_THAT(signature, Catch::StartsWith("heading: xsd:string, Section?: "));
  CHECK(signature.size() < 200);

  RequestBuilder builder(op, 1);
  REQUIRE(builder.Set("Section.Section.heading", "deep").ok());
  std::string envelope;
  std::vector<std::string> filled;
  REQUIRE(builder.Build(&envelope, &filled).ok());
  CHECK_THAT(envelope,
             Catch::Contains("<l:Section><l:heading>sample</l:heading><l:Section><l:heading>deep</l:heading>"
                             "</l:Section></l:Section>"));
}

TEST_CASE("a recursive type that requires itself is refused when a sample is built, not looped over",
          "[wsdl][xsd]") {
  TempFolder folder;
  WsdlText w;
  w.schema =
      "<xsd:complexType name=\"Chain\"><xsd:sequence><xsd:element name=\"next\" "
      "type=\"tns:Chain\"/></xsd:sequence>"
      "</xsd:complexType>\n"
      "<xsd:element name=\"Link\"><xsd:complexType><xsd:sequence><xsd:element name=\"first\" "
      "type=\"tns:Chain\"/>"
      "</xsd:sequence></xsd:complexType></xsd:element>";
  w.operations = {{"Link", "", ""}};
  const std::unique_ptr<WsdlModel> model = LoadOk(folder.Write("svc.wsdl", w.ToString()));
  RequestBuilder builder(OperationOf(*model, "Link"), 1);
  std::string envelope;
  std::vector<std::string> filled;
  const Status s = builder.Build(&envelope, &filled);
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("requires itself"));
}

TEST_CASE("simple types derived in steps keep every step's facets", "[wsdl][xsd]") {
  TempFolder folder;
  WsdlText w;
  w.schema = R"(
      <xsd:simpleType name="Code"><xsd:restriction base="xsd:string"><xsd:pattern value="[A-Z]+"/>
        <xsd:maxLength value="4"/></xsd:restriction></xsd:simpleType>
      <xsd:simpleType name="ShortCode"><xsd:restriction base="tns:Code"><xsd:pattern value="A.*"/>
        <xsd:minLength value="2"/></xsd:restriction></xsd:simpleType>
      <xsd:simpleType name="Percent"><xsd:restriction base="xsd:decimal"><xsd:minInclusive value="0"/>
        <xsd:maxInclusive value="100"/><xsd:fractionDigits value="1"/></xsd:restriction></xsd:simpleType>
      <xsd:simpleType name="Ints"><xsd:list itemType="xsd:int"/></xsd:simpleType>
      <xsd:simpleType name="Size"><xsd:union memberTypes="xsd:int tns:Word"/></xsd:simpleType>
      <xsd:simpleType name="Word"><xsd:restriction base="xsd:string"><xsd:enumeration value="auto"/>
        </xsd:restriction></xsd:simpleType>
      <xsd:element name="Tune"><xsd:complexType><xsd:sequence>
        <xsd:element name="code" type="tns:ShortCode"/>
        <xsd:element name="share" type="tns:Percent"/>
        <xsd:element name="ids" type="tns:Ints"/>
        <xsd:element name="size" type="tns:Size"/>
      </xsd:sequence></xsd:complexType></xsd:element>)";
  w.operations = {{"Tune", "", ""}};
  const std::unique_ptr<WsdlModel> model = LoadOk(folder.Write("svc.wsdl", w.ToString()));
  const ComplexType& tune = *OperationOf(*model, "Tune").input.root->complex;
  const SimpleType& code = Field(tune, "code").simple;
  CHECK(code.builtin == "string");
  CHECK(code.facets.patterns.size() == 2);
  CHECK(code.facets.max_length == 4u);
  CHECK(code.facets.min_length == 2u);
  CHECK(CheckValue(code, "ABC").ok());
  CHECK_FALSE(CheckValue(code, "BC").ok());     // not A.*
  CHECK_FALSE(CheckValue(code, "Abc").ok());    // not [A-Z]+
  CHECK_FALSE(CheckValue(code, "ABCDE").ok());  // longer than 4
  CHECK_FALSE(CheckValue(code, "A").ok());      // shorter than 2
  const SimpleType& share = Field(tune, "share").simple;
  CHECK(share.builtin == "decimal");
  CHECK(CheckValue(share, "99.5").ok());
  CHECK_FALSE(CheckValue(share, "100.5").ok());
  CHECK_FALSE(CheckValue(share, "9.25").ok());
  const SimpleType& ids = Field(tune, "ids").simple;
  CHECK(ids.list);
  CHECK(ids.builtin == "int");
  CHECK(CheckValue(ids, "1 2 3").ok());
  const SimpleType& size = Field(tune, "size").simple;
  CHECK(size.builtin == "union");
  REQUIRE(size.members.size() == 2);
  CHECK(CheckValue(size, "12").ok());
  CHECK(CheckValue(size, "auto").ok());
  CHECK_FALSE(CheckValue(size, "big").ok());
}
