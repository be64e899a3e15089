#include "client/wsdl/response_view.h"

#include <cstring>
#include <regex>
#include <vector>

#include "client/wsdl/source_documents.h"
#include "client/wsdl/xsd_value.h"

namespace lather::wsdl {
namespace {


bool Named(pugi::xml_node n, const char* local) {
  return n.type() == pugi::node_element && std::strcmp(LocalPart(n.name()), local) == 0;
}

pugi::xml_node ChildNamed(pugi::xml_node parent, const char* local) {
  for (pugi::xml_node c : parent.children()) {
    if (Named(c, local)) return c;
  }
  return {};
}

bool HasElementChildren(pugi::xml_node n) {
  for (pugi::xml_node c : n.children()) {
    if (c.type() == pugi::node_element) return true;
  }
  return false;
}

bool IsNil(pugi::xml_node n) {
  for (pugi::xml_attribute a : n.attributes()) {
    if (std::strcmp(LocalPart(a.name()), "nil") == 0 && (std::strcmp(a.value(), "true") == 0 || std::strcmp(a.value(), "1") == 0)) {
      return true;
    }
  }
  return false;
}

bool IsDeclaration(pugi::xml_attribute a) {
  return std::strcmp(a.name(), "xmlns") == 0 || std::strncmp(a.name(), "xmlns:", 6) == 0 ||
         std::strncmp(a.name(), "xsi:", 4) == 0;
}

// The declaration of the child `local` of an element declared `decl` (null when unknown).
const Element* ChildDecl(const Element* decl, const char* local) {
  if (decl == nullptr || decl->complex == nullptr) return nullptr;
  std::vector<const Particle*> fields;
  CollectElements(decl->complex->content, &fields);
  for (const Particle* p : fields) {
    if (p->element->name.local == local) return p->element;
  }
  return nullptr;
}

const SimpleType* ValueType(const Element* decl) {
  if (decl == nullptr) return nullptr;
  if (decl->complex == nullptr) return &decl->simple;
  return decl->complex->simple_content ? &decl->complex->value : nullptr;
}

std::string JsonScalar(const std::string& text, const SimpleType* type) {
  if (type != nullptr) {
    static const std::regex number("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");
    if (JsonKindOf(*type) == JsonKind::kNumber) {
      std::string t = text;
      if (!t.empty() && t[0] == '+') t.erase(0, 1);
      while (t.size() > 1 && t[0] == '0' && t[1] != '.') t.erase(0, 1);
      if (std::regex_match(t, number)) return t;
    }
    if (JsonKindOf(*type) == JsonKind::kBoolean) {
      if (text == "true" || text == "1") return "true";
      if (text == "false" || text == "0") return "false";
    }
  }
  return JsonQuoted(text);
}

void JsonOf(pugi::xml_node n, const Element* decl, std::string* out);

// The children of `n` as a JSON object: attributes as "@name", repeated (or declared repeated)
// elements as arrays, text of simple content as "value".
void JsonObject(pugi::xml_node n, const Element* decl, std::string* out) {
  *out += "{";
  bool first = true;
  for (pugi::xml_attribute a : n.attributes()) {
    if (IsDeclaration(a)) continue;
    *out += (first ? "" : ", ") + JsonQuoted("@" + std::string(LocalPart(a.name()))) + ": " + JsonQuoted(a.value());
    first = false;
  }
  if (!HasElementChildren(n)) {
    // An empty structure (a list with no items) is {}; text is the value of simple content.
    const bool structure = decl != nullptr && decl->complex != nullptr && !decl->complex->simple_content &&
                           !decl->complex->any_type && !decl->complex->mixed;
    if (!structure || *n.text().get() != 0) {
      *out += (first ? "" : ", ") + std::string("\"value\": ") + JsonScalar(n.text().get(), ValueType(decl));
    }
    *out += "}";
    return;
  }
  std::vector<std::string> done;
  for (pugi::xml_node c : n.children()) {
    if (c.type() != pugi::node_element) continue;
    const std::string local = LocalPart(c.name());
    if (std::find(done.begin(), done.end(), local) != done.end()) continue;
    done.push_back(local);
    const Element* child_decl = ChildDecl(decl, local.c_str());
    size_t count = 0;
    for (pugi::xml_node s : n.children()) count += Named(s, local.c_str());
    const bool array = count > 1 || (child_decl != nullptr && child_decl->max_occurs > 1);
    *out += (first ? "" : ", ") + JsonQuoted(local) + ": ";
    first = false;
    if (array) *out += "[";
    bool first_item = true;
    for (pugi::xml_node s : n.children()) {
      if (!Named(s, local.c_str())) continue;
      if (!first_item) *out += ", ";
      first_item = false;
      JsonOf(s, child_decl, out);
      if (!array) break;
    }
    if (array) *out += "]";
  }
  *out += "}";
}

void JsonOf(pugi::xml_node n, const Element* decl, std::string* out) {
  if (IsNil(n)) {
    *out += "null";
    return;
  }
  bool attributes = false;
  for (pugi::xml_attribute a : n.attributes()) attributes = attributes || !IsDeclaration(a);
  const bool complex_decl = decl != nullptr && decl->complex != nullptr && !decl->complex->simple_content &&
                            !decl->complex->any_type;
  if (!HasElementChildren(n) && !attributes && !complex_decl) {
    *out += JsonScalar(n.text().get(), ValueType(decl));
    return;
  }
  JsonObject(n, decl, out);
}

void TreeOf(pugi::xml_node n, int indent, std::string* out) {
  std::vector<std::string> seen;
  for (pugi::xml_node c : n.children()) {
    if (c.type() != pugi::node_element) continue;
    const std::string local = LocalPart(c.name());
    size_t count = 0, index = 0;
    for (pugi::xml_node s : n.children()) {
      if (!Named(s, local.c_str())) continue;
      if (s == c) index = count;
      ++count;
    }
    const std::string name = count > 1 ? local + "[" + std::to_string(index) + "]" : local;
    const std::string pad(static_cast<size_t>(indent) * 2, ' ');
    if (IsNil(c)) {
      *out += pad + name + ": (nil)\n";
      continue;
    }
    if (HasElementChildren(c)) {
      *out += pad + name + ":\n";
    } else {
      *out += pad + name + ": " + c.text().get() + "\n";
    }
    for (pugi::xml_attribute a : c.attributes()) {
      if (!IsDeclaration(a)) *out += pad + "  @" + LocalPart(a.name()) + ": " + a.value() + "\n";
    }
    if (HasElementChildren(c)) TreeOf(c, indent + 1, out);
  }
}

std::string OneLine(pugi::xml_node n) {
  std::string out;
  for (pugi::xml_node c : n.children()) {
    if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) {
      std::string text = c.value();
      const size_t b = text.find_first_not_of(" \t\r\n"), e = text.find_last_not_of(" \t\r\n");
      if (b != std::string::npos) out += (out.empty() ? "" : " ") + text.substr(b, e - b + 1);
      continue;
    }
    if (c.type() != pugi::node_element) continue;
    out += (out.empty() ? "" : ", ") + std::string(LocalPart(c.name()));
    out += HasElementChildren(c) ? "{" + OneLine(c) + "}" : ": " + std::string(c.text().get());
  }
  return out;
}

}  // namespace

std::string JsonQuoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

Status ResponseView::Parse(const std::string& body, const MessageShape& output) {
  const pugi::xml_parse_result parsed = doc_.load_buffer(body.data(), body.size());
  if (!parsed) return Status::InvalidArgument(std::string("the answer is not XML (") + parsed.description() + ")");
  pugi::xml_node envelope = doc_.document_element();
  const std::string ns = NamespaceOfNode(envelope);
  if (!Named(envelope, "Envelope") || (ns != kSoapEnv11 && ns != kSoapEnv12)) {
    return Status::InvalidArgument("the answer is not a SOAP envelope (its root is <" + std::string(envelope.name()) + ">)");
  }
  pugi::xml_node soap_body = ChildNamed(envelope, "Body");
  if (!soap_body) return Status::InvalidArgument("the answer's envelope has no Body");
  pugi::xml_node fault = ChildNamed(soap_body, "Fault");
  if (fault) {
    is_fault_ = true;
    if (ns == kSoapEnv12) {
      pugi::xml_node code = ChildNamed(fault, "Code");
      fault_.code = ChildNamed(code, "Value").text().get();
      for (pugi::xml_node sub = ChildNamed(code, "Subcode"); sub; sub = ChildNamed(sub, "Subcode")) {
        fault_.code += std::string(" / ") + ChildNamed(sub, "Value").text().get();
      }
      fault_.reason = ChildNamed(ChildNamed(fault, "Reason"), "Text").text().get();
      fault_.detail = OneLine(ChildNamed(fault, "Detail"));
    } else {
      fault_.code = ChildNamed(fault, "faultcode").text().get();
      fault_.reason = ChildNamed(fault, "faultstring").text().get();
      fault_.detail = OneLine(ChildNamed(fault, "detail"));
    }
    return Status::Ok();
  }
  if (output.root != nullptr && output.write_root) {
    result_ = soap_body.find_child([](pugi::xml_node n) { return n.type() == pugi::node_element; });
    result_decl_ = output.root;
  } else {
    result_ = soap_body;
    result_decl_ = output.root;
  }
  return Status::Ok();
}

std::string ResponseView::Tree() const {
  if (!result_) return "";
  if (!HasElementChildren(result_)) {  // a lone simple value: the text alone ("42")
    const std::string text = result_.text().get();
    return text.empty() ? "" : text + "\n";
  }
  std::string out;
  TreeOf(result_, 0, &out);
  return out;
}

std::string ResponseView::Json() const {
  if (!result_) return "{}\n";
  std::string out;
  if (!HasElementChildren(result_)) {
    out = "{}";
  } else {
    JsonObject(result_, result_decl_, &out);
  }
  return out + "\n";
}

}  // namespace lather::wsdl
