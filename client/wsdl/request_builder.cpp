#include "client/wsdl/request_builder.h"

#include <Poco/Dynamic/Var.h>
#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <regex>

#include "client/wsdl/xsd_value.h"

namespace lather::wsdl {
namespace {

// The element particle named `local` among the elements of `type` (any depth of model groups).
const Element* FindField(const ComplexType& type, const std::string& local) {
  std::vector<const Particle*> fields;
  CollectElements(type.content, &fields);
  for (const Particle* p : fields) {
    if (p->element->name.local == local) return p->element;
  }
  return nullptr;
}

std::string FieldList(const ComplexType& type) {
  std::vector<const Particle*> fields;
  CollectElements(type.content, &fields);
  std::string out;
  for (const Particle* p : fields) out += (out.empty() ? "" : ", ") + p->element->name.local;
  for (const Attribute& a : type.attributes) out += (out.empty() ? "@" : ", @") + a.name.local;
  return out.empty() ? "none" : out;
}

// The single repeated element of a wrapper type (StringList's `item`), or null.
const Element* WrappedArray(const ComplexType* type) {
  if (type == nullptr || !type->attributes.empty()) return nullptr;
  std::vector<const Particle*> fields;
  CollectElements(type->content, &fields);
  return fields.size() == 1 && fields[0]->element->max_occurs > 1 ? fields[0]->element : nullptr;
}

Status CheckText(const SimpleType& type, const std::string& path, const std::string& value) {
  Status s = CheckValue(type, WithPlaceholdersAsNumbers(value));
  if (!s.ok()) {
    const bool named = s.message().find(type.display) != std::string::npos;  // "'x' is not an xsd:int" says it
    return Status::InvalidArgument(path + ": " + s.message() + (named ? "" : " (" + type.display + ")"));
  }
  return Status::Ok();
}

// Flattens a JSON value into Set/SetNil calls.
Status FlattenJson(const Poco::Dynamic::Var& v, const std::string& path, RequestBuilder* b) {
  if (v.isEmpty()) return b->SetNil(path);
  if (v.type() == typeid(Poco::JSON::Object::Ptr)) {
    Poco::JSON::Object::Ptr object = v.extract<Poco::JSON::Object::Ptr>();
    for (const auto& [key, value] : *object) {
      Status s = FlattenJson(value, path.empty() ? key : path + "." + key, b);
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }
  if (v.type() == typeid(Poco::JSON::Array::Ptr)) {
    Poco::JSON::Array::Ptr array = v.extract<Poco::JSON::Array::Ptr>();
    for (size_t i = 0; i < array->size(); ++i) {
      Status s = FlattenJson(array->get(static_cast<unsigned>(i)), path + "[" + std::to_string(i) + "]", b);
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }
  if (path.empty()) return Status::InvalidArgument("-f: the JSON input must be an object of the operation's fields");
  return b->Set(path, v.isBoolean() ? (v.extract<bool>() ? "true" : "false") : v.convert<std::string>());
}

}  // namespace

std::string WithPlaceholdersAsNumbers(const std::string& text) {
  if (text.find("${n}") == std::string::npos && text.find("random(") == std::string::npos) return text;
  static const std::regex random("random\\((-?[0-9]+)\\.\\.(-?[0-9]+)\\)");
  std::string out = std::regex_replace(text, random, "$1");
  for (size_t at = out.find("${n}"); at != std::string::npos; at = out.find("${n}", at)) out.replace(at, 4, "1");
  return out;
}

void AppendXmlEscaped(const std::string& text, std::string* out) {
  for (char c : text) {
    switch (c) {
      case '&': *out += "&amp;"; break;
      case '<': *out += "&lt;"; break;
      case '>': *out += "&gt;"; break;
      case '"': *out += "&quot;"; break;
      case '\r': *out += "&#13;"; break;
      default: *out += c;
    }
  }
}

Status RequestBuilder::Set(const std::string& path, const std::string& value) { return Assign(path, &value); }

Status RequestBuilder::SetNil(const std::string& path) { return Assign(path, nullptr); }

Status RequestBuilder::SetJson(const std::string& json_text) {
  Poco::Dynamic::Var parsed;
  try {
    Poco::JSON::Parser parser;
    parsed = parser.parse(json_text);
  } catch (const Poco::Exception& e) {
    return Status::InvalidArgument("-f: not JSON (" + e.message() + ")");
  }
  if (parsed.type() != typeid(Poco::JSON::Object::Ptr)) {
    return Status::InvalidArgument("-f: the JSON input must be an object of the operation's fields");
  }
  return FlattenJson(parsed, "", this);
}

Status RequestBuilder::Assign(const std::string& path, const std::string* value) {
  const Element* root = op_.input.root;
  if (root == nullptr || root->complex == nullptr) return Status::InvalidArgument(op_.name + " takes no fields");
  const ComplexType* type = root->complex;
  InputValue* cur = &root_;
  std::string at;
  size_t pos = 0;
  while (pos <= path.size()) {
    const size_t dot = path.find('.', pos);
    const std::string step = path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
    const bool last = dot == std::string::npos;
    pos = last ? path.size() + 1 : dot + 1;
    const std::string here = at.empty() ? step : at + "." + step;
    if (step.empty()) return Status::InvalidArgument("'" + path + "': an empty field name");
    if (type == nullptr) return Status::InvalidArgument(here + ": " + at + " is a simple value, it has no fields");
    if (step[0] == '@') {
      if (!last) return Status::InvalidArgument(here + ": an attribute has no fields");
      for (const Attribute& a : type->attributes) {
        if (a.name.local != step.substr(1)) continue;
        if (value == nullptr) return Status::InvalidArgument(here + ": an attribute cannot be nil");
        Status s = CheckText(a.type, here, *value);
        if (!s.ok()) return s;
        cur->attributes[a.name.local] = *value;
        return Status::Ok();
      }
      return Status::InvalidArgument(here + ": no attribute '" + step.substr(1) + "' (fields of " +
                                     (at.empty() ? op_.name : at) + ": " + FieldList(*type) + ")");
    }
    std::string name = step;
    size_t index = 0;
    bool indexed = false;
    const size_t bracket = step.find('[');
    if (bracket != std::string::npos) {
      if (step.back() != ']') return Status::InvalidArgument(here + ": write an index as name[N]");
      name = step.substr(0, bracket);
      const std::string digits = step.substr(bracket + 1, step.size() - bracket - 2);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 6) {
        return Status::InvalidArgument(here + ": the index '" + digits + "' is not a number");
      }
      index = std::stoul(digits);
      indexed = true;
    }
    const Element* e = FindField(*type, name);
    if (e == nullptr) {
      return Status::InvalidArgument(here + ": no field '" + name + "' (fields of " + (at.empty() ? op_.name : at) +
                                     ": " + FieldList(*type) + ")");
    }
    if (indexed && e->max_occurs <= 1) {
      const Element* item = WrappedArray(e->complex);  // items[2] for a wrapper type's items.item[2]
      if (item == nullptr) return Status::InvalidArgument(here + ": " + name + " is not repeated (maxOccurs 1)");
      std::vector<InputValue>& wrapper = cur->children[name];
      if (wrapper.empty()) wrapper.resize(1);
      cur = &wrapper[0];
      name = item->name.local;
      e = item;
    }
    if (e->max_occurs != kUnbounded && index >= e->max_occurs) {
      return Status::InvalidArgument(here + ": " + name + " occurs at most " + std::to_string(e->max_occurs) + " times");
    }
    std::vector<InputValue>& occurrences = cur->children[name];
    if (occurrences.size() <= index) occurrences.resize(index + 1);
    cur = &occurrences[index];
    at = here;
    if (!last) {
      type = e->complex != nullptr && !e->complex->simple_content ? e->complex : nullptr;
      if (e->complex != nullptr && e->complex->simple_content) type = e->complex;  // only @attributes below
      continue;
    }
    if (value == nullptr) {
      if (!e->nillable) return Status::InvalidArgument(here + ": not nillable, it cannot be null");
      cur->nil = true;
      return Status::Ok();
    }
    if (e->complex == nullptr) {
      Status s = CheckText(e->simple, here, *value);
      if (!s.ok()) return s;
    } else if (e->complex->simple_content) {
      Status s = CheckText(e->complex->value, here, *value);
      if (!s.ok()) return s;
    } else if (!e->complex->any_type) {
      return Status::InvalidArgument(here + ": a structure (" + FieldList(*e->complex) + "); set its fields, e.g. " +
                                     here + "." + FieldList(*e->complex).substr(0, FieldList(*e->complex).find(',')) + "=...");
    }
    cur->text = *value;
    return Status::Ok();
  }
  return Status::InvalidArgument("'" + path + "': no field");
}

}  // namespace lather::wsdl
