#include "service/soap/fast_path.h"

#include <array>
#include <charconv>

#include "common/char_table.h"

namespace lather {
namespace {

constexpr std::string_view kEnv11 = "http://schemas.xmlsoap.org/soap/envelope/";
constexpr std::string_view kEnv12 = "http://www.w3.org/2003/05/soap-envelope";
constexpr std::string_view kLather = "urn:lather:v1";
constexpr std::string_view kEnc11 = "http://schemas.xmlsoap.org/soap/encoding/";
constexpr std::string_view kEnc12 = "http://www.w3.org/2003/05/soap-encoding";
constexpr std::string_view kXsi = "http://www.w3.org/2001/XMLSchema-instance";
constexpr std::string_view kXsd = "http://www.w3.org/2001/XMLSchema";
constexpr size_t kMaxBindings = 8;
constexpr size_t kMaxNameBytes = 64;

constexpr bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool IsDigit(char c) { return c >= '0' && c <= '9'; }
// An XML name's first byte and the rest (the ASCII subset the fast path reads; no colon).
constexpr CharTable kNameStart([](char c) { return IsAlpha(c) || c == '_'; });
constexpr CharTable kNameRest([](char c) { return IsAlpha(c) || IsDigit(c) || c == '_' || c == '-' || c == '.'; });
// Bytes an attribute value may not hold here: '&', '<', controls and all but printable ASCII.
constexpr CharTable kNotInQuoted([](char c) {
  return c == '&' || c == '<' || static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F;
});

struct Binding {
  std::string_view prefix;  // empty: the default namespace
  std::string_view uri;
};

// A cursor over the body; every step either consumes what it expects or fails.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : s_(text) {}

  bool done() const { return i_ == s_.size(); }
  void SkipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool Take(std::string_view literal) {
    if (s_.substr(i_, literal.size()) != literal) return false;
    i_ += literal.size();
    return true;
  }
  bool Peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  // An XML name of ASCII letters, digits and . - _ (no colon), at most kMaxNameBytes.
  bool Name(std::string_view* out) {
    const size_t start = i_;
    if (i_ < s_.size() && kNameStart(s_[i_])) ++i_;
    else return false;
    while (i_ < s_.size() && kNameRest(s_[i_])) ++i_;
    if (i_ - start > kMaxNameBytes) return false;
    *out = s_.substr(start, i_ - start);
    return true;
  }
  // A qualified name: [prefix:]local.
  bool QName(std::string_view* prefix, std::string_view* local) {
    std::string_view first;
    if (!Name(&first)) return false;
    if (Peek(':')) {
      ++i_;
      *prefix = first;
      return Name(local);
    }
    *prefix = {};
    *local = first;
    return true;
  }
  // A quoted attribute value without '&', '<' or the other quote's kind of trouble.
  bool Quoted(std::string_view* out) {
    if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) return false;
    const char quote = s_[i_++];
    const size_t start = i_;
    while (i_ < s_.size() && s_[i_] != quote) {
      if (kNotInQuoted(s_[i_])) return false;
      ++i_;
    }
    if (i_ >= s_.size()) return false;
    *out = s_.substr(start, i_ - start);
    ++i_;
    return true;
  }
  // Text up to the next '<', of bytes `ok` accepts only.
  template <typename Ok>
  bool Text(std::string_view* out, Ok ok) {
    const size_t start = i_;
    while (i_ < s_.size() && s_[i_] != '<') {
      if (!ok(s_[i_])) return false;
      ++i_;
    }
    *out = s_.substr(start, i_ - start);
    return i_ < s_.size();
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

struct Scope {
  std::array<Binding, kMaxBindings> bindings;
  size_t count = 0;
  bool Add(std::string_view prefix, std::string_view uri) {
    for (size_t i = 0; i < count; ++i) {
      if (bindings[i].prefix == prefix) return false;  // a repeated declaration on one element: gSOAP decides
    }
    if (count == kMaxBindings) return false;
    bindings[count++] = {prefix, uri};
    return true;
  }
  // The innermost binding of `prefix`; npos-like empty view with `found` false when unbound.
  bool Find(std::string_view prefix, std::string_view* uri) const {
    for (size_t i = count; i-- > 0;) {
      if (bindings[i].prefix == prefix) {
        *uri = bindings[i].uri;
        return true;
      }
    }
    return false;
  }
};

// The attributes of a start tag, which must all be namespace declarations; then '>' (or "/>" when
// `empty` is given: *empty tells which). False for anything else.
bool Declarations(Cursor* c, Scope* scope, bool* empty) {
  for (;;) {
    const bool spaced = c->Peek(' ') || c->Peek('\t') || c->Peek('\n') || c->Peek('\r');
    c->SkipSpace();
    if (c->Take(">")) {
      if (empty != nullptr) *empty = false;
      return true;
    }
    if (empty != nullptr && c->Take("/>")) {
      *empty = true;
      return true;
    }
    if (!spaced || !c->Take("xmlns")) return false;
    std::string_view prefix;
    if (c->Take(":") && !c->Name(&prefix)) return false;
    std::string_view uri;
    if (!c->Take("=") || !c->Quoted(&uri)) return false;
    if (prefix.empty() && uri.empty()) return false;  // undeclaring the default namespace: gSOAP decides
    if (prefix == "xml" || prefix == "xmlns") return false;
    if (!scope->Add(prefix, uri)) return false;
  }
}

bool Resolves(const Scope& scope, std::string_view prefix, std::string_view want) {
  std::string_view uri;
  return scope.Find(prefix, &uri) && uri == want;
}

// "</prefix:local>" exactly as the start tag named it.
bool EndTag(Cursor* c, std::string_view prefix, std::string_view local) {
  if (!c->Take("</")) return false;
  if (!prefix.empty() && !(c->Take(prefix) && c->Take(":"))) return false;
  return c->Take(local) && c->Take(">");
}

// One child element of the operation in urn:lather:v1, named `local`, with text `ok` accepts; its text.
template <typename Ok>
bool Child(Cursor* c, const Scope& scope, std::string_view local, std::string_view* text, Ok ok) {
  c->SkipSpace();
  std::string_view prefix, name;
  if (!c->Take("<") || !c->QName(&prefix, &name) || name != local || !c->Take(">")) return false;
  if (!Resolves(scope, prefix, kLather)) return false;
  if (!c->Text(text, ok)) return false;
  return EndTag(c, prefix, name);
}

bool CanonicalInt(std::string_view text, int32_t* value) {
  // -?(0|[1-9][0-9]*) in the int32 range: the one spelling of each value, which gSOAP reads the same way.
  if (text.empty() || text.size() > 11) return false;
  const size_t digits = text[0] == '-' ? 1 : 0;
  if (digits == text.size()) return false;
  if (text[digits] == '0' && (text.size() > digits + 1 || digits == 1)) return false;  // 007, -0
  int32_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return false;
  *value = v;
  return true;
}

bool NameChar(char c) { return IsAlpha(c) || IsDigit(c) || c == '.' || c == '_' || c == ':' || c == '-'; }

}  // namespace

bool ReadFastRequest(std::string_view body, FastRequest* out) {
  Cursor c(body);
  if (c.Take("<?xml")) {  // version 1.0, UTF-8 or no encoding named, either quote (zeep and JAX-WS use ')
    constexpr std::string_view kDeclarations[] = {
        " version=\"1.0\" encoding=\"UTF-8\"?>", " version=\"1.0\" encoding=\"utf-8\"?>", " version=\"1.0\"?>",
        " version='1.0' encoding='UTF-8'?>", " version='1.0' encoding='utf-8'?>", " version='1.0'?>"};
    bool known = false;
    for (std::string_view d : kDeclarations) known = known || c.Take(d);
    if (!known) return false;
  }
  c.SkipSpace();
  Scope scope;
  std::string_view env_prefix, env_local;
  if (!c.Take("<") || !c.QName(&env_prefix, &env_local) || env_prefix.empty() || env_local != "Envelope") return false;
  if (!Declarations(&c, &scope, nullptr)) return false;
  std::string_view env_uri;
  if (!scope.Find(env_prefix, &env_uri)) return false;
  if (env_uri == kEnv11) {
    out->soap_version = 1;
  } else if (env_uri == kEnv12) {
    out->soap_version = 2;
  } else {
    return false;
  }
  std::string_view env_default;
  if (scope.Find("", &env_default)) return false;  // a default namespace on the Envelope: gSOAP decides
  // An empty Header (suds sends one), then the Body, each under a prefix of the envelope's namespace and
  // with nothing on it.
  c.SkipSpace();
  std::string_view part_prefix, part_local;
  if (!c.Take("<") || !c.QName(&part_prefix, &part_local) || !Resolves(scope, part_prefix, env_uri)) return false;
  if (part_local == "Header") {
    if (!(c.Take("/>") || (c.Take(">") && EndTag(&c, part_prefix, "Header")))) return false;
    out->empty_header = true;
    c.SkipSpace();
    if (!c.Take("<") || !c.QName(&part_prefix, &part_local) || !Resolves(scope, part_prefix, env_uri)) return false;
  }
  if (part_local != "Body" || !c.Take(">")) return false;
  const std::string_view body_prefix = part_prefix;
  c.SkipSpace();
  std::string_view op_prefix, op_local;
  if (!c.Take("<") || !c.QName(&op_prefix, &op_local)) return false;
  bool empty = false;
  if (!Declarations(&c, &scope, &empty)) return false;
  if (!Resolves(scope, op_prefix, kLather)) return false;
  if (op_local == "Increment") {
    out->operation = 0;
    std::string_view text;
    if (empty || !Child(&c, scope, "value", &text, [](char ch) { return IsDigit(ch) || ch == '-'; })) return false;
    if (!CanonicalInt(text, &out->value)) return false;
  } else if (op_local == "HelloWorld") {
    out->operation = 1;
  } else if (op_local == "IncCounter" || op_local == "GetCounter") {
    out->operation = op_local == "IncCounter" ? 2 : 3;
    if (empty || !Child(&c, scope, "name", &out->name, NameChar) || out->name.empty() || out->name.size() > 64) return false;
  } else {
    return false;
  }
  if (!empty) {
    c.SkipSpace();
    if (!EndTag(&c, op_prefix, op_local)) return false;
  }
  c.SkipSpace();
  if (!EndTag(&c, body_prefix, "Body")) return false;
  c.SkipSpace();
  if (!EndTag(&c, env_prefix, "Envelope")) return false;
  c.SkipSpace();
  if (!c.done()) return false;
  // gSOAP writes a namespace of its table back as the request spelled it when the spelling matches the
  // entry's pattern (xsi 1999 for 2001, another case, the other version's encoding): the answer would not
  // be the template's. Only the spellings the templates were captured with, or none of the table's, pass.
  const std::string_view env = out->soap_version == 2 ? kEnv12 : kEnv11;
  const std::string_view enc = out->soap_version == 2 ? kEnc12 : kEnc11;
  for (size_t i = 0; i < scope.count; ++i) {
    const std::string_view uri = scope.bindings[i].uri;
    if (uri != env && uri != enc && uri != kLather && uri != kXsi && uri != kXsd) return false;
  }
  return true;
}

}  // namespace lather
