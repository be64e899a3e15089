#include "service/soap/markup_limits.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace lather {

namespace {

bool IsXmlChar(uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
         (c >= 0x10000 && c <= 0x10FFFF);
}

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// The encoding named by the XML declaration, or empty.
std::string_view DeclaredEncoding(std::string_view body) {
  if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);
  if (body.substr(0, 5) != "<?xml") return {};
  const std::string_view declaration = body.substr(0, body.find("?>"));
  const size_t at = declaration.find("encoding");
  if (at == std::string_view::npos) return {};
  const size_t quote = declaration.find_first_of("\"'", at);
  if (quote == std::string_view::npos) return {};
  const size_t close = declaration.find(declaration[quote], quote + 1);
  if (close == std::string_view::npos) return {};
  return declaration.substr(quote + 1, close - quote - 1);
}

// True if none of the 8 bytes at `p` needs a closer look: all ASCII, none below 0x20, none '&'.
// (Most of a SOAP message: one test per 8 bytes instead of one per byte.)
bool PlainAsciiWord(const char* p) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  const uint64_t below_space = (w - 0x20 * kOnes) & ~w & kHighs;  // a byte < 0x20 (high bytes: caught next)
  const uint64_t x = w ^ ('&' * kOnes);
  const uint64_t ampersand = (x - kOnes) & ~x & kHighs;
  return ((w & kHighs) | below_space | ampersand) == 0;
}

// The CDATA sections and comments of a body, found lazily from left to right: '&' is plain text in
// them. Each byte of the body is searched at most once over all calls.
class LiteralSections {
 public:
  explicit LiteralSections(std::string_view body) : body_(body) { Next(0); }

  // True if body[at] lies in a CDATA section or a comment; `at` must not decrease between calls.
  bool Contains(size_t at) {
    while (end_ <= at) Next(end_);
    return start_ <= at;
  }

 private:
  void Next(size_t from) {
    for (;;) {
      const size_t open = FindMarkupDeclaration(from);
      if (open == std::string_view::npos) {
        start_ = end_ = std::string_view::npos;
        return;
      }
      const std::string_view rest = body_.substr(open);
      const std::string_view close = rest.substr(0, 9) == "<![CDATA[" ? "]]>" : rest.substr(0, 4) == "<!--" ? "-->" : "";
      if (close.empty()) {  // <!DOCTYPE and the like: refused elsewhere, not literal text
        from = open + 2;
        continue;
      }
      const size_t found = body_.find(close, open + 4);
      start_ = open;
      end_ = found == std::string_view::npos ? body_.size() : found + close.size();
      return;
    }
  }

  // body_.find("<!", from), searching for the rare '!' (memchr) instead of stopping at every '<'.
  size_t FindMarkupDeclaration(size_t from) const {
    for (size_t bang = from + 1; bang < body_.size(); ++bang) {
      bang = body_.find('!', bang);
      if (bang == std::string_view::npos) break;
      if (body_[bang - 1] == '<') return bang - 1;
    }
    return std::string_view::npos;
  }

  std::string_view body_;
  size_t start_ = 0, end_ = 0;  // the section at or after the last position asked about
};

bool IsXmlSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// What a byte means inside a tag, for CountMarkup: most bytes are part of a name.
enum : unsigned char { kTagName = 0, kTagSeparator, kTagQuote, kTagEquals, kTagClose };
constexpr std::array<unsigned char, 256> MakeTagByteTable() {
  std::array<unsigned char, 256> table{};
  for (const char c : {' ', '\t', '\r', '\n', '/'}) table[static_cast<unsigned char>(c)] = kTagSeparator;
  table['"'] = table['\''] = kTagQuote;
  table['='] = kTagEquals;
  table['>'] = kTagClose;
  return table;
}
constexpr std::array<unsigned char, 256> kTagByte = MakeTagByteTable();

// The first byte at or after `c` (before `end`) that is not part of a name: a separator, a quote, '=' or
// '>'. Sixteen bytes at a time with SSE2 (x86-64), where most of a tag is its name.
const char* SkipNameBytes(const char* c, const char* end) {
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), cr = _mm_set1_epi8('\r');
  const __m128i lf = _mm_set1_epi8('\n'), slash = _mm_set1_epi8('/'), dquote = _mm_set1_epi8('"');
  const __m128i squote = _mm_set1_epi8('\''), equals = _mm_set1_epi8('='), close = _mm_set1_epi8('>');
  while (end - c >= 16) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(c));
    const __m128i blank = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(b, space), _mm_cmpeq_epi8(b, tab)),
                                       _mm_or_si128(_mm_cmpeq_epi8(b, cr), _mm_cmpeq_epi8(b, lf)));
    const __m128i other = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(b, slash), _mm_cmpeq_epi8(b, dquote)),
                                       _mm_or_si128(_mm_cmpeq_epi8(b, squote), _mm_cmpeq_epi8(b, equals)));
    const int mask = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(blank, other), _mm_cmpeq_epi8(b, close)));
    if (mask != 0) return c + __builtin_ctz(static_cast<unsigned>(mask));
    c += 16;
  }
#endif
  while (c < end && kTagByte[static_cast<unsigned char>(*c)] == kTagName) ++c;
  return c;
}

// The first attribute of the start tag [open, close) whose local name is href or ref, or empty.
std::string_view ReferenceIn(std::string_view tag) {
  size_t k = 1;
  while (k < tag.size() && !IsXmlSpace(tag[k]) && tag[k] != '/') ++k;  // the element's name
  for (;;) {
    while (k < tag.size() && IsXmlSpace(tag[k])) ++k;
    const size_t start = k;
    while (k < tag.size() && tag[k] != '=' && !IsXmlSpace(tag[k]) && tag[k] != '/') ++k;
    if (k == start) return {};
    const std::string_view name = tag.substr(start, k - start);
    while (k < tag.size() && IsXmlSpace(tag[k])) ++k;
    if (k >= tag.size() || tag[k] != '=') return {};
    ++k;
    while (k < tag.size() && IsXmlSpace(tag[k])) ++k;
    if (k >= tag.size() || (tag[k] != '"' && tag[k] != '\'')) return {};
    const size_t end = tag.find(tag[k], k + 1);
    if (end == std::string_view::npos) return {};
    k = end + 1;
    const size_t colon = name.find(':');
    const std::string_view local = colon == std::string_view::npos ? name : name.substr(colon + 1);
    const std::string_view prefix = colon == std::string_view::npos ? std::string_view() : name.substr(0, colon);
    if ((local == "href" || local == "ref") && prefix != "xmlns") return name;
  }
}

// True if the "<?" at `open` in `body` is the XML declaration: "<?xml" and white space, after nothing but
// white space and a UTF-8 BOM.
bool IsXmlDeclaration(std::string_view body, size_t open) {
  const std::string_view rest = body.substr(open);
  if (rest.size() < 6 || rest.substr(0, 5) != "<?xml" || !IsXmlSpace(rest[5])) return false;
  size_t p = body.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (p < open && IsXmlSpace(body[p])) ++p;
  return p == open;
}

}  // namespace

std::string_view CharacterProblem(std::string_view body) {
  const std::string_view encoding = DeclaredEncoding(body);
  if (!encoding.empty()) {
    std::string lower(encoding.size(), ' ');
    std::transform(encoding.begin(), encoding.end(), lower.begin(), Lower);
    if (lower != "utf-8" && lower != "utf8" && lower != "us-ascii" && lower != "ascii") {
      return "an encoding declaration other than UTF-8 (only UTF-8 is accepted)";
    }
  }
  size_t i = 0;
  LiteralSections literal(body);  // only asked at a '&', which the 8-byte steps stop at
  while (i < body.size()) {
    if (i + 8 <= body.size() && PlainAsciiWord(body.data() + i)) {
      i += 8;
      continue;
    }
    const auto c = static_cast<unsigned char>(body[i]);
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return "a control character that XML 1.0 forbids";
      const bool reference = c == '&' && !literal.Contains(i);
      if (reference && (i + 1 >= body.size() || body[i + 1] != '#')) {
        // Without a DTD (refused) only the five predefined entities exist; gSOAP would keep any
        // other reference as literal text.
        const std::string_view name = body.substr(i + 1, body.substr(i + 1, 8).find(';'));
        if (name != "lt" && name != "gt" && name != "amp" && name != "quot" && name != "apos") {
          return "an entity reference that is not declared (only &lt; &gt; &amp; &quot; &apos; are)";
        }
      }
      if (reference && i + 2 < body.size() && body[i + 1] == '#') {
        // A numeric character reference must name a character XML allows.
        const bool hex = body[i + 2] == 'x';
        size_t k = i + (hex ? 3 : 2);
        uint64_t value = 0;
        size_t digits = 0;
        for (; k < body.size() && body[k] != ';' && digits < 12; ++k, ++digits) {
          const char d = Lower(body[k]);
          const int v = (d >= '0' && d <= '9') ? d - '0' : (hex && d >= 'a' && d <= 'f') ? d - 'a' + 10 : -1;
          if (v < 0) return "a malformed character reference";
          value = value * (hex ? 16 : 10) + static_cast<uint64_t>(v);
        }
        if (digits == 0 || digits >= 12 || !IsXmlChar(static_cast<uint32_t>(value))) {
          return "a character reference to a character that XML 1.0 forbids";
        }
      }
      ++i;
      continue;
    }
    size_t extra;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) { extra = 1; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { extra = 2; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { extra = 3; cp = c & 0x07; }
    else return "bytes that are not UTF-8";
    if (i + extra >= body.size()) return "bytes that are not UTF-8";
    for (size_t k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(body[i + k]);
      if ((cc & 0xC0) != 0x80) return "bytes that are not UTF-8";
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return "bytes that are not UTF-8";
    if (!IsXmlChar(cp)) return "a character that XML 1.0 forbids";
    i += extra + 1;
  }
  return {};
}

MarkupCounts CountMarkup(std::string_view body, size_t attribute_limit, size_t name_limit, bool document_start) {
  MarkupCounts counts;
  const char* p = body.data();
  const char* const end = body.data() + body.size();
  while (p < end) {
    const char* open = static_cast<const char*>(std::memchr(p, '<', static_cast<size_t>(end - p)));
    if (open == nullptr) break;
    const std::string_view rest(open, static_cast<size_t>(end - open));
    if (rest.size() > 1 && rest[1] == '!' && (rest.substr(0, 4) == "<!--" || rest.substr(0, 9) == "<![CDATA[")) {
      const size_t close = rest.find(rest[2] == '-' ? "-->" : "]]>");
      if (close == std::string_view::npos) break;
      p = open + close + 3;
      continue;
    }
    if (rest.size() > 1 && rest[1] == '?' && counts.processing_instruction.empty() &&
        !(document_start && IsXmlDeclaration(body, static_cast<size_t>(open - body.data())))) {
      counts.processing_instruction = rest.substr(0, std::min<size_t>(32, rest.find("?>")));
    }
    // One pass over the tag, up to the first '>' (quoted or not) or the end: '=' outside quotes ends
    // an attribute name, quoted values are skipped, a name is a run of bytes between separators.
    size_t attributes = 0;
    const char* c = open + 1;
    const char* name = c;  // start of the current name run; null inside a quoted value
    for (; c < end; ++c) {
      c = SkipNameBytes(c, end);
      if (c == end) break;
      const unsigned char k = kTagByte[static_cast<unsigned char>(*c)];
      counts.longest_name = std::max(counts.longest_name, static_cast<size_t>(c - name));
      if (k == kTagClose) break;
      if (k == kTagEquals) {
        ++attributes;
      } else if (k == kTagQuote) {
        const char quote = *c;
        do ++c; while (c < end && *c != quote && *c != '>');
        if (c == end || *c == '>') {
          name = nullptr;
          break;
        }
      }
      name = c + 1;
    }
    if (c == end && name != nullptr) counts.longest_name = std::max(counts.longest_name, static_cast<size_t>(c - name));
    const char* close = c;
    counts.most_attributes = std::max(counts.most_attributes, attributes);
    if (attributes > 0 && counts.reference.empty() && open[1] != '?' && open[1] != '!') {
      counts.reference = ReferenceIn(std::string_view(open, static_cast<size_t>(close - open)));
    }
    if (counts.most_attributes > attribute_limit || counts.longest_name > name_limit) return counts;
    p = close;
  }
  return counts;
}

size_t LongestTextRun(std::string_view body) {
  size_t longest = 0;
  size_t from = 0;
  while (from < body.size()) {
    const size_t gt = body.find('>', from);
    if (gt == std::string_view::npos) break;
    const size_t lt = body.find('<', gt + 1);
    const size_t text_end = lt == std::string_view::npos ? body.size() : lt;
    longest = std::max(longest, text_end - gt - 1);
    from = text_end;
  }
  return longest;
}

}  // namespace lather
