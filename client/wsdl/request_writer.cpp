// RequestBuilder::Build and Headers: the envelope written from the schema and the values set.
#include <map>

#include "client/wsdl/request_builder.h"
#include "client/wsdl/xsd_value.h"

namespace lather::wsdl {
namespace {

constexpr int kMaxSampleDepth = 24;
// Elements a request may get from minOccurs alone (no value set for them): a schema's minOccurs multiply through
// its nesting, and a sample is for calling the operation, not for building millions of elements nobody asked for.
constexpr uint64_t kMaxSampleElements = 10'000;

}  // namespace

// Writes the Body's content, giving each namespace a prefix at its first use (l, l2, l3, ...).
class RequestBuilder::Writer {
 public:
  explicit Writer(std::vector<std::string>* filled) : filled_(filled) {}

  Status Content(const ComplexType& type, const InputValue* v, const std::string& path, int depth) {
    if (depth > kMaxSampleDepth) {
      return Status::InvalidArgument(path + ": the type " + type.display + " requires itself more than " +
                                     std::to_string(kMaxSampleDepth) + " levels deep; set the fields yourself");
    }
    if (type.simple_content || type.any_type) {
      const SimpleType& st = type.value;
      if (v != nullptr && v->text) {
        AppendXmlEscaped(*v->text, &body_);
      } else if (type.simple_content) {
        const std::string sample = SampleValue(st);
        Status s = CheckValue(st, sample);
        if (!s.ok()) return Status::InvalidArgument(path + ": no sample value fits " + st.display + ": set it");
        Filled(path, sample);
        AppendXmlEscaped(sample, &body_);
      }
      return Status::Ok();
    }
    return Particles(type.content, v, path, depth, true);
  }

  Status Element(const lather::wsdl::Element& e, const InputValue* v, const std::string& path, int depth) {
    const std::string name = Name(e.name);
    body_ += "<" + name;
    const ComplexType* type = e.complex;
    if (type != nullptr) {
      for (const Attribute& a : type->attributes) {
        const std::string* given = nullptr;
        if (v != nullptr) {
          auto it = v->attributes.find(a.name.local);
          if (it != v->attributes.end()) given = &it->second;
        }
        std::string sample;
        const std::string at = (path.empty() ? "@" : path + ".@") + a.name.local;  // as Set() takes it
        if (given == nullptr && !a.fixed.empty()) {
          sample = a.fixed;
          given = &sample;
        } else if (given == nullptr && a.required) {
          sample = SampleValue(a.type);
          if (!CheckValue(a.type, sample).ok()) {
            return Status::InvalidArgument(at + ": no sample value fits " + a.type.display + ": set it");
          }
          Filled(at, sample);
          given = &sample;
        }
        if (given == nullptr) continue;
        body_ += " " + Name(a.name) + "=\"";
        AppendXmlEscaped(*given, &body_);
        body_ += "\"";
      }
    }
    if (v != nullptr && v->nil) {
      body_ += " " + Name(QName{kXsiNs, "nil"}) + "=\"true\"/>";
      return Status::Ok();
    }
    body_ += ">";
    const size_t start_tag_end = body_.size();
    if (type == nullptr) {
      if (v != nullptr && v->text) {
        AppendXmlEscaped(*v->text, &body_);
      } else {
        const std::string sample = SampleValue(e.simple);
        if (!CheckValue(e.simple, sample).ok()) {
          return Status::InvalidArgument(path + ": no sample value fits " + e.simple.display + ": set it");
        }
        Filled(path, sample);
        AppendXmlEscaped(sample, &body_);
      }
    } else {
      Status s = Content(*type, v, path, depth + 1);
      if (!s.ok()) return s;
    }
    if (body_.size() == start_tag_end) {  // no content: <l:HelloWorld/>, as Lather's own clients write it
      body_.back() = '/';
      body_ += '>';
    } else {
      body_ += "</" + name + ">";
    }
    return Status::Ok();
  }

  // The namespaces used, in the order their prefixes were given.
  const std::vector<std::pair<std::string, std::string>>& namespaces() const { return order_; }
  const std::string& body() const { return body_; }

 private:
  Status Particles(const Particle& p, const InputValue* v, const std::string& path, int depth, bool required) {
    required = required && p.min_occurs > 0;
    switch (p.kind) {
      case Particle::Kind::kAny:
        return Status::Ok();  // nothing can be set for xsd:any; an optional wildcard is left out
      case Particle::Kind::kElement: {
        const lather::wsdl::Element& e = *p.element;
        const std::vector<InputValue>* given = nullptr;
        if (v != nullptr) {
          auto it = v->children.find(e.name.local);
          if (it != v->children.end()) given = &it->second;
        }
        const std::string here = path.empty() ? e.name.local : path + "." + e.name.local;
        const uint64_t count = given != nullptr ? given->size() : (required ? e.min_occurs : 0);
        if (given == nullptr && count > kMaxSampleElements - sampled_) {
          return Status::InvalidArgument(here + ": minOccurs " + std::to_string(e.min_occurs) + " would take the request "
                                         "past " + std::to_string(kMaxSampleElements) + " elements written without a "
                                         "value set for them; set the fields yourself");
        }
        if (given == nullptr) sampled_ += count;
        for (uint64_t i = 0; i < count; ++i) {
          const std::string at = e.max_occurs > 1 ? here + "[" + std::to_string(i) + "]" : here;
          Status s = Element(e, given != nullptr ? &(*given)[i] : nullptr, at, depth);
          if (!s.ok()) return s;
        }
        return Status::Ok();
      }
      case Particle::Kind::kChoice: {
        const Particle* chosen = nullptr;
        for (const Particle& c : p.children) {
          if (HasValue(c, v)) {
            chosen = &c;
            break;
          }
        }
        if (chosen == nullptr && required && !p.children.empty()) chosen = &p.children.front();
        return chosen == nullptr ? Status::Ok() : Particles(*chosen, v, path, depth, true);
      }
      case Particle::Kind::kSequence:
      case Particle::Kind::kAll: {
        if (!required && !HasValue(p, v)) return Status::Ok();
        for (const Particle& c : p.children) {
          Status s = Particles(c, v, path, depth, true);
          if (!s.ok()) return s;
        }
        return Status::Ok();
      }
    }
    return Status::Ok();
  }

  static bool HasValue(const Particle& p, const InputValue* v) {
    if (v == nullptr) return false;
    if (p.kind == Particle::Kind::kElement) return v->children.count(p.element->name.local) != 0;
    for (const Particle& c : p.children) {
      if (HasValue(c, v)) return true;
    }
    return false;
  }

  std::string Name(const QName& name) {
    if (name.ns.empty()) return name.local;
    auto it = prefixes_.find(name.ns);
    if (it == prefixes_.end()) {
      const std::string prefix = name.ns == kXsiNs ? "xsi" : order_.empty() ? "l" : "l" + std::to_string(order_.size() + 1);
      it = prefixes_.emplace(name.ns, prefix).first;
      order_.emplace_back(prefix, name.ns);
    }
    return it->second + ":" + name.local;
  }

  void Filled(const std::string& path, const std::string& value) {
    if (filled_ != nullptr) filled_->push_back(path + "=" + value);
  }

  std::vector<std::string>* filled_;
  uint64_t sampled_ = 0;  // elements written from minOccurs, with no value set (kMaxSampleElements at most)
  std::string body_;
  std::map<std::string, std::string> prefixes_;
  std::vector<std::pair<std::string, std::string>> order_;
};

Status RequestBuilder::Build(std::string* envelope, std::vector<std::string>* filled) const {
  Writer w(filled);
  const lather::wsdl::Element* root = op_.input.root;
  Status s;
  if (root != nullptr && op_.input.write_root) {
    s = w.Element(*root, &root_, "", 0);
  } else if (root != nullptr && root->complex != nullptr) {
    s = w.Content(*root->complex, &root_, "", 0);
  }
  if (!s.ok()) return s;
  envelope->assign("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<soap:Envelope xmlns:soap=\"");
  *envelope += soap_version_ == 2 ? kSoapEnv12 : kSoapEnv11;
  *envelope += "\"";
  for (const auto& [prefix, ns] : w.namespaces()) {
    *envelope += " xmlns:" + prefix + "=\"";
    AppendXmlEscaped(ns, envelope);
    *envelope += "\"";
  }
  *envelope += "><soap:Body>" + w.body() + "</soap:Body></soap:Envelope>";
  return Status::Ok();
}

std::vector<std::string> RequestBuilder::Headers() const {
  if (soap_version_ == 2) {
    return {"Content-Type: application/soap+xml; charset=utf-8" +
            (op_.action.empty() ? std::string() : "; action=\"" + op_.action + "\"")};
  }
  return {"Content-Type: text/xml; charset=utf-8", "SOAPAction: \"" + op_.action + "\""};
}

}  // namespace lather::wsdl
