#include "client/wsdl/wsdl_model.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace lather::wsdl {
namespace {

constexpr char kWsdlNs[] = "http://schemas.xmlsoap.org/wsdl/";
constexpr char kSoap11BindingNs[] = "http://schemas.xmlsoap.org/wsdl/soap/";
constexpr char kSoap12BindingNs[] = "http://schemas.xmlsoap.org/wsdl/soap12/";

bool Is(pugi::xml_node node, const char* ns, const char* local) {
  return node.type() == pugi::node_element && std::strcmp(LocalPart(node.name()), local) == 0 &&
         NamespaceOfNode(node) == ns;
}

bool IsSoapExt(pugi::xml_node node, const char* local) {
  return Is(node, kSoap11BindingNs, local) || Is(node, kSoap12BindingNs, local);
}

pugi::xml_node Child(pugi::xml_node parent, const char* ns, const char* local) {
  for (pugi::xml_node c : parent.children()) {
    if (Is(c, ns, local)) return c;
  }
  return {};
}

pugi::xml_node SoapChild(pugi::xml_node parent, const char* local) {
  for (pugi::xml_node c : parent.children()) {
    if (IsSoapExt(c, local)) return c;
  }
  return {};
}

QName Resolve(pugi::xml_node node, const char* attr) {
  const std::string text = node.attribute(attr).value();
  const size_t colon = text.find(':');
  return QName{NamespaceInScope(node, colon == std::string::npos ? "" : text.substr(0, colon)),
               colon == std::string::npos ? text : text.substr(colon + 1)};
}

std::string Occurs(const Element& e) {
  if (e.max_occurs > 1) return "[]";
  return e.min_occurs == 0 ? "?" : "";
}

std::string Fields(const MessageShape& message, std::vector<const ComplexType*>* open);

// `open`: the anonymous types being printed around `e`; one of them again is a recursion, not expanded.
std::string TypeText(const Element& e, std::vector<const ComplexType*>* open) {
  if (e.complex != nullptr && e.type_display == "(anonymous)") {
    if (std::find(open->begin(), open->end(), e.complex) != open->end()) return "(recursive)";
    return "{" + Fields(MessageShape{&e, false}, open) + "}";
  }
  return e.type_display.empty() ? e.simple.display : e.type_display;
}

std::string Fields(const MessageShape& message, std::vector<const ComplexType*>* open) {
  if (message.root == nullptr || message.root->complex == nullptr) return "";
  const ComplexType& t = *message.root->complex;
  open->push_back(&t);
  std::string out;
  if (t.simple_content) out = "value: " + t.value.display;
  for (const Attribute& a : t.attributes) {
    out += (out.empty() ? "@" : ", @") + a.name.local + (a.required ? "" : "?") + ": " + a.type.display;
  }
  std::vector<const Particle*> fields;
  CollectElements(t.content, &fields);
  for (const Particle* p : fields) {
    out += (out.empty() ? "" : ", ") + p->element->name.local + Occurs(*p->element) + ": " + TypeText(*p->element, open);
  }
  if (t.any_type) out += (out.empty() ? "" : ", ") + std::string("(any content)");
  open->pop_back();
  return out;
}

}  // namespace

const Operation* Port::Find(const std::string& op_name) const {
  for (const Operation& op : operations) {
    if (op.name == op_name) return &op;
  }
  return nullptr;
}

Status WsdlModel::FindPort(const std::string& wanted, const Port** out) const {
  std::string names;
  for (const Port& p : ports_) {
    if (wanted.empty() ? p.soap_version == 1 : p.name == wanted) {
      *out = &p;
      return Status::Ok();
    }
    names += (names.empty() ? "" : ", ") + p.name;
  }
  if (wanted.empty() && !ports_.empty()) {
    *out = &ports_.front();
    return Status::Ok();
  }
  if (ports_.empty()) return Status::InvalidArgument(url_ + ": the WSDL has no SOAP port");
  return Status::InvalidArgument("no port '" + wanted + "' in " + url_ + " (ports: " + names + ")");
}

// Reads the definitions of every WSDL document into tables by QName, then builds the ports.
class WsdlModel::Reader {
 public:
  explicit Reader(WsdlModel* model) : m_(model) {}

  Status Read(const std::string& url) {
    Status s = AddDefinitions(url, {});
    if (!s.ok()) return s;
    for (const auto& [qname, decl] : services_) {
      for (pugi::xml_node port : decl.node.children()) {
        if (!Is(port, kWsdlNs, "port")) continue;
        s = AddPort(port, *decl.source);
        if (!s.ok()) return s;
      }
    }
    if (services_.empty()) return Status::InvalidArgument(url + ": the WSDL declares no wsdl:service");
    return Status::Ok();
  }

 private:
  struct Decl {
    pugi::xml_node node;
    const SourceDocument* source = nullptr;
  };

  // Reads the document at `url` once: a WSDL's definitions (after those it imports), or a schema that a
  // wsdl:import names.
  Status AddDefinitions(const std::string& url, const std::vector<std::string>& chain) {
    const SourceDocument* doc = nullptr;
    bool fresh = false;
    Status s = m_->documents_.Load(url, chain, &doc, &fresh);
    if (!s.ok() || !fresh) return s;
    pugi::xml_node root = doc->doc.document_element();
    if (!chain.empty() && Is(root, kXsdNs, "schema")) return m_->schemas_.AddSchema(root, doc, chain);
    if (!Is(root, kWsdlNs, "definitions")) {
      if (Is(root, "http://www.w3.org/ns/wsdl", "description")) {
        return Status::InvalidArgument(url + ": a WSDL 2.0 description; Lather reads WSDL 1.1");
      }
      return Status::InvalidArgument(url + ": not a WSDL 1.1 document (its root is <" + std::string(root.name()) +
                                     ">, not wsdl:definitions)");
    }
    std::vector<std::string> inner = chain;
    inner.push_back(url);
    for (pugi::xml_node child : root.children()) {
      if (!Is(child, kWsdlNs, "import")) continue;
      s = AddDefinitions(ResolveUrl(url, child.attribute("location").value()), inner);
      if (!s.ok()) return s;
    }
    return ReadBody(doc, root, root.attribute("targetNamespace").value(), inner);
  }

  Status ReadBody(const SourceDocument* doc, pugi::xml_node root, const std::string& tns,
                  const std::vector<std::string>& chain) {
    for (pugi::xml_node child : root.children()) {
      if (Is(child, kWsdlNs, "types")) {
        for (pugi::xml_node schema : child.children()) {
          if (schema.type() != pugi::node_element || Is(schema, kWsdlNs, "documentation")) continue;
          if (!Is(schema, kXsdNs, "schema")) {
            return Status::InvalidArgument(m_->documents_.Where(*doc, schema) + ": cannot model <" +
                                           std::string(schema.name()) + "> in wsdl:types (only xsd:schema)");
          }
          Status s = m_->schemas_.AddSchema(schema, doc, chain);
          if (!s.ok()) return s;
        }
      }
      std::map<QName, Decl>* table = Is(child, kWsdlNs, "message")    ? &messages_
                                     : Is(child, kWsdlNs, "portType") ? &port_types_
                                     : Is(child, kWsdlNs, "binding")  ? &bindings_
                                     : Is(child, kWsdlNs, "service")  ? &services_
                                                                      : nullptr;
      if (table != nullptr) (*table)[QName{tns, child.attribute("name").value()}] = Decl{child, doc};
    }
    return Status::Ok();
  }

  Status Find(std::map<QName, Decl>& table, const QName& name, const char* what, const Decl** out) {
    auto it = table.find(name);
    if (it == table.end()) return Status::InvalidArgument("no wsdl:" + std::string(what) + " " + name.ToString());
    *out = &it->second;
    return Status::Ok();
  }

  Status AddPort(pugi::xml_node port, const SourceDocument& source) {
    const std::string where = m_->documents_.Where(source, port);
    const Decl* binding = nullptr;
    Status s = Find(bindings_, Resolve(port, "binding"), "binding", &binding);
    if (!s.ok()) return Status::InvalidArgument(where + ": port " + port.attribute("name").value() + ": " + s.message());
    pugi::xml_node soap_binding = SoapChild(binding->node, "binding");
    if (!soap_binding) {
      m_->notes_.push_back("port " + std::string(port.attribute("name").value()) + " skipped: its binding " +
                           binding->node.attribute("name").value() + " is not a SOAP binding");
      return Status::Ok();
    }
    Port p;
    p.name = port.attribute("name").value();
    p.binding = binding->node.attribute("name").value();
    p.soap_version = Is(soap_binding, kSoap12BindingNs, "binding") ? 2 : 1;
    pugi::xml_node address = SoapChild(port, "address");
    p.address = address.attribute("location").value();
    const std::string default_style = *soap_binding.attribute("style").value() ? soap_binding.attribute("style").value()
                                                                               : "document";
    const Decl* port_type = nullptr;
    s = Find(port_types_, Resolve(binding->node, "type"), "portType", &port_type);
    if (!s.ok()) return Status::InvalidArgument(m_->documents_.Where(*binding->source, binding->node) + ": " + s.message());
    for (pugi::xml_node bop : binding->node.children()) {
      if (!Is(bop, kWsdlNs, "operation")) continue;
      Operation op;
      s = AddOperation(bop, *binding, *port_type, default_style, &op);
      if (!s.ok()) return s;
      p.operations.push_back(std::move(op));
    }
    m_->ports_.push_back(std::move(p));
    return Status::Ok();
  }

  Status AddOperation(pugi::xml_node bop, const Decl& binding, const Decl& port_type, const std::string& default_style,
                      Operation* op) {
    const std::string where = m_->documents_.Where(*binding.source, bop);
    op->name = bop.attribute("name").value();
    pugi::xml_node soap_op = SoapChild(bop, "operation");
    op->action = soap_op.attribute("soapAction").value();
    op->style = *soap_op.attribute("style").value() ? soap_op.attribute("style").value() : default_style;
    if (op->style != "document" && op->style != "rpc") {
      return Status::InvalidArgument(where + ": operation " + op->name + ": unknown binding style '" + op->style +
                                     "' (document or rpc)");
    }
    pugi::xml_node abstract;
    for (pugi::xml_node o : port_type.node.children()) {
      if (Is(o, kWsdlNs, "operation") && op->name == o.attribute("name").value()) abstract = o;
    }
    if (!abstract) return Status::InvalidArgument(where + ": operation " + op->name + " is not in its portType");
    for (const char* direction : {"input", "output"}) {
      const bool input = std::strcmp(direction, "input") == 0;
      pugi::xml_node abstract_io = Child(abstract, kWsdlNs, direction);
      if (!abstract_io) {
        if (input) return Status::InvalidArgument(where + ": operation " + op->name + " has no input (notification operations are not supported)");
        op->one_way = true;
        continue;
      }
      pugi::xml_node bound_io = Child(bop, kWsdlNs, direction);
      pugi::xml_node body = SoapChild(bound_io, "body");
      const std::string use = *body.attribute("use").value() ? body.attribute("use").value() : "literal";
      if (use == "encoded") {
        return Status::InvalidArgument(m_->documents_.Where(*binding.source, body) + ": operation " + op->name + " is " +
                                       op->style + "/encoded (SOAP encoding): not supported; Lather reads "
                                       "document/literal and rpc/literal");
      }
      if (use != "literal") {
        return Status::InvalidArgument(m_->documents_.Where(*binding.source, body) + ": unknown soap:body use '" + use + "'");
      }
      if (SoapChild(bound_io, "header")) op->notes.push_back(std::string(direction) + " soap:header parts are not sent");
      const Decl* message = nullptr;
      Status s = Find(messages_, Resolve(abstract_io, "message"), "message", &message);
      if (!s.ok()) return Status::InvalidArgument(where + ": operation " + op->name + ": " + s.message());
      std::string ns = body.attribute("namespace").value();
      if (ns.empty()) ns = binding.node.parent().attribute("targetNamespace").value();
      s = Shape(*message, op->style, QName{ns, op->name + (input ? "" : "Response")}, body.attribute("parts").value(),
                input ? &op->input : &op->output);
      if (!s.ok()) return s;
    }
    for (pugi::xml_node fault : abstract.children()) {
      if (!Is(fault, kWsdlNs, "fault")) continue;
      std::string text = fault.attribute("name").value();
      const Decl* message = nullptr;
      if (Find(messages_, Resolve(fault, "message"), "message", &message).ok()) {
        pugi::xml_node part = Child(message->node, kWsdlNs, "part");
        if (part.attribute("element")) text += std::string(" (") + part.attribute("element").value() + ")";
      }
      op->faults.push_back(text);
    }
    return Status::Ok();
  }

  Status Shape(const Decl& message, const std::string& style, const QName& rpc_wrapper, const std::string& only_parts,
               MessageShape* out) {
    std::vector<const Element*> parts;
    for (pugi::xml_node part : message.node.children()) {
      if (!Is(part, kWsdlNs, "part")) continue;
      const std::string name = part.attribute("name").value();
      if (!only_parts.empty() && (" " + only_parts + " ").find(" " + name + " ") == std::string::npos) continue;
      const std::string where = m_->documents_.Where(*message.source, part);
      if (part.attribute("element")) {
        const Element* e = nullptr;
        Status s = m_->schemas_.GlobalElement(Resolve(part, "element"), &e);
        if (!s.ok()) return Status::InvalidArgument(where + ": part " + name + ": " + s.message());
        if (style == "rpc") {  // WS-I R2204 wants type=; an element part is written as that element
          parts.push_back(e);
          continue;
        }
        parts.push_back(e);
      } else if (part.attribute("type")) {
        Element& e = m_->synthetic_elements_.emplace_back();
        e.name = QName{"", name};  // rpc accessors and document type= parts are unqualified
        e.type_display = part.attribute("type").value();
        Status s = m_->schemas_.GlobalType(Resolve(part, "type"), &e.complex, &e.simple);
        if (!s.ok()) return Status::InvalidArgument(where + ": part " + name + ": " + s.message());
        parts.push_back(&e);
      } else {
        return Status::InvalidArgument(where + ": part " + name + " has neither element= nor type=");
      }
    }
    if (style == "document" && parts.size() == 1 && parts[0]->complex != nullptr) {
      out->root = parts[0];
      out->write_root = true;
      return Status::Ok();
    }
    ComplexType& t = m_->synthetic_types_.emplace_back();
    t.display = "(parts)";
    for (const Element* e : parts) {
      Particle p;
      p.kind = Particle::Kind::kElement;
      p.element = e;
      p.min_occurs = e->min_occurs;
      p.max_occurs = e->max_occurs;
      t.content.children.push_back(p);
    }
    Element& root = m_->synthetic_elements_.emplace_back();
    root.name = rpc_wrapper;
    root.complex = &t;
    root.type_display = "(parts)";
    out->root = &root;
    out->write_root = style == "rpc";
    return Status::Ok();
  }

  WsdlModel* m_;
  std::map<QName, Decl> messages_, port_types_, bindings_, services_;
};

Status WsdlModel::Load(const std::string& url, const FetchOptions& options, std::unique_ptr<WsdlModel>* out) {
  std::unique_ptr<WsdlModel> model(new WsdlModel(options));
  model->url_ = url;
  Reader reader(model.get());
  Status s = reader.Read(url);
  if (!s.ok()) return s;
  *out = std::move(model);
  return Status::Ok();
}

std::string FieldSignature(const MessageShape& message) {
  std::vector<const ComplexType*> open;
  return Fields(message, &open);
}

std::string ResultSignature(const MessageShape& message) {
  if (message.root == nullptr) return "(none: one-way)";
  const ComplexType* t = message.root->complex;
  if (t == nullptr) return message.root->simple.display;
  std::vector<const Particle*> fields;
  CollectElements(t->content, &fields);
  if (fields.empty() && t->attributes.empty()) return "()";
  if (fields.size() == 1 && t->attributes.empty()) {
    std::vector<const ComplexType*> open = {t};
    return fields[0]->element->name.local + Occurs(*fields[0]->element) + ": " + TypeText(*fields[0]->element, &open);
  }
  return "{" + FieldSignature(message) + "}";
}

}  // namespace lather::wsdl
