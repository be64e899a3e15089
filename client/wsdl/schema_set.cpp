#include "client/wsdl/schema_set.h"

#include <cctype>
#include <cstring>
#include <set>
#include <sstream>
#include <string_view>

#include "client/wsdl/http_fetch.h"

namespace lather::wsdl {
namespace {

constexpr int kMaxNesting = 64;  // anonymous types inside anonymous types: beyond, refused
constexpr char kSoapEncNs[] = "http://schemas.xmlsoap.org/soap/encoding/";

const std::set<std::string>& Builtins() {
  static const std::set<std::string> names = {
      "string", "normalizedString", "token", "language", "Name", "NCName", "ID", "IDREF", "IDREFS", "ENTITY",
      "ENTITIES", "NMTOKEN", "NMTOKENS", "anyURI", "QName", "NOTATION", "boolean", "decimal", "integer",
      "nonPositiveInteger", "negativeInteger", "long", "int", "short", "byte", "nonNegativeInteger",
      "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte", "positiveInteger", "float", "double",
      "duration", "dateTime", "time", "date", "gYearMonth", "gYear", "gMonthDay", "gDay", "gMonth", "hexBinary",
      "base64Binary", "anySimpleType"};
  return names;
}

bool IsXsd(pugi::xml_node node, const char* local) {
  return node.type() == pugi::node_element && std::strcmp(LocalPart(node.name()), local) == 0 &&
         NamespaceOfNode(node) == kXsdNs;
}

// An occurrence bound: a nonNegativeInteger (blanks around it collapsed, an optional '+'; beyond 2^64 - 1 read as
// that), or "unbounded" where `unbounded_allowed` (maxOccurs only); absent: 1.
bool ParseOccurs(const char* text, bool unbounded_allowed, uint64_t* out) {
  std::string_view value = text == nullptr ? "" : text;
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.remove_prefix(1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.remove_suffix(1);
  if (value.empty()) {
    *out = 1;
    return true;
  }
  if (value == "unbounded") {
    *out = kUnbounded;
    return unbounded_allowed;
  }
  if (value.front() == '+') value.remove_prefix(1);
  if (value.empty()) return false;
  uint64_t v = 0;
  for (char ch : value) {
    if (ch < '0' || ch > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(ch - '0');
    v = v > (kUnbounded - digit) / 10 ? kUnbounded : v * 10 + digit;
  }
  *out = v;
  return true;
}

std::string Display(pugi::xml_node node, const char* attr) {
  const char* text = node.attribute(attr).value();
  return *text != 0 ? text : "(anonymous)";
}

}  // namespace

bool IsBuiltinSimple(const std::string& local) { return Builtins().count(local) != 0; }

void CollectElements(const Particle& content, std::vector<const Particle*>* out) {
  if (content.kind == Particle::Kind::kElement) {
    out->push_back(&content);
    return;
  }
  for (const Particle& p : content.children) CollectElements(p, out);
}

Status SchemaSet::AddSchema(pugi::xml_node schema, const SourceDocument* source, std::vector<std::string> chain) {
  SchemaInfo& info = schemas_.emplace_back();
  info.node = schema;
  info.source = source;
  info.target_ns = schema.attribute("targetNamespace").value();
  info.elements_qualified = std::strcmp(schema.attribute("elementFormDefault").value(), "qualified") == 0;
  info.attributes_qualified = std::strcmp(schema.attribute("attributeFormDefault").value(), "qualified") == 0;
  Status s = Index(info);
  if (!s.ok()) return s;
  chain.push_back(source->url);
  for (pugi::xml_node child : schema.children()) {
    const bool include = IsXsd(child, "include");
    if (!include && !IsXsd(child, "import") && !IsXsd(child, "redefine")) continue;
    if (IsXsd(child, "redefine")) return Unsupported({&info, 0}, child, "xsd:redefine");
    const char* location = child.attribute("schemaLocation").value();
    if (*location == 0) continue;  // an import of a namespace declared elsewhere (inline, or built in)
    const std::string ns = child.attribute("namespace").value();
    if (!include && (ns == kXsdNs || ns == kSoapEncNs || ns == "http://www.w3.org/XML/1998/namespace")) continue;
    const std::string url = ResolveUrl(source->url, location);
    const SourceDocument* imported = nullptr;
    bool fresh = false;
    s = documents_->Load(url, chain, &imported, &fresh);
    if (!s.ok()) return Status(s.kind() == Status::Kind::kInvalidArgument ? Status::InvalidArgument(s.message())
                                                                          : s);
    if (!fresh) continue;
    pugi::xml_node root = imported->doc.document_element();
    if (!IsXsd(root, "schema")) {
      return Status::InvalidArgument(url + ": not an XML Schema (its root is <" + std::string(root.name()) + ">)");
    }
    if (include && !root.attribute("targetNamespace")) {  // a chameleon include takes the includer's namespace
      root.append_attribute("targetNamespace") = info.target_ns.c_str();
    }
    s = AddSchema(root, imported, chain);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status SchemaSet::Index(const SchemaInfo& info) {
  for (pugi::xml_node child : info.node.children()) {
    if (child.type() != pugi::node_element) continue;
    const char* local = LocalPart(child.name());
    std::map<QName, Decl>* table = nullptr;
    if (IsXsd(child, "element")) table = &elements_;
    else if (IsXsd(child, "complexType")) table = &complex_types_;
    else if (IsXsd(child, "simpleType")) table = &simple_types_;
    else if (IsXsd(child, "group")) table = &groups_;
    else if (IsXsd(child, "attributeGroup")) table = &attribute_groups_;
    else if (IsXsd(child, "attribute")) table = &attributes_;
    else if (std::strcmp(local, "annotation") == 0 || std::strcmp(local, "import") == 0 ||
             std::strcmp(local, "include") == 0 || std::strcmp(local, "redefine") == 0 ||
             std::strcmp(local, "notation") == 0)
      continue;
    else
      return Unsupported({&info, 0}, child, "a top-level <" + std::string(child.name()) + "> in a schema");
    (*table)[QName{info.target_ns, child.attribute("name").value()}] = Decl{child, &info};
  }
  return Status::Ok();
}

Status SchemaSet::Unsupported(const Context& c, pugi::xml_node node, const std::string& why) const {
  return Status::InvalidArgument(documents_->Where(*c.schema->source, node) + ": cannot model " + why);
}

Status SchemaSet::ReadOccurs(const Context& c, pugi::xml_node node, uint64_t* min, uint64_t* max) const {
  // XML Schema 1.0 part 1, 3.9.2 and 3.9.6: minOccurs is a nonNegativeInteger, maxOccurs one or "unbounded", and
  // minOccurs <= maxOccurs.
  if (!ParseOccurs(node.attribute("minOccurs").value(), false, min)) {
    return Unsupported(c, node, std::string("minOccurs=\"") + node.attribute("minOccurs").value() +
                                    "\": not a non-negative integer");
  }
  if (!ParseOccurs(node.attribute("maxOccurs").value(), true, max)) {
    return Unsupported(c, node, std::string("maxOccurs=\"") + node.attribute("maxOccurs").value() +
                                    "\": neither a non-negative integer nor unbounded");
  }
  if (*min > *max) {
    return Unsupported(c, node, "minOccurs " + std::to_string(*min) + " greater than maxOccurs " + std::to_string(*max));
  }
  return Status::Ok();
}

Status SchemaSet::ResolveQName(const Context& c, pugi::xml_node node, const char* attr, QName* out) const {
  const std::string text = node.attribute(attr).value();
  const size_t colon = text.find(':');
  const std::string prefix = colon == std::string::npos ? "" : text.substr(0, colon);
  out->local = colon == std::string::npos ? text : text.substr(colon + 1);
  out->ns = NamespaceInScope(node, prefix);
  if (out->ns.empty() && !prefix.empty()) {
    return Unsupported(c, node, attr + std::string("=\"") + text + "\": the prefix '" + prefix + "' is not declared");
  }
  return Status::Ok();
}

Status SchemaSet::GlobalElement(const QName& name, const Element** out) {
  auto done = compiled_elements_.find(name);
  if (done != compiled_elements_.end()) {
    *out = done->second;
    return Status::Ok();
  }
  auto decl = elements_.find(name);
  if (decl == elements_.end()) return Status::InvalidArgument("no schema declares the element " + name.ToString());
  Element& e = element_store_.emplace_back();
  compiled_elements_[name] = &e;  // before compiling: a recursive reference finds it
  Status s = CompileElement({decl->second.schema, 0}, decl->second.node, true, &e);
  if (!s.ok()) {
    compiled_elements_.erase(name);
    return s;
  }
  *out = &e;
  return Status::Ok();
}

Status SchemaSet::GlobalType(const QName& name, const ComplexType** complex, SimpleType* simple) {
  *complex = nullptr;
  if (schemas_.empty()) {
    if (name.ns != kXsdNs) return Status::InvalidArgument("no schema declares the type " + name.ToString());
    static const SchemaInfo none;
    return TypeByName({&none, 0}, name, complex, simple);
  }
  return TypeByName({&schemas_.front(), 0}, name, complex, simple);
}

Status SchemaSet::TypeByName(const Context& c, const QName& name, const ComplexType** complex, SimpleType* simple) {
  *complex = nullptr;
  if (name.ns == kXsdNs && name.local == "anyType") {
    static const ComplexType any = [] {
      ComplexType t;
      t.name = {kXsdNs, "anyType"};
      t.display = "xsd:anyType";
      t.any_type = true;
      return t;
    }();
    *complex = &any;
    return Status::Ok();
  }
  if (name.ns == kXsdNs) {
    if (!IsBuiltinSimple(name.local)) return Status::InvalidArgument("xsd:" + name.local + " is not an XSD built-in type");
    simple->builtin = name.local;
    simple->display = "xsd:" + name.local;
    return Status::Ok();
  }
  if (name.ns == kSoapEncNs) {
    return Status::InvalidArgument("the type soapenc:" + name.local + " belongs to SOAP encoding (rpc/encoded), "
                                   "which is not supported");
  }
  if (complex_types_.count(name) != 0) return NamedComplex(name, complex);
  if (simple_types_.count(name) != 0) return NamedSimple(c, name, simple);
  return Status::InvalidArgument("no schema declares the type " + name.ToString() +
                                 (schemas_.empty() ? "" : " (imported without a schemaLocation?)"));
}

Status SchemaSet::NamedComplex(const QName& name, const ComplexType** out) {
  auto done = compiled_types_.find(name);
  if (done != compiled_types_.end()) {
    *out = done->second;
    return Status::Ok();
  }
  const Decl& decl = complex_types_.at(name);
  ComplexType& t = type_store_.emplace_back();
  compiled_types_[name] = &t;
  *out = &t;  // before compiling: an element of this type that its content refers back to (ref=) sees it
  Status s = CompileComplex({decl.schema, 0}, decl.node, &t);
  if (!s.ok()) {
    compiled_types_.erase(name);
    *out = nullptr;
    return s;
  }
  return Status::Ok();
}

Status SchemaSet::NamedSimple(const Context& c, const QName& name, SimpleType* out) {
  const Decl& decl = simple_types_.at(name);
  if (c.depth > kMaxNesting) return Unsupported(c, decl.node, "simple types derived more than 64 levels deep");
  Status s = CompileSimple({decl.schema, c.depth + 1}, decl.node, out);
  if (s.ok() && out->facets.enumeration.empty()) out->display = decl.node.attribute("name").value();
  return s;
}

Status SchemaSet::CompileElement(const Context& c, pugi::xml_node node, bool global, Element* out) {
  if (c.depth > kMaxNesting) return Unsupported(c, node, "anonymous types nested more than 64 levels deep");
  if (Status s = ReadOccurs(c, node, &out->min_occurs, &out->max_occurs); !s.ok()) return s;
  if (node.attribute("ref")) {
    QName ref;
    Status s = ResolveQName(c, node, "ref", &ref);
    if (!s.ok()) return s;
    const Element* target = nullptr;
    s = GlobalElement(ref, &target);
    if (!s.ok()) return s;
    const uint64_t min = out->min_occurs, max = out->max_occurs;
    *out = *target;
    out->min_occurs = min;
    out->max_occurs = max;
    return Status::Ok();
  }
  if (std::strcmp(node.attribute("abstract").value(), "true") == 0) {
    return Unsupported(c, node, "the abstract element '" + std::string(node.attribute("name").value()) +
                                    "' (substitution groups)");
  }
  const char* form = node.attribute("form").value();
  const bool qualified = global || (*form != 0 ? std::strcmp(form, "qualified") == 0 : c.schema->elements_qualified);
  out->name = QName{qualified ? c.schema->target_ns : "", node.attribute("name").value()};
  out->nillable = std::strcmp(node.attribute("nillable").value(), "true") == 0;
  if (node.attribute("type")) {
    QName type;
    Status s = ResolveQName(c, node, "type", &type);
    if (!s.ok()) return s;
    out->type_display = node.attribute("type").value();
    s = TypeByName(c, type, &out->complex, &out->simple);
    if (!s.ok()) return Status::InvalidArgument(documents_->Where(*c.schema->source, node) + ": " + s.message());
    if (out->complex == nullptr && !out->simple.facets.enumeration.empty()) {
      out->type_display = out->simple.display;
    }
    return Status::Ok();
  }
  for (pugi::xml_node child : node.children()) {
    if (IsXsd(child, "complexType")) {
      ComplexType& t = type_store_.emplace_back();
      out->complex = &t;
      out->type_display = "(anonymous)";
      return CompileComplex({c.schema, c.depth + 1}, child, &t);
    }
    if (IsXsd(child, "simpleType")) {
      Status s = CompileSimple({c.schema, c.depth + 1}, child, &out->simple);
      out->type_display = out->simple.display;
      return s;
    }
  }
  static const SchemaInfo none;
  return TypeByName({&none, 0}, QName{kXsdNs, "anyType"}, &out->complex, &out->simple);  // no type: xsd:anyType
}

Status SchemaSet::CompileComplex(const Context& c, pugi::xml_node node, ComplexType* out) {
  out->name = QName{c.schema->target_ns, node.attribute("name").value()};
  out->display = Display(node, "name");
  out->mixed = std::strcmp(node.attribute("mixed").value(), "true") == 0;
  out->content.kind = Particle::Kind::kSequence;
  if (std::strcmp(node.attribute("abstract").value(), "true") == 0) {
    return Unsupported(c, node, "the abstract type '" + out->display + "' (xsi:type derivation)");
  }
  for (pugi::xml_node child : node.children()) {
    if (child.type() != pugi::node_element || IsXsd(child, "annotation")) continue;
    if (IsXsd(child, "simpleContent") || IsXsd(child, "complexContent")) {
      const bool simple = IsXsd(child, "simpleContent");
      for (pugi::xml_node step : child.children()) {
        if (step.type() != pugi::node_element || IsXsd(step, "annotation")) continue;
        const bool extension = IsXsd(step, "extension");
        if (!extension && !IsXsd(step, "restriction")) return Unsupported(c, step, "<" + std::string(step.name()) + ">");
        QName base;
        Status s = ResolveQName(c, step, "base", &base);
        if (!s.ok()) return s;
        if (base.ns == kSoapEncNs) return Unsupported(c, step, "a SOAP-encoded array (soapenc:" + base.local + "): rpc/encoded types are not supported");
        const ComplexType* base_complex = nullptr;
        SimpleType base_simple;
        s = TypeByName(c, base, &base_complex, &base_simple);
        if (!s.ok()) return Status::InvalidArgument(documents_->Where(*c.schema->source, step) + ": " + s.message());
        if (base_complex == out) return Unsupported(c, step, "a type derived from itself");
        if (simple) {
          out->simple_content = true;
          if (base_complex != nullptr) {
            if (!base_complex->simple_content) return Unsupported(c, step, "simpleContent derived from " + base.ToString() + ", which has element content");
            out->value = base_complex->value;
            out->attributes = base_complex->attributes;
          } else {
            out->value = base_simple;
          }
          if (!extension) {  // the facets of the restriction apply to the base's value
            s = ApplyFacets(c, step, &out->value);
            if (!s.ok()) return s;
          }
        } else if (base_complex != nullptr && !base_complex->any_type) {
          out->attributes = base_complex->attributes;
          if (extension) out->content.children.push_back(base_complex->content);
        } else if (base_complex == nullptr) {
          return Unsupported(c, step, "complexContent derived from the simple type " + base.ToString());
        }
        std::vector<Attribute> own;
        s = CompileAttributes(c, step, &own);
        if (!s.ok()) return s;
        for (Attribute& a : own) {
          bool replaced = false;
          for (Attribute& b : out->attributes) {
            if (b.name == a.name) {
              b = a;
              replaced = true;
            }
          }
          if (!replaced) out->attributes.push_back(a);
        }
        if (!simple) {
          ComplexType derived;
          s = CompileContent(c, step, &derived);
          if (!s.ok()) return s;
          if (!derived.content.children.empty()) out->content.children.push_back(derived.content);
        }
      }
      return Status::Ok();
    }
  }
  Status s = CompileContent(c, node, out);
  if (!s.ok()) return s;
  return CompileAttributes(c, node, &out->attributes);
}

Status SchemaSet::CompileContent(const Context& c, pugi::xml_node node, ComplexType* out) {
  for (pugi::xml_node child : node.children()) {
    if (IsXsd(child, "sequence") || IsXsd(child, "choice") || IsXsd(child, "all") || IsXsd(child, "group")) {
      Particle p;
      Status s = CompileParticle(c, child, &p);
      if (!s.ok()) return s;
      out->content.children.push_back(std::move(p));
    } else if (child.type() == pugi::node_element && !IsXsd(child, "annotation") && !IsXsd(child, "attribute") &&
               !IsXsd(child, "attributeGroup") && !IsXsd(child, "anyAttribute") && !IsXsd(child, "assert")) {
      return Unsupported(c, child, "<" + std::string(child.name()) + "> in a complex type");
    }
  }
  return Status::Ok();
}

Status SchemaSet::CompileParticle(const Context& c, pugi::xml_node node, Particle* out) {
  if (c.depth > kMaxNesting) return Unsupported(c, node, "model groups nested more than 64 levels deep");
  if (Status s = ReadOccurs(c, node, &out->min_occurs, &out->max_occurs); !s.ok()) return s;
  if (IsXsd(node, "group")) {
    QName ref;
    Status s = ResolveQName(c, node, "ref", &ref);
    if (!s.ok()) return s;
    auto group = groups_.find(ref);
    if (group == groups_.end()) return Unsupported(c, node, "a reference to the undeclared group " + ref.ToString());
    for (pugi::xml_node child : group->second.node.children()) {
      if (IsXsd(child, "sequence") || IsXsd(child, "choice") || IsXsd(child, "all")) {
        const uint64_t min = out->min_occurs, max = out->max_occurs;
        s = CompileParticle({group->second.schema, c.depth + 1}, child, out);
        out->min_occurs = min;
        out->max_occurs = max;
        return s;
      }
    }
    return Unsupported(c, group->second.node, "the group " + ref.ToString() + " without a model group");
  }
  out->kind = IsXsd(node, "choice") ? Particle::Kind::kChoice
              : IsXsd(node, "all")  ? Particle::Kind::kAll
                                    : Particle::Kind::kSequence;
  const Context inner{c.schema, c.depth + 1};
  for (pugi::xml_node child : node.children()) {
    if (child.type() != pugi::node_element || IsXsd(child, "annotation")) continue;
    Particle p;
    if (IsXsd(child, "element")) {
      Element& e = element_store_.emplace_back();
      Status s = CompileElement(inner, child, false, &e);
      if (!s.ok()) return s;
      p.kind = Particle::Kind::kElement;
      p.element = &e;
      p.min_occurs = e.min_occurs;
      p.max_occurs = e.max_occurs;
    } else if (IsXsd(child, "any")) {
      p.kind = Particle::Kind::kAny;
      if (Status s = ReadOccurs(c, child, &p.min_occurs, &p.max_occurs); !s.ok()) return s;
    } else if (IsXsd(child, "sequence") || IsXsd(child, "choice") || IsXsd(child, "group") || IsXsd(child, "all")) {
      Status s = CompileParticle(inner, child, &p);
      if (!s.ok()) return s;
    } else {
      return Unsupported(c, child, "<" + std::string(child.name()) + "> in a model group");
    }
    out->children.push_back(std::move(p));
  }
  return Status::Ok();
}

Status SchemaSet::CompileAttributes(const Context& c, pugi::xml_node parent, std::vector<Attribute>* out) {
  for (pugi::xml_node child : parent.children()) {
    if (IsXsd(child, "attributeGroup")) {
      QName ref;
      Status s = ResolveQName(c, child, "ref", &ref);
      if (!s.ok()) return s;
      auto group = attribute_groups_.find(ref);
      if (group == attribute_groups_.end()) return Unsupported(c, child, "a reference to the undeclared attribute group " + ref.ToString());
      if (c.depth > kMaxNesting) return Unsupported(c, child, "attribute groups nested more than 64 levels deep");
      s = CompileAttributes({group->second.schema, c.depth + 1}, group->second.node, out);
      if (!s.ok()) return s;
      continue;
    }
    if (!IsXsd(child, "attribute")) continue;
    const char* use = child.attribute("use").value();
    if (std::strcmp(use, "prohibited") == 0) continue;
    Attribute a;
    pugi::xml_node decl = child;
    const SchemaInfo* schema = c.schema;
    bool global = false;
    if (child.attribute("ref")) {
      QName ref;
      Status s = ResolveQName(c, child, "ref", &ref);
      if (!s.ok()) return s;
      if (ref.ns == "http://www.w3.org/XML/1998/namespace") {
        a.name = ref;
        a.required = std::strcmp(use, "required") == 0;
        out->push_back(a);
        continue;
      }
      auto found = attributes_.find(ref);
      if (found == attributes_.end()) return Unsupported(c, child, "a reference to the undeclared attribute " + ref.ToString());
      decl = found->second.node;
      schema = found->second.schema;
      global = true;
    }
    const char* form = decl.attribute("form").value();
    const bool qualified = global || (*form != 0 ? std::strcmp(form, "qualified") == 0 : schema->attributes_qualified);
    a.name = QName{qualified ? schema->target_ns : "", decl.attribute("name").value()};
    a.required = std::strcmp(use, "required") == 0;
    a.fixed = child.attribute("fixed") ? child.attribute("fixed").value() : decl.attribute("fixed").value();
    const Context here{schema, c.depth + 1};
    if (decl.attribute("type")) {
      QName type;
      Status s = ResolveQName(here, decl, "type", &type);
      if (!s.ok()) return s;
      const ComplexType* complex = nullptr;
      s = TypeByName(here, type, &complex, &a.type);
      if (!s.ok()) return Status::InvalidArgument(documents_->Where(*schema->source, decl) + ": " + s.message());
      if (complex != nullptr) return Unsupported(here, decl, "an attribute of a complex type");
      if (a.type.facets.enumeration.empty()) a.type.display = decl.attribute("type").value();
    } else if (pugi::xml_node st = decl.find_child([](pugi::xml_node n) { return IsXsd(n, "simpleType"); })) {
      Status s = CompileSimple(here, st, &a.type);
      if (!s.ok()) return s;
    }
    out->push_back(a);
  }
  return Status::Ok();
}

Status SchemaSet::CompileSimple(const Context& c, pugi::xml_node node, SimpleType* out) {
  if (c.depth > kMaxNesting) return Unsupported(c, node, "simple types nested more than 64 levels deep");
  const Context inner{c.schema, c.depth + 1};
  // The type named by `attr` of `step`, or the anonymous xsd:simpleType inside it.
  auto base_of = [&](pugi::xml_node step, const char* attr, SimpleType* base) -> Status {
    if (step.attribute(attr)) {
      QName name;
      Status s = ResolveQName(c, step, attr, &name);
      if (!s.ok()) return s;
      const ComplexType* complex = nullptr;
      s = TypeByName(inner, name, &complex, base);
      if (!s.ok()) return Status::InvalidArgument(documents_->Where(*c.schema->source, step) + ": " + s.message());
      if (complex != nullptr) return Unsupported(c, step, "a simple type derived from the complex type " + name.ToString());
      return Status::Ok();
    }
    pugi::xml_node anonymous = step.find_child([](pugi::xml_node n) { return IsXsd(n, "simpleType"); });
    if (!anonymous) return Unsupported(c, step, "<" + std::string(step.name()) + "> without a base type");
    return CompileSimple(inner, anonymous, base);
  };
  for (pugi::xml_node step : node.children()) {
    if (step.type() != pugi::node_element || IsXsd(step, "annotation")) continue;
    if (IsXsd(step, "restriction")) {
      Status s = base_of(step, "base", out);
      if (!s.ok()) return s;
      return ApplyFacets(c, step, out);
    }
    if (IsXsd(step, "list")) {
      Status s = base_of(step, "itemType", out);
      if (!s.ok()) return s;
      out->list = true;
      out->display = "list of " + out->display;
      return Status::Ok();
    }
    if (IsXsd(step, "union")) {
      std::istringstream members(step.attribute("memberTypes").value());
      std::string member;
      std::string display;
      while (members >> member) {
        SimpleType t;
        pugi::xml_attribute a = step.append_attribute("lather-member");  // resolve the name as written here
        a = member.c_str();
        Status s = base_of(step, "lather-member", &t);
        step.remove_attribute(a);
        if (!s.ok()) return s;
        display += (display.empty() ? "" : "|") + t.display;
        out->members.push_back(std::move(t));
      }
      for (pugi::xml_node anonymous : step.children()) {
        if (!IsXsd(anonymous, "simpleType")) continue;
        SimpleType t;
        Status s = CompileSimple(inner, anonymous, &t);
        if (!s.ok()) return s;
        display += (display.empty() ? "" : "|") + t.display;
        out->members.push_back(std::move(t));
      }
      if (out->members.empty()) return Unsupported(c, step, "a union without member types");
      out->builtin = "union";
      out->display = "union(" + display + ")";
      return Status::Ok();
    }
    return Unsupported(c, step, "<" + std::string(step.name()) + "> in a simple type");
  }
  return Unsupported(c, node, "a simple type without restriction, list or union");
}

Status SchemaSet::ApplyFacets(const Context& c, pugi::xml_node restriction, SimpleType* out) {
  Facets& f = out->facets;
  std::vector<std::string> enumeration, patterns;
  for (pugi::xml_node facet : restriction.children()) {
    if (facet.type() != pugi::node_element || IsXsd(facet, "annotation") || IsXsd(facet, "simpleType")) continue;
    if (IsXsd(facet, "attribute") || IsXsd(facet, "attributeGroup") || IsXsd(facet, "anyAttribute")) continue;
    const std::string name = LocalPart(facet.name());
    const std::string value = facet.attribute("value").value();
    auto count = [&](std::optional<uint64_t>* target) -> Status {
      char* end = nullptr;
      const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end != 0) return Unsupported(c, facet, "the facet " + name + "=\"" + value + "\"");
      *target = v;
      return Status::Ok();
    };
    Status s;
    if (name == "enumeration") enumeration.push_back(value);
    else if (name == "pattern") patterns.push_back(value);
    else if (name == "length") s = count(&f.length);
    else if (name == "minLength") s = count(&f.min_length);
    else if (name == "maxLength") s = count(&f.max_length);
    else if (name == "minInclusive") f.min_inclusive = value;
    else if (name == "maxInclusive") f.max_inclusive = value;
    else if (name == "minExclusive") f.min_exclusive = value;
    else if (name == "maxExclusive") f.max_exclusive = value;
    else if (name == "totalDigits" || name == "fractionDigits") {
      std::optional<uint64_t> v;
      s = count(&v);
      if (s.ok()) (name == "totalDigits" ? f.total_digits : f.fraction_digits) = static_cast<uint32_t>(*v);
    } else if (name == "whiteSpace") {
      continue;  // the value checks collapse white space for every type but the strings
    } else {
      return Unsupported(c, facet, "the facet <" + std::string(facet.name()) + ">");
    }
    if (!s.ok()) return s;
  }
  if (!enumeration.empty()) {
    f.enumeration = enumeration;
    std::string shown;
    for (const std::string& e : enumeration) shown += (shown.empty() ? "" : "|") + e;
    const char* name = restriction.parent().attribute("name").value();
    out->display = std::string(*name != 0 ? name : out->display.c_str()) + "(" + shown + ")";
  }
  if (!patterns.empty()) f.patterns.push_back(patterns);
  return Status::Ok();
}

std::vector<SchemaDocument> SchemaSet::SchemaDocuments() const {
  std::vector<SchemaDocument> out;
  int inline_index = 0;
  for (const SchemaInfo& info : schemas_) {
    if (info.node == info.source->doc.document_element()) {
      out.push_back({info.source->url, info.target_ns, info.source->text});
      continue;
    }
    // An inline schema as a document of its own, with the namespaces declared around it in the WSDL.
    pugi::xml_document doc;
    pugi::xml_node copy = doc.append_copy(info.node);
    for (pugi::xml_node up = info.node.parent(); up && up.type() == pugi::node_element; up = up.parent()) {
      for (pugi::xml_attribute a : up.attributes()) {
        const bool declaration = std::strcmp(a.name(), "xmlns") == 0 || std::strncmp(a.name(), "xmlns:", 6) == 0;
        if (declaration && !copy.attribute(a.name())) copy.append_attribute(a.name()) = a.value();
      }
    }
    std::ostringstream text;
    doc.save(text, "", pugi::format_raw);
    out.push_back({info.source->url + "#schema" + std::to_string(++inline_index), info.target_ns, text.str()});
  }
  return out;
}

}  // namespace lather::wsdl
