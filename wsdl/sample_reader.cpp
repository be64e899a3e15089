// The hand-written EchoDataSamples reader (sample_reader.h): a cursor over the XML text, an explicit
// stack of open elements, and a state per element saying which child comes next. The hot path is a
// start tag of the expected name with the cached prefix of urn:lather:v1 and no attributes (one
// memcmp), text without references (scanned 16 bytes at a time, assigned straight from the input)
// and the end tag of the open element (one memcmp). Everything else takes the general path.
// Pure function of its inputs; thread-safe.
#include "wsdl/sample_reader.h"

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace lather {

XmlNamespace ClassifyNamespace(std::string_view uri) {
  if (uri == "urn:lather:v1") return XmlNamespace::kLather;
  if (uri == "http://schemas.xmlsoap.org/soap/encoding/" || uri == "http://www.w3.org/2003/05/soap-encoding") {
    return XmlNamespace::kSoapEncoding;
  }
  if (uri == "http://www.w3.org/2001/XMLSchema-instance") return XmlNamespace::kXsi;
  return XmlNamespace::kOther;
}

namespace {

bool IsXmlChar(uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
         (c >= 0x10000 && c <= 0x10FFFF);
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

inline std::string_view Collapse(std::string_view v) {
  if (!v.empty() && !IsSpace(v.front()) && !IsSpace(v.back())) return v;
  while (!v.empty() && IsSpace(v.front())) v.remove_prefix(1);
  while (!v.empty() && IsSpace(v.back())) v.remove_suffix(1);
  return v;
}

// Byte classes: 1 a byte that may start a name, 2 one that may continue it (either: 3), 4 XML space.
enum : unsigned char { kNameStart = 1, kNameChar = 2, kSpace = 4 };
constexpr std::array<unsigned char, 256> MakeByteTable() {
  std::array<unsigned char, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kNameStart | kNameChar;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kNameStart | kNameChar;
  for (int c = '0'; c <= '9'; ++c) t[c] = kNameChar;
  t['_'] = kNameStart | kNameChar;
  t['-'] = t['.'] = t[':'] = kNameChar;
  for (int c = 0x80; c < 0x100; ++c) t[c] = kNameStart | kNameChar;  // checked as UTF-8 separately
  t[' '] = t['\t'] = t['\n'] = t['\r'] = kSpace;
  return t;
}
constexpr std::array<unsigned char, 256> kByte = MakeByteTable();

// 1 for a byte that stops a plain text scan: '<', '&', below 0x20, or from 0x80.
constexpr std::array<unsigned char, 256> MakeTextStopTable() {
  std::array<unsigned char, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = 1;
  for (int c = 0x80; c < 0x100; ++c) t[c] = 1;
  t['<'] = t['&'] = 1;
  return t;
}
constexpr std::array<unsigned char, 256> kTextStop = MakeTextStopTable();

// The first byte in [p, end) that is '<', '&', below 0x20 or from 0x80 (end if none).
inline const char* FindTextStop(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i lt = _mm_set1_epi8('<'), amp = _mm_set1_epi8('&'), space = _mm_set1_epi8(0x20);
  while (end - p >= 16) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Signed compare: bytes from 0x80 are negative, so one compare finds them and the controls.
    const __m128i stop = _mm_or_si128(_mm_cmplt_epi8(b, space), _mm_or_si128(_mm_cmpeq_epi8(b, lt), _mm_cmpeq_epi8(b, amp)));
    const int mask = _mm_movemask_epi8(stop);
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && kTextStop[static_cast<unsigned char>(*p)] == 0) ++p;
  return p;
}

// True if the n bytes at a and b are equal (short names: no call to memcmp). Loads overlap rather
// than finish byte by byte.
inline bool Equal(const char* a, const char* b, size_t n) {
  if (n >= 8) {
    uint64_t x, y, u, v;
    if (n <= 16) {  // most contract names: two loads that may overlap
      std::memcpy(&x, a, 8);
      std::memcpy(&y, b, 8);
      std::memcpy(&u, a + n - 8, 8);
      std::memcpy(&v, b + n - 8, 8);
      return ((x ^ y) | (u ^ v)) == 0;
    }
    for (; n > 8; a += 8, b += 8, n -= 8) {
      std::memcpy(&x, a, 8);
      std::memcpy(&y, b, 8);
      if (x != y) return false;
    }
    std::memcpy(&x, a + n - 8, 8);
    std::memcpy(&y, b + n - 8, 8);
    return x == y;
  }
  if (n >= 4) {  // the first and the last four bytes (they may overlap)
    uint32_t x, y, u, v;
    std::memcpy(&x, a, 4);
    std::memcpy(&y, b, 4);
    std::memcpy(&u, a + n - 4, 4);
    std::memcpy(&v, b + n - 4, 4);
    return x == y && u == v;
  }
  for (; n > 0; ++a, ++b, --n) {
    if (*a != *b) return false;
  }
  return true;
}

// Length of the UTF-8 sequence of an XML character at p (first byte from 0x80), or 0 with *why set.
inline size_t Utf8Char(const char* p, const char* end, const char** why) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  const size_t avail = static_cast<size_t>(end - p);
  const unsigned c = u[0];
  *why = "bytes that are not UTF-8";
  if (c < 0xC2) return 0;  // a lone continuation byte or an overlong 2-byte form
  if (c < 0xE0) return (avail >= 2 && (u[1] & 0xC0) == 0x80) ? 2 : 0;
  if (c < 0xF0) {
    if (avail < 3 || (u[1] & 0xC0) != 0x80 || (u[2] & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && u[1] < 0xA0) return 0;   // overlong
    if (c == 0xED && u[1] >= 0xA0) return 0;  // a surrogate
    if (c == 0xEF && u[1] == 0xBF && u[2] >= 0xBE) {  // U+FFFE, U+FFFF
      *why = "a character that XML 1.0 forbids";
      return 0;
    }
    return 3;
  }
  if (c > 0xF4 || avail < 4 || (u[1] & 0xC0) != 0x80 || (u[2] & 0xC0) != 0x80 || (u[3] & 0xC0) != 0x80) return 0;
  if (c == 0xF0 && u[1] < 0x90) return 0;   // overlong
  if (c == 0xF4 && u[1] >= 0x90) return 0;  // above U+10FFFF
  return 4;
}

// At most 64 bytes of `text` for a message: whole UTF-8 characters, other bytes and controls as '?'.
std::string Excerpt(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size() && out.size() < 64;) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const char* why;
      const size_t n = Utf8Char(text.data() + i, text.data() + text.size(), &why);
      if (n != 0) {
        out.append(text.data() + i, n);
        i += n;
        continue;
      }
    }
    out.push_back(c < 0x20 || c >= 0x80 ? '?' : static_cast<char>(c));
    ++i;
  }
  return out;
}

// The children of a DataSample, in order, and what each holds.
enum class Field : unsigned char { kString, kZip, kStrings, kInt, kDouble, kDateTime, kBool, kList };
struct FieldSpec {
  std::string_view name;
  Field type;
};
constexpr FieldSpec kFields[] = {
    {"firstname", Field::kString},       {"lastname", Field::kString},  {"city", Field::kString},
    {"zip", Field::kZip},                {"email", Field::kString},     {"contactNos", Field::kStrings},
    {"designation", Field::kString},     {"experience", Field::kInt},   {"salary", Field::kDouble},
    {"companiesWorkedFor", Field::kStrings}, {"dateOfBirth", Field::kDateTime}, {"isMarried", Field::kBool},
    {"children", Field::kList}};
constexpr unsigned char kFieldCount = sizeof kFields / sizeof kFields[0];
constexpr bool kSimpleField[kFieldCount] = {true, true, true, true, true, false, true, true, true, false, true, true, false};

enum class Kind : unsigned char { kRoot, kWrapper, kList, kSample, kReference, kStrings };

// One open element.
struct Frame {
  Kind kind;
  unsigned char field = 0;  // kSample: the index in kFields of the next child
  uint32_t name_len = 0;
  const char* name = nullptr;  // the element's name as written, for its end tag
  size_t ns_mark = 0;          // size of the binding stack before the element's declarations
  size_t count = 0;            // kList, kStrings: children read; kWrapper: `samples` read
  DataSample* sample = nullptr;
  std::vector<DataSample*>* list = nullptr;
  std::vector<std::string>* strings = nullptr;
};

struct Binding {
  std::string_view prefix;
  XmlNamespace ns;
  bool none;  // xmlns="": no default namespace
};

struct Attribute {
  std::string_view name;
  size_t colon;  // npos if unprefixed
  std::string_view raw;  // the value between the quotes
  bool decode;  // holds a reference or a white-space character to normalize
};

// What a start tag said beyond its name.
struct StartTag {
  std::string_view name;
  std::string_view local;
  XmlNamespace ns = XmlNamespace::kOther;
  bool qualified = false;  // in some namespace (a prefix, or a default namespace in scope)
  bool empty = false;
  bool has_declarations = false;
  std::string id;
  std::string reference;         // the referenced id (without '#')
  std::string reference_spelled;  // the attribute as written, for messages
  bool has_id = false, has_reference = false;
};

struct Pending {
  std::vector<DataSample*>* list;
  size_t index;
  std::string id;
  std::string spelled;
};

class Reader {
 public:
  Reader(std::string_view xml, const SampleReadLimits& limits, SampleSet* out, SampleReadResult* result)
      : begin_(xml.data()), end_(xml.data() + xml.size()), limits_(limits), out_(out), result_(result) {}

  bool Run(size_t start, std::string_view wrapper, const std::vector<NamespaceBinding>& scope);

 private:
  bool Fail(SampleReadProblem problem, const std::string& message, const char* at) {
    result_->problem = problem;
    result_->message = message + " (at byte " + std::to_string(at - begin_) + ")";
    return false;
  }
  bool Malformed(const std::string& message, const char* at) { return Fail(SampleReadProblem::kMalformed, message, at); }
  bool Schema(const std::string& message, const char* at) { return Fail(SampleReadProblem::kSchema, message, at); }

  std::string_view ExpectedName() const;
  int ExpectedTag() const;
  std::string Inside() const;
  bool SkipMisc();
  bool SkipComment(const char* at, const char** next);
  bool SkipPi(const char* at, const char** next);
  bool CheckChars(const char* from, const char* to, size_t* extra, bool attribute);
  __attribute__((always_inline)) inline bool ScanText(const char** p, size_t* extra);
  bool DecodeReference(const char** p, std::string* out, size_t* extra);
  __attribute__((always_inline)) inline bool ReadValue(std::string_view name, std::string_view* value, size_t* chars);
  __attribute__((noinline)) bool ReadValueSlow(std::string_view name, const char* start, const char* p, size_t extra,
                                               std::string_view* value, size_t* chars);
  bool Item(Frame& parent, const char* at, std::string_view name, bool empty);
  // True if the start tag <tag> or <tag/> (no attributes) is at p_: *name, *len and *empty say where.
  bool NextTag(const std::string& tag, const char** name, size_t* len, bool* empty) const {
    const char* n = p_ + 1;
    const size_t l = tag.size();
    if (end_ - p_ > static_cast<std::ptrdiff_t>(l + 2) && *p_ == '<' && Equal(n, tag.data(), l) &&
        (n[l] == '>' || (n[l] == '/' && n[l + 1] == '>'))) {
      *name = n;
      *len = l;
      *empty = n[l] == '/';
      return true;
    }
    return false;
  }
  __attribute__((noinline, cold)) bool BadValue(const FieldSpec& spec, std::string_view v, const char* type, const char* at) {
    return Schema(std::string(spec.name) + " '" + Excerpt(v) + "' is not an " + type, at);
  }
  inline bool ReadEndTag(const char* name, size_t name_len);
  __attribute__((noinline)) bool ReadEndTagSlow(const char* name, size_t name_len);
  bool ScanName(const char** p, size_t* colon);
  bool ParseStartTag(StartTag* tag);
  bool AttributeValue(const Attribute& a, std::string* value);
  const Binding* Lookup(std::string_view prefix);
  void PopBindings(size_t mark) {
    if (ns_.size() != mark) {
      ns_.resize(mark);
      ++epoch_;
    }
  }
  bool StartElement(const char* at, std::string_view name, std::string_view local, StartTag* tag, bool general);
  __attribute__((always_inline)) inline bool Value(Frame& parent, const FieldSpec& spec, const char* at,
                                                   std::string_view name, bool empty);
  bool CheckString(std::string_view element, size_t chars, const char* at) {
    if (__builtin_expect(limits_.max_string != 0 && chars > limits_.max_string, 0)) return StringTooLong(element, chars, at);
    return true;
  }
  __attribute__((noinline, cold)) bool StringTooLong(std::string_view element, size_t chars, const char* at) {
    return Fail(SampleReadProblem::kString,
                "'" + std::string(element) + "' has " + std::to_string(chars) + " characters; at most " +
                    std::to_string(limits_.max_string) + " are allowed",
                at);
  }
  void BuildTags(std::string_view prefix);
  bool Resolve();

  const char* const begin_;
  const char* const end_;
  const char* p_ = nullptr;
  const SampleReadLimits& limits_;
  SampleSet* const out_;
  SampleReadResult* const result_;
  std::string_view wrapper_;

  std::vector<Frame> stack_;
  std::vector<Binding> ns_;
  uint32_t epoch_ = 0;  // changes whenever ns_ does
  uint32_t cached_epoch_ = ~0u;
  std::string_view lather_prefix_;  // a prefix (or "" for the default) bound to urn:lather:v1 at cached_epoch_
  // The qualified names "prefix:local" of every contract element (kTag* order) for lather_prefix_,
  // rebuilt when that prefix's text changes; tags_built_ is false until the first build.
  std::string tag_prefix_;
  bool tags_built_ = false;
  uint32_t tags_epoch_ = ~0u;  // the cached_epoch_ tags_ were last checked at
  std::array<std::string, 4 + kFieldCount> tags_;

  std::vector<Attribute> attributes_;
  std::string scratch_;
  std::string attribute_scratch_;
  StartTag tag_;
  std::unordered_map<std::string, DataSample*> ids_;
  std::vector<Pending> pending_;
  bool graph_ = false;
};

// The index in tags_ of the element expected next (0 wrapper, 1 samples, 2 sample, 3 item, 4 + field), or -1.
int Reader::ExpectedTag() const {
  const Frame& f = stack_.back();
  switch (f.kind) {
    case Kind::kSample:
      return f.field < kFieldCount ? 4 + f.field : -1;
    case Kind::kStrings:
      return 3;
    case Kind::kList:
      return 2;
    case Kind::kWrapper:
      return f.count == 0 ? 1 : -1;
    case Kind::kRoot:
      return 0;
    case Kind::kReference:
      return -1;
  }
  return -1;
}

void Reader::BuildTags(std::string_view prefix) {
  tag_prefix_.assign(prefix.data(), prefix.size());
  tags_built_ = true;
  const std::string lead = prefix.empty() ? std::string() : tag_prefix_ + ":";
  tags_[0] = lead + std::string(wrapper_);
  tags_[1] = lead + "samples";
  tags_[2] = lead + "sample";
  tags_[3] = lead + "item";
  for (size_t i = 0; i < kFieldCount; ++i) tags_[4 + i] = lead + std::string(kFields[i].name);
}

std::string_view Reader::ExpectedName() const {
  const Frame& f = stack_.back();
  switch (f.kind) {
    case Kind::kRoot:
      return wrapper_;
    case Kind::kWrapper:
      return f.count == 0 ? std::string_view("samples") : std::string_view();
    case Kind::kList:
      return "sample";
    case Kind::kStrings:
      return "item";
    case Kind::kSample:
      return f.field < kFieldCount ? kFields[f.field].name : std::string_view();
    case Kind::kReference:
      return {};
  }
  return {};
}

std::string Reader::Inside() const {
  const Frame& f = stack_.back();
  if (f.kind == Kind::kRoot) return "before '" + std::string(wrapper_) + "'";
  return "inside '" + std::string(f.name, f.name_len) + "'";
}

bool Reader::CheckChars(const char* p, const char* to, size_t* extra, bool attribute) {
  while (p < to) {
    p = FindTextStop(p, to);
    if (p == to) break;
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return Malformed("a control character that XML 1.0 forbids", p);
      if (attribute && c == '<') return Malformed("'<' in an attribute value", p);
      ++p;
      continue;
    }
    const char* why;
    const size_t n = Utf8Char(p, to, &why);
    if (n == 0) return Malformed(why, p);
    *extra += n - 1;
    p += n;
  }
  return true;
}

bool Reader::SkipComment(const char* at, const char** next) {
  const std::string_view rest(at + 4, static_cast<size_t>(end_ - at - 4));
  const size_t close = rest.find("-->");
  if (close == std::string_view::npos) return Malformed("a comment that is not closed", at);
  size_t extra = 0;
  if (!CheckChars(rest.data(), rest.data() + close, &extra, false)) return false;
  *next = rest.data() + close + 3;
  return true;
}

bool Reader::SkipPi(const char* at, const char** next) {
  const std::string_view rest(at + 2, static_cast<size_t>(end_ - at - 2));
  const size_t close = rest.find("?>");
  if (close == std::string_view::npos) return Malformed("a processing instruction that is not closed", at);
  size_t target = 0;
  while (target < close && kByte[static_cast<unsigned char>(rest[target])] & kNameChar) ++target;
  if (target == 0) return Malformed("a processing instruction without a target", at);
  if (target == 3 && (rest[0] | 0x20) == 'x' && (rest[1] | 0x20) == 'm' && (rest[2] | 0x20) == 'l') {
    return Malformed("an XML declaration that is not at the start of the document", at);
  }
  if (limits_.refuse_processing_instructions) {
    return Malformed("a processing instruction: a SOAP message must not contain any (SOAP 1.1 section 3, WS-I BP 1.1 "
                     "R1009, SOAP 1.2 part 1 section 5)",
                     at);
  }
  size_t extra = 0;
  if (!CheckChars(rest.data(), rest.data() + close, &extra, false)) return false;
  *next = rest.data() + close + 2;
  return true;
}

// Skips white space, comments and processing instructions up to the next tag ('<' then a name or '/').
bool Reader::SkipMisc() {
  // The common case: a tag right here.
  if (end_ - p_ >= 2 && *p_ == '<' && p_[1] != '?' && p_[1] != '!') return true;
  for (;;) {
    while (p_ < end_ && (kByte[static_cast<unsigned char>(*p_)] & kSpace)) ++p_;
    if (p_ >= end_) return Malformed("the document ends " + Inside(), p_);
    if (*p_ != '<') {
      const std::string_view expected = ExpectedName();
      return Schema("text " + Inside() + (expected.empty() ? std::string(" where no content may be")
                                                             : " where '" + std::string(expected) + "' was expected"),
                    p_);
    }
    if (end_ - p_ < 2) return Malformed("the document ends " + Inside(), p_);
    if (p_[1] == '?') {
      if (!SkipPi(p_, &p_)) return false;
      continue;
    }
    if (p_[1] != '!') return true;
    if (end_ - p_ >= 4 && std::memcmp(p_, "<!--", 4) == 0) {
      if (!SkipComment(p_, &p_)) return false;
      continue;
    }
    if (end_ - p_ >= 9 && std::memcmp(p_, "<![CDATA[", 9) == 0) {
      const std::string_view rest(p_ + 9, static_cast<size_t>(end_ - p_ - 9));
      const size_t close = rest.find("]]>");
      if (close == std::string_view::npos) return Malformed("a CDATA section that is not closed", p_);
      for (size_t i = 0; i < close; ++i) {
        if (!IsSpace(rest[i])) return Schema("text in a CDATA section " + Inside(), p_);
      }
      p_ = rest.data() + close + 3;
      continue;
    }
    if (end_ - p_ >= 9 && std::memcmp(p_, "<!DOCTYPE", 9) == 0) return Malformed("a DOCTYPE (none is accepted)", p_);
    return Malformed("markup that is not a comment, CDATA section or element", p_);
  }
}

// Scans character data from *p up to '<', '&', '\r' or the end, checking characters; counts the
// continuation bytes of multi-byte characters in *extra.
bool Reader::ScanText(const char** pp, size_t* extra) {
  const char* p = *pp;
  for (;;) {
    p = FindTextStop(p, end_);
    // The byte that stopped the scan and up to 16 after it one by one: values are short, and after a
    // non-ASCII character the end of the value is usually near.
    for (const char* scalar_end = end_ - p > 16 ? p + 16 : end_; p < scalar_end;) {
      const auto c = static_cast<unsigned char>(*p);
      if (kTextStop[c] == 0) {
        ++p;
        continue;
      }
      if (c >= 0x80) {
        const char* why;
        const size_t n = Utf8Char(p, end_, &why);
        if (__builtin_expect(n == 0, 0)) return Malformed(why, p);
        *extra += n - 1;
        p += n;
        continue;
      }
      if (c == '<' || c == '&' || c == '\r') {
        *pp = p;
        return true;
      }
      if (c != '\t' && c != '\n') return Malformed("a control character that XML 1.0 forbids", p);
      ++p;
    }
    if (p >= end_) {
      *pp = end_;
      return true;
    }
  }
}

// Decodes the reference at *p ('&') into *out and moves past its ';'.
bool Reader::DecodeReference(const char** pp, std::string* out, size_t* extra) {
  const char* p = *pp + 1;
  if (p < end_ && *p == '#') {
    ++p;
    const bool hex = p < end_ && *p == 'x';
    if (hex) ++p;
    uint32_t value = 0;
    size_t digits = 0;
    for (; p < end_ && *p != ';'; ++p, ++digits) {
      const char d = static_cast<char>(*p | 0x20);
      int v = (*p >= '0' && *p <= '9') ? *p - '0' : (hex && d >= 'a' && d <= 'f') ? d - 'a' + 10 : -1;
      if (v < 0) return Malformed("a malformed character reference", *pp);
      if (value <= 0x10FFFF) value = value * (hex ? 16 : 10) + static_cast<uint32_t>(v);
    }
    if (p == end_) return Malformed("a character reference without ';'", *pp);
    if (digits == 0) return Malformed("a malformed character reference", *pp);
    if (!IsXmlChar(value)) return Malformed("a character reference to a character that XML 1.0 forbids", *pp);
    const size_t before = out->size();
    AppendUtf8(value, out);
    *extra += out->size() - before - 1;
    *pp = p + 1;
    return true;
  }
  const char* name = p;
  while (p < end_ && p - name <= 8 && *p != ';') ++p;
  const std::string_view n(name, static_cast<size_t>(p - name));
  if (p < end_ && *p == ';') {
    char c = 0;
    if (n == "lt") c = '<';
    else if (n == "gt") c = '>';
    else if (n == "amp") c = '&';
    else if (n == "quot") c = '"';
    else if (n == "apos") c = '\'';
    if (c != 0) {
      out->push_back(c);
      *pp = p + 1;
      return true;
    }
    return Malformed("an entity reference &" + Excerpt(n) +
                         "; that is not declared (only &lt; &gt; &amp; &quot; &apos; are)",
                     *pp);
  }
  return Malformed("a '&' that does not start an entity or character reference", *pp);
}

bool Reader::ReadEndTag(const char* name, size_t name_len) {
  const char* p = p_ + 2;
  if (__builtin_expect(static_cast<size_t>(end_ - p) > name_len && Equal(p, name, name_len) && p[name_len] == '>', 1)) {
    p_ = p + name_len + 1;
    return true;
  }
  return ReadEndTagSlow(name, name_len);
}

bool Reader::ReadEndTagSlow(const char* name, size_t name_len) {
  const char* p = p_ + 2;
  if (static_cast<size_t>(end_ - p) > name_len && Equal(p, name, name_len)) {
    p += name_len;
    while (p < end_ && IsSpace(*p)) ++p;
    if (p < end_ && *p == '>') {
      p_ = p + 1;
      return true;
    }
  }
  const char* q = p_ + 2;
  while (q < end_ && q - p_ < 60 && *q != '>') ++q;
  if (q == end_) return Malformed("the document ends inside the end tag of '" + std::string(name, name_len) + "'", p_);
  return Malformed("the end tag '" + Excerpt(std::string_view(p_, static_cast<size_t>(q - p_))) + ">' does not match '<" +
                       std::string(name, name_len) + ">'",
                   p_);
}

// Reads the content of a simple element whose start tag was just read, and its end tag.
bool Reader::ReadValue(std::string_view name, std::string_view* value, size_t* chars) {
  const char* start = p_;
  const char* p = p_;
  size_t extra = 0;
  if (!ScanText(&p, &extra)) return false;
  if (__builtin_expect(end_ - p >= 2 && p[0] == '<' && p[1] == '/', 1)) {  // the common case: nothing to decode
    *value = std::string_view(start, static_cast<size_t>(p - start));
    *chars = value->size() - extra;
    p_ = p;
    return ReadEndTag(name.data(), name.size());
  }
  return ReadValueSlow(name, start, p, extra, value, chars);
}

bool Reader::ReadValueSlow(std::string_view name, const char* start, const char* p, size_t extra,
                           std::string_view* value, size_t* chars) {
  scratch_.assign(start, p);
  for (;;) {
    if (p >= end_) return Malformed("the document ends inside '" + std::string(name) + "'", p);
    if (*p == '&') {
      if (!DecodeReference(&p, &scratch_, &extra)) return false;
    } else if (*p == '\r') {
      scratch_.push_back('\n');
      ++p;
      if (p < end_ && *p == '\n') ++p;
    } else {  // '<'
      if (end_ - p < 2) return Malformed("the document ends inside '" + std::string(name) + "'", p);
      if (p[1] == '/') break;
      if (p[1] == '?') {
        if (!SkipPi(p, &p)) return false;
      } else if (end_ - p >= 4 && std::memcmp(p, "<!--", 4) == 0) {
        if (!SkipComment(p, &p)) return false;
      } else if (end_ - p >= 9 && std::memcmp(p, "<![CDATA[", 9) == 0) {
        const std::string_view rest(p + 9, static_cast<size_t>(end_ - p - 9));
        const size_t close = rest.find("]]>");
        if (close == std::string_view::npos) return Malformed("a CDATA section that is not closed", p);
        if (!CheckChars(rest.data(), rest.data() + close, &extra, false)) return false;
        for (size_t i = 0; i < close; ++i) {
          if (rest[i] != '\r') {
            scratch_.push_back(rest[i]);
          } else {
            scratch_.push_back('\n');
            if (i + 1 < close && rest[i + 1] == '\n') ++i;
          }
        }
        p = rest.data() + close + 3;
      } else if (p[1] == '!') {
        return Malformed("markup that is not a comment or CDATA section inside '" + std::string(name) + "'", p);
      } else {
        return Schema("an element inside '" + std::string(name) + "', which holds a simple value", p);
      }
    }
    const char* run = p;
    if (!ScanText(&p, &extra)) return false;
    scratch_.append(run, p);
  }
  *value = scratch_;
  *chars = scratch_.size() - extra;
  p_ = p;
  return ReadEndTag(name.data(), name.size());
}

// Moves *p past a name (checking its characters); *colon is the offset of its one ':' or npos.
bool Reader::ScanName(const char** pp, size_t* colon) {
  const char* start = *pp;
  const char* p = start;
  *colon = std::string_view::npos;
  if (p >= end_ || !(kByte[static_cast<unsigned char>(*p)] & kNameStart)) {
    return Malformed("a tag or attribute that does not start with a name", p);
  }
  while (p < end_ && (kByte[static_cast<unsigned char>(*p)] & kNameChar)) {
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x80) {
      const char* why;
      const size_t n = Utf8Char(p, end_, &why);
      if (n == 0) return Malformed(why, p);
      p += n;
      continue;
    }
    if (c == ':') {
      if (*colon != std::string_view::npos || p == start) return Malformed("a name with a misplaced ':'", start);
      *colon = static_cast<size_t>(p - start);
      if (p + 1 >= end_ || !(kByte[static_cast<unsigned char>(p[1])] & kNameStart)) {
        return Malformed("a name with a misplaced ':'", start);
      }
    }
    ++p;
  }
  if (static_cast<size_t>(p - start) > 1000) return Malformed("a name longer than 1,000 bytes", start);
  *pp = p;
  return true;
}

const Binding* Reader::Lookup(std::string_view prefix) {
  for (size_t i = ns_.size(); i-- > 0;) {
    if (ns_[i].prefix == prefix) return &ns_[i];
  }
  return nullptr;
}

// An attribute's value with its references decoded and its white space normalized, in *value.
bool Reader::AttributeValue(const Attribute& a, std::string* value) {
  if (!a.decode) {
    value->assign(a.raw.data(), a.raw.size());
    return true;
  }
  value->clear();
  size_t extra = 0;
  for (const char* p = a.raw.data(); p < a.raw.data() + a.raw.size();) {
    if (*p == '&') {
      if (!DecodeReference(&p, value, &extra)) return false;
    } else if (*p == '\r' && p + 1 < a.raw.data() + a.raw.size() && p[1] == '\n') {
      value->push_back(' ');
      p += 2;
    } else {
      value->push_back(IsSpace(*p) ? ' ' : *p);
      ++p;
    }
  }
  return true;
}

// Parses the start tag at p_ ('<' and a name) with its attributes and declarations (pushed on ns_).
bool Reader::ParseStartTag(StartTag* tag) {
  const char* at = p_;
  const char* p = p_ + 1;
  size_t colon;
  if (!ScanName(&p, &colon)) return false;
  tag->name = std::string_view(p_ + 1, static_cast<size_t>(p - p_ - 1));
  tag->local = colon == std::string_view::npos ? tag->name : tag->name.substr(colon + 1);
  tag->has_id = tag->has_reference = tag->has_declarations = false;
  attributes_.clear();
  for (;;) {
    const char* before = p;
    while (p < end_ && IsSpace(*p)) ++p;
    if (p >= end_) return Malformed("the document ends inside the tag '" + std::string(tag->name) + "'", at);
    if (*p == '>') {
      tag->empty = false;
      ++p;
      break;
    }
    if (*p == '/') {
      if (p + 1 >= end_ || p[1] != '>') return Malformed("a '/' not followed by '>' in a tag", p);
      tag->empty = true;
      p += 2;
      break;
    }
    if (p == before) return Malformed("no white space before an attribute of '" + std::string(tag->name) + "'", p);
    Attribute a;
    const char* name = p;
    if (!ScanName(&p, &a.colon)) return false;
    a.name = std::string_view(name, static_cast<size_t>(p - name));
    while (p < end_ && IsSpace(*p)) ++p;
    if (p >= end_ || *p != '=') return Malformed("an attribute without '='", p);
    ++p;
    while (p < end_ && IsSpace(*p)) ++p;
    if (p >= end_ || (*p != '"' && *p != '\'')) return Malformed("an attribute value without quotes", p);
    const char* close = static_cast<const char*>(std::memchr(p + 1, *p, static_cast<size_t>(end_ - p - 1)));
    if (close == nullptr) return Malformed("an attribute value that is not closed", p);
    a.raw = std::string_view(p + 1, static_cast<size_t>(close - p - 1));
    size_t extra = 0;
    if (!CheckChars(a.raw.data(), close, &extra, true)) return false;
    a.decode = a.raw.find_first_of("&\t\n\r") != std::string_view::npos;
    if (a.decode && !AttributeValue(a, &attribute_scratch_)) return false;  // checks its references
    for (const Attribute& b : attributes_) {
      if (b.name == a.name) return Malformed("the attribute '" + std::string(a.name) + "' twice", name);
    }
    attributes_.push_back(a);
    if (attributes_.size() > 256) return Malformed("more than 256 attributes on one element", at);
    p = close + 1;
  }
  // Declarations first: they apply to the tag's own names.
  for (const Attribute& a : attributes_) {
    const bool default_ns = a.name == "xmlns";
    if (!default_ns && !(a.colon == 5 && a.name.substr(0, 5) == "xmlns")) continue;
    if (!AttributeValue(a, &attribute_scratch_)) return false;
    Binding b;
    b.prefix = default_ns ? std::string_view() : a.name.substr(6);
    b.none = attribute_scratch_.empty();
    if (b.none && !default_ns) return Malformed("the prefix '" + std::string(b.prefix) + "' bound to no namespace", at);
    if (b.prefix == "xmlns") return Malformed("a declaration of the prefix 'xmlns'", at);
    b.ns = ClassifyNamespace(attribute_scratch_);
    ns_.push_back(b);
    ++epoch_;
    tag->has_declarations = true;
  }
  const std::string_view prefix = colon == std::string_view::npos ? std::string_view() : tag->name.substr(0, colon);
  const Binding* b = Lookup(prefix);
  if (b == nullptr && !prefix.empty() && prefix != "xml") {
    return Malformed("the prefix '" + std::string(prefix) + "' of '" + std::string(tag->name) + "' is not declared", at);
  }
  tag->qualified = b != nullptr && !b->none;
  tag->ns = tag->qualified ? b->ns : XmlNamespace::kOther;
  if (tag->ns == XmlNamespace::kLather) {
    lather_prefix_ = prefix;
    cached_epoch_ = epoch_;
  }
  for (const Attribute& a : attributes_) {
    if (a.name == "xmlns" || (a.colon == 5 && a.name.substr(0, 5) == "xmlns")) continue;
    XmlNamespace ns = XmlNamespace::kOther;
    bool unqualified = a.colon == std::string_view::npos;
    const std::string_view local = unqualified ? a.name : a.name.substr(a.colon + 1);
    if (!unqualified) {
      const std::string_view ap = a.name.substr(0, a.colon);
      const Binding* ab = Lookup(ap);
      if (ab == nullptr && ap != "xml") {
        return Malformed("the prefix '" + std::string(ap) + "' of the attribute '" + std::string(a.name) +
                             "' is not declared",
                         at);
      }
      if (ab != nullptr) ns = ab->ns;
    }
    if (ns == XmlNamespace::kXsi && local == "nil") {
      if (!AttributeValue(a, &attribute_scratch_)) return false;
      const std::string_view v = Collapse(attribute_scratch_);
      if (v == "true" || v == "1") {
        return Schema("'" + std::string(tag->name) + "' is nil; every element of a DataSample is required", at);
      }
      continue;
    }
    const bool encoding = ns == XmlNamespace::kSoapEncoding;
    if ((unqualified || encoding) && local == "id") {
      if (!AttributeValue(a, &tag->id)) return false;
      tag->has_id = true;
    } else if ((unqualified && (local == "href" || local == "ref")) || (encoding && local == "ref")) {
      if (tag->has_reference) return Schema("two references on '" + std::string(tag->name) + "'", at);
      if (!AttributeValue(a, &tag->reference)) return false;
      tag->reference_spelled = std::string(a.name) + " '" + Excerpt(tag->reference) + "'";
      if (unqualified && local == "href") {
        if (tag->reference.empty() || tag->reference[0] != '#') {
          return Schema("href '" + Excerpt(tag->reference) + "' is not a reference within the message ('#id')", at);
        }
        tag->reference.erase(0, 1);
      } else if (unqualified && !tag->reference.empty() && tag->reference[0] == '#') {
        tag->reference.erase(0, 1);
      }
      tag->has_reference = true;
    }
  }
  p_ = p;
  return true;
}

// Stores a simple value read for field `spec` of parent.sample.
bool Reader::Value(Frame& parent, const FieldSpec& spec, const char* at, std::string_view name, bool empty) {
  std::string_view v;
  size_t chars = 0;
  if (!empty && !ReadValue(name, &v, &chars)) return false;
  DataSample* s = parent.sample;
  switch (spec.type) {
    case Field::kString: {
      if (!CheckString(spec.name, chars, at)) return false;
      static constexpr std::string DataSample::*kMember[] = {&DataSample::firstname, &DataSample::lastname,
                                                              &DataSample::city,      nullptr,
                                                              &DataSample::email,     nullptr,
                                                              &DataSample::designation};
      s->*kMember[parent.field] = std::string(v.data(), v.size());  // cheaper than assign() into an empty string
      break;
    }
    case Field::kZip:
      if (!ParseXsdUnsignedInt(Collapse(v), &s->zip)) return BadValue(spec, v, "xsd:unsignedInt", at);
      break;
    case Field::kInt:
      if (!ParseXsdInt(Collapse(v), &s->experience)) return BadValue(spec, v, "xsd:int", at);
      break;
    case Field::kDouble:
      if (!ParseXsdDouble(Collapse(v), &s->salary)) return BadValue(spec, v, "xsd:double", at);
      break;
    case Field::kBool:
      if (!ParseXsdBoolean(Collapse(v), &s->is_married)) return BadValue(spec, v, "xsd:boolean", at);
      break;
    case Field::kDateTime: {
      if (!CheckString(spec.name, chars, at)) return false;
      const std::string_view c = Collapse(v);
      if (!IsXsdDateTime(c)) return BadValue(spec, v, "xsd:dateTime", at);
      s->date_of_birth = std::string(c.data(), c.size());
      break;
    }
    default:
      break;
  }
  ++parent.field;
  return true;
}

// Reads an `item` of the StringList `parent` whose start tag was just read.
bool Reader::Item(Frame& parent, const char* at, std::string_view name, bool empty) {
  if (__builtin_expect(++parent.count > limits_.max_occurs, 0)) {
    return Fail(SampleReadProblem::kOccurs,
                "more than " + std::to_string(limits_.max_occurs) + " 'item' elements in one list", at);
  }
  std::string_view v;
  size_t chars = 0;
  if (!empty && !ReadValue(name, &v, &chars)) return false;
  if (!CheckString("item", chars, at)) return false;
  if (parent.strings->capacity() == 0) parent.strings->reserve(4);  // most lists are short: no regrowth
  parent.strings->emplace_back(v.data(), v.size());
  return true;
}

// Handles the start tag at `at` named `name` (local name `local`) whose attributes are in *tag
// (general path) or which has none (fast path); p_ is past the tag.
bool Reader::StartElement(const char* at, std::string_view name, std::string_view local, StartTag* tag,
                          bool general) {
  Frame& parent = stack_.back();
  const size_t depth = stack_.size();  // the root frame is level 0
  if (depth > limits_.max_depth) {
    return Fail(SampleReadProblem::kDepth,
                "elements nested deeper than " + std::to_string(limits_.max_depth) + " levels", at);
  }
  if (general) {
    const std::string_view expected = ExpectedName();
    if (expected.empty()) {
      return Schema("the element '" + std::string(name) + "' " + Inside() +
                        (parent.kind == Kind::kReference ? ", a reference, which must be empty" : " after its last child"),
                    at);
    }
    if (local != expected || tag->ns != XmlNamespace::kLather) {
      std::string where = tag->ns == XmlNamespace::kLather ? "" : (tag->qualified ? " (in another namespace)" : " (in no namespace)");
      if (local == expected) {
        return Schema("the element '" + std::string(name) + "'" + where + " " + Inside() + " where '" +
                          std::string(expected) + "' in urn:lather:v1 was expected",
                      at);
      }
      return Schema("the element '" + std::string(name) + "'" + where + " " + Inside() + " where '" +
                        std::string(expected) + "' was expected",
                    at);
    }
    if ((tag->has_id || tag->has_reference) && parent.kind != Kind::kList) {
      return Schema("an id or reference on '" + std::string(name) + "'; only 'sample' elements may carry one", at);
    }
  }
  Frame child;
  child.name = name.data();
  child.name_len = static_cast<uint32_t>(name.size());
  const bool empty = general ? tag->empty : at[name.size() + 1] == '/';
  switch (parent.kind) {
    case Kind::kRoot:
      child.kind = Kind::kWrapper;
      break;
    case Kind::kWrapper:
      ++parent.count;
      child.kind = Kind::kList;
      child.list = &out_->samples;
      break;
    case Kind::kStrings:
      return Item(parent, at, name, empty);
    case Kind::kList: {
      if (++parent.count > limits_.max_occurs) {
        return Fail(SampleReadProblem::kOccurs,
                    "more than " + std::to_string(limits_.max_occurs) + " 'sample' elements in one list", at);
      }
      if (general && tag->has_reference) {
        if (tag->has_id) return Schema("a 'sample' with both an id and a reference", at);
        graph_ = true;
        pending_.push_back(Pending{parent.list, parent.list->size(), tag->reference, tag->reference_spelled});
        parent.list->push_back(nullptr);
        child.kind = Kind::kReference;
        break;
      }
      DataSample* s = out_->Add();
      parent.list->push_back(s);
      if (general && tag->has_id) {
        graph_ = true;
        if (!ids_.emplace(tag->id, s).second) return Schema("the id '" + Excerpt(tag->id) + "' on two samples (duplicate id)", at);
      }
      child.kind = Kind::kSample;
      child.sample = s;
      break;
    }
    case Kind::kSample: {
      const FieldSpec& spec = kFields[parent.field];
      if (spec.type == Field::kStrings) {
        child.kind = Kind::kStrings;
        child.strings = parent.field == 5 ? &parent.sample->contact_nos : &parent.sample->companies_worked_for;
        ++parent.field;
      } else if (spec.type == Field::kList) {
        child.kind = Kind::kList;
        child.list = &parent.sample->children;
        ++parent.field;
      } else {
        return Value(parent, spec, at, name, empty);
      }
      break;
    }
    case Kind::kReference:
      break;
  }
  if (empty) {
    if (child.kind == Kind::kSample) return Schema("a 'sample' without 'firstname'", at);
    if (child.kind == Kind::kWrapper) return Schema("'" + std::string(name) + "' without 'samples'", at);
    return true;
  }
  stack_.push_back(child);
  return true;
}

bool Reader::Resolve() {
  for (const Pending& r : pending_) {
    const auto it = ids_.find(r.id);
    if (it == ids_.end()) return Schema(r.spelled + " names no sample", begin_ + result_->end);
    (*r.list)[r.index] = it->second;
  }
  return true;
}

bool Reader::Run(size_t start, std::string_view wrapper, const std::vector<NamespaceBinding>& scope) {
  wrapper_ = wrapper;
  p_ = begin_ + std::min(start, static_cast<size_t>(end_ - begin_));
  ns_.reserve(scope.size() + 8);
  for (const NamespaceBinding& b : scope) ns_.push_back(Binding{b.prefix, b.ns, false});
  stack_.reserve(16);
  Frame root;
  root.kind = Kind::kRoot;
  stack_.push_back(root);
  for (;;) {
    if (!(end_ - p_ >= 2 && *p_ == '<' && p_[1] != '?' && p_[1] != '!') && !SkipMisc()) return false;
    const char* at = p_;
    if (p_[1] == '/') {
      Frame& f = stack_.back();
      if (f.kind == Kind::kRoot) return Malformed("an end tag before '" + std::string(wrapper) + "'", at);
      if (f.kind == Kind::kSample && f.field < kFieldCount) {
        return Schema("the end of a 'sample' where '" + std::string(kFields[f.field].name) + "' was expected", at);
      }
      if (f.kind == Kind::kWrapper && f.count == 0) {
        return Schema("the end of '" + std::string(wrapper) + "' where 'samples' was expected", at);
      }
      if (!ReadEndTag(f.name, f.name_len)) return false;
      PopBindings(f.ns_mark);
      stack_.pop_back();
      if (stack_.back().kind == Kind::kRoot) break;
      continue;
    }
    // The fast path: the expected name with the cached prefix and no attributes.
    if (cached_epoch_ == epoch_) {
      if (tags_epoch_ != cached_epoch_) {
        if (!tags_built_ || tag_prefix_ != lather_prefix_) BuildTags(lather_prefix_);
        tags_epoch_ = cached_epoch_;
      }
      const int expected = ExpectedTag();
      if (expected >= 0) {
        const std::string& t = tags_[static_cast<size_t>(expected)];
        size_t len = t.size();
        const char* n = p_ + 1;
        if (static_cast<size_t>(end_ - n) > len + 1 && Equal(n, t.data(), len) &&
            (n[len] == '>' || (n[len] == '/' && n[len + 1] == '>'))) {
          bool empty = n[len] == '/';
          p_ = n + len + (empty ? 2 : 1);
          Frame& top = stack_.back();
          if (expected >= 4 && kSimpleField[expected - 4] && stack_.size() <= limits_.max_depth) {
            // Simple values of a sample, the hottest case: one after the other while the next is simple
            // and its start tag follows right away (siblings: the same depth).
            for (;;) {
              if (!Value(top, kFields[top.field], at, std::string_view(n, len), empty)) return false;
              if (top.field >= kFieldCount || !kSimpleField[top.field] || !NextTag(tags_[4 + top.field], &n, &len, &empty)) break;
              at = p_;
              p_ = n + len + (empty ? 2 : 1);
            }
            continue;
          }
          if (expected == 3 && stack_.size() <= limits_.max_depth) {
            for (;;) {  // items likewise
              if (!Item(top, at, std::string_view(n, len), empty)) return false;
              if (!NextTag(tags_[3], &n, &len, &empty)) break;
              at = p_;
              p_ = n + len + (empty ? 2 : 1);
            }
            continue;
          }
          const size_t mark = ns_.size();
          const size_t depth_before = stack_.size();
          // The name as written in the document (tags_ may be rebuilt while the element is open).
          if (!StartElement(at, std::string_view(n, len), {}, nullptr, false)) return false;
          if (stack_.size() > depth_before) stack_.back().ns_mark = mark;
          continue;
        }
      }
    }
    const size_t mark = ns_.size();
    if (!ParseStartTag(&tag_)) return false;
    const size_t depth_before = stack_.size();
    if (!StartElement(at, tag_.name, tag_.local, &tag_, true)) return false;
    if (stack_.size() > depth_before) {
      stack_.back().ns_mark = mark;
    } else {
      PopBindings(mark);  // a simple or empty element: its declarations end with it
    }
  }
  result_->end = static_cast<size_t>(p_ - begin_);
  out_->graph = graph_;
  return Resolve();
}

}  // namespace

SampleReadResult ReadSampleWrapper(std::string_view xml, size_t start, std::string_view wrapper,
                                   const std::vector<NamespaceBinding>& scope, const SampleReadLimits& limits,
                                   SampleSet* out) {
  out->Clear();
  SampleReadResult result;
  Reader reader(xml, limits, out, &result);
  if (!reader.Run(start, wrapper, scope)) {
    if (result.problem == SampleReadProblem::kNone) result.problem = SampleReadProblem::kMalformed;
    result.end = 0;
  }
  return result;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace lather
