#include "client/wsdl/xsd_value.h"

#include <cstring>
#include <map>
#include <regex>
#include <sstream>
#include <vector>

namespace lather::wsdl {
namespace {

__extension__ typedef __int128 Int128;  // the integer types' bounds, unsignedLong's among them

struct IntRange {
  bool has_min, has_max;
  Int128 min, max;
};

constexpr Int128 kU64Max = static_cast<Int128>(~0ULL);

const std::map<std::string, IntRange>& IntegerTypes() {
  static const std::map<std::string, IntRange> types = {
      {"integer", {false, false, 0, 0}},
      {"nonNegativeInteger", {true, false, 0, 0}},
      {"positiveInteger", {true, false, 1, 0}},
      {"nonPositiveInteger", {false, true, 0, 0}},
      {"negativeInteger", {false, true, 0, -1}},
      {"long", {true, true, INT64_MIN, INT64_MAX}},
      {"int", {true, true, INT32_MIN, INT32_MAX}},
      {"short", {true, true, INT16_MIN, INT16_MAX}},
      {"byte", {true, true, INT8_MIN, INT8_MAX}},
      {"unsignedLong", {true, true, 0, kU64Max}},
      {"unsignedInt", {true, true, 0, UINT32_MAX}},
      {"unsignedShort", {true, true, 0, UINT16_MAX}},
      {"unsignedByte", {true, true, 0, UINT8_MAX}},
  };
  return types;
}

const std::map<std::string, std::regex>& Forms() {
  static const std::string tz = "(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?";
  static const std::string date = "-?([1-9][0-9]{4,}|[0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])";
  static const std::string time = "(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?|24:00:00(\\.0+)?)";
  static const std::string name = "[A-Za-z_:][A-Za-z0-9._:-]*";
  static const std::string ncname = "[A-Za-z_][A-Za-z0-9._-]*";
  static const std::map<std::string, std::regex> forms = {
      {"decimal", std::regex("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)")},
      {"float", std::regex("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN")},
      {"double", std::regex("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN")},
      {"boolean", std::regex("true|false|1|0")},
      {"dateTime", std::regex(date + "T" + time + tz)},
      {"date", std::regex(date + tz)},
      {"time", std::regex(time + tz)},
      {"duration", std::regex("-?P(?=[0-9T])([0-9]+Y)?([0-9]+M)?([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+(\\.[0-9]+)?S)?)?")},
      {"gYearMonth", std::regex("-?[0-9]{4,}-(0[1-9]|1[0-2])" + tz)},
      {"gYear", std::regex("-?[0-9]{4,}" + tz)},
      {"gMonthDay", std::regex("--(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])" + tz)},
      {"gDay", std::regex("---(0[1-9]|[12][0-9]|3[01])" + tz)},
      {"gMonth", std::regex("--(0[1-9]|1[0-2])" + tz)},
      {"hexBinary", std::regex("([0-9a-fA-F]{2})*")},
      {"base64Binary", std::regex("([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")},
      {"QName", std::regex("(" + ncname + ":)?" + ncname)},
      {"NOTATION", std::regex("(" + ncname + ":)?" + ncname)},
      {"Name", std::regex(name)},
      {"NCName", std::regex(ncname)},
      {"ID", std::regex(ncname)},
      {"IDREF", std::regex(ncname)},
      {"ENTITY", std::regex(ncname)},
      {"NMTOKEN", std::regex("[A-Za-z0-9._:-]+")},
      {"language", std::regex("[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*")},
  };
  return forms;
}

bool IsStringLike(const std::string& builtin) {
  return builtin == "string" || builtin == "normalizedString" || builtin == "anySimpleType";
}

std::string Collapse(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      space = false;
      out += c;
    }
  }
  return out;
}

size_t CodePoints(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

bool ParseInteger(const std::string& text, Int128* value, bool* overflow) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  if (i == text.size()) return false;
  Int128 v = 0;
  *overflow = false;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    if (v > (static_cast<Int128>(1) << 100)) *overflow = true;
    else v = v * 10 + (text[i] - '0');
  }
  *value = negative ? -v : v;
  return true;
}

std::string IntText(Int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string digits;
  for (; v != 0; v /= 10) digits.insert(digits.begin(), static_cast<char>('0' + (negative ? -(v % 10) : v % 10)));
  return negative ? "-" + digits : digits;
}

// XSD regular expressions as ECMAScript: implicitly anchored, '^' and '$' ordinary characters, \i and \c
// the XML name classes. False for what ECMAScript cannot express (\p{..} categories, subtraction).
bool TranslatePattern(const std::string& xsd, std::string* out) {
  out->clear();
  bool in_class = false;
  for (size_t i = 0; i < xsd.size(); ++i) {
    const char c = xsd[i];
    if (c == '\\' && i + 1 < xsd.size()) {
      const char e = xsd[++i];
      if (e == 'i') *out += in_class ? "A-Za-z_:" : "[A-Za-z_:]";
      else if (e == 'c') *out += in_class ? "A-Za-z0-9._:\\-" : "[A-Za-z0-9._:\\-]";
      else if (e == 'I') { if (in_class) return false; *out += "[^A-Za-z_:]"; }
      else if (e == 'C') { if (in_class) return false; *out += "[^A-Za-z0-9._:\\-]"; }
      else if (e == 'p' || e == 'P') return false;
      else { *out += '\\'; *out += e; }
      continue;
    }
    if (in_class && c == '-' && i + 1 < xsd.size() && xsd[i + 1] == '[') return false;  // class subtraction
    if (c == '[') in_class = true;
    else if (c == ']') in_class = false;
    if (!in_class && (c == '^' || c == '$')) {
      *out += '\\';
    }
    *out += c;
  }
  return true;
}

bool CompareNumbers(const std::string& a, const std::string& b, int* order) {
  try {
    const long double x = std::stold(a), y = std::stold(b);
    *order = x < y ? -1 : (x > y ? 1 : 0);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

bool IsNumeric(const std::string& builtin) {
  return IntegerTypes().count(builtin) != 0 || builtin == "decimal" || builtin == "float" || builtin == "double";
}

Status CheckBuiltin(const std::string& builtin, const std::string& value) {
  const auto integer = IntegerTypes().find(builtin);
  if (integer != IntegerTypes().end()) {
    Int128 v = 0;
    bool overflow = false;
    if (!ParseInteger(value, &v, &overflow)) return Status::InvalidArgument("'" + value + "' is not an xsd:" + builtin);
    const IntRange& r = integer->second;
    // Beyond 2^100 only its sign is known: out of range when the type is bounded on that side.
    if ((overflow && (v < 0 ? r.has_min : r.has_max)) || (r.has_min && v < r.min) || (r.has_max && v > r.max)) {
      return Status::InvalidArgument("'" + value + "' is outside the range of xsd:" + builtin +
                                     (r.has_min ? " [" + IntText(r.min) : " (-inf") + ", " +
                                     (r.has_max ? IntText(r.max) + "]" : "inf)"));
    }
    return Status::Ok();
  }
  const auto form = Forms().find(builtin);
  std::string ascii = value;  // the name forms take any non-ASCII letter: matched as 'a'
  for (char& c : ascii) if (static_cast<unsigned char>(c) >= 0x80) c = 'a';
  if (form != Forms().end() && !std::regex_match(ascii, form->second)) {
    return Status::InvalidArgument("'" + value + "' is not an xsd:" + builtin);
  }
  return Status::Ok();
}

}  // namespace

Status CheckValue(const SimpleType& type, const std::string& text, std::string* unchecked) {
  if (type.builtin == "union") {
    std::string reasons;
    for (const SimpleType& member : type.members) {
      Status s = CheckValue(member, text, unchecked);
      if (s.ok()) return s;
      reasons += (reasons.empty() ? "" : "; ") + s.message();
    }
    return Status::InvalidArgument("'" + text + "' is none of " + type.display + " (" + reasons + ")");
  }
  const std::string value = IsStringLike(type.builtin) ? text : Collapse(text);
  const Facets& f = type.facets;
  size_t length = CodePoints(value);
  if (type.list) {
    std::istringstream items(value);
    std::string item;
    length = 0;
    while (items >> item) {
      ++length;
      Status s = CheckBuiltin(type.builtin, item);
      if (!s.ok()) return s;
    }
  } else {
    Status s = CheckBuiltin(type.builtin, value);
    if (!s.ok()) return s;
    if (type.builtin == "hexBinary") length = value.size() / 2;
    if (type.builtin == "base64Binary") {
      std::string compact;
      for (char c : value) if (c != ' ') compact += c;
      length = compact.size() / 4 * 3 - (compact.size() >= 1 && compact.back() == '=') -
               (compact.size() >= 2 && compact[compact.size() - 2] == '=');
    }
  }
  if (!f.enumeration.empty()) {
    bool found = false;
    std::string allowed;
    for (const std::string& e : f.enumeration) {
      found = found || e == value;
      allowed += (allowed.empty() ? "" : ", ") + e;
    }
    if (!found) return Status::InvalidArgument("'" + value + "' is not one of " + allowed);
  }
  const std::string unit = type.list ? " items" : " characters";
  if (f.length && length != *f.length) {
    return Status::InvalidArgument("'" + value + "' has " + std::to_string(length) + unit + ", not " + std::to_string(*f.length));
  }
  if (f.min_length && length < *f.min_length) {
    return Status::InvalidArgument("'" + value + "' has " + std::to_string(length) + unit + ", fewer than " +
                                   std::to_string(*f.min_length));
  }
  if (f.max_length && length > *f.max_length) {
    return Status::InvalidArgument("'" + value + "' has " + std::to_string(length) + unit + ", more than " +
                                   std::to_string(*f.max_length));
  }
  for (const std::vector<std::string>& step : f.patterns) {
    bool matched = false;
    for (const std::string& pattern : step) {
      std::string ecma;
      if (!TranslatePattern(pattern, &ecma)) {
        if (unchecked != nullptr) *unchecked = "pattern " + pattern;
        matched = true;
        break;
      }
      try {
        if (std::regex_match(value, std::regex(ecma))) matched = true;
      } catch (const std::regex_error&) {
        if (unchecked != nullptr) *unchecked = "pattern " + pattern;
        matched = true;
      }
      if (matched) break;
    }
    if (!matched) return Status::InvalidArgument("'" + value + "' does not match the pattern " + step.front());
  }
  if (IsNumeric(type.builtin)) {
    int order = 0;
    if (f.min_inclusive && CompareNumbers(value, *f.min_inclusive, &order) && order < 0) {
      return Status::InvalidArgument("'" + value + "' is below the minimum " + *f.min_inclusive);
    }
    if (f.max_inclusive && CompareNumbers(value, *f.max_inclusive, &order) && order > 0) {
      return Status::InvalidArgument("'" + value + "' is above the maximum " + *f.max_inclusive);
    }
    if (f.min_exclusive && CompareNumbers(value, *f.min_exclusive, &order) && order <= 0) {
      return Status::InvalidArgument("'" + value + "' is not above " + *f.min_exclusive);
    }
    if (f.max_exclusive && CompareNumbers(value, *f.max_exclusive, &order) && order >= 0) {
      return Status::InvalidArgument("'" + value + "' is not below " + *f.max_exclusive);
    }
    if (f.total_digits || f.fraction_digits) {
      std::string digits = value;
      if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.erase(0, 1);
      const size_t dot = digits.find('.');
      std::string whole = digits.substr(0, dot);
      std::string fraction = dot == std::string::npos ? "" : digits.substr(dot + 1);
      while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
      while (whole.size() > 1 && whole[0] == '0') whole.erase(0, 1);
      if (whole == "0" && !fraction.empty()) whole.clear();  // 0.12 is 12 x 10^-2: two digits
      if (f.fraction_digits && fraction.size() > *f.fraction_digits) {
        return Status::InvalidArgument("'" + value + "' has more than " + std::to_string(*f.fraction_digits) +
                                       " fraction digits");
      }
      if (f.total_digits && whole.size() + fraction.size() > *f.total_digits) {
        return Status::InvalidArgument("'" + value + "' has more than " + std::to_string(*f.total_digits) + " digits");
      }
    }
  }
  return Status::Ok();
}

std::string SampleValue(const SimpleType& type) {
  if (type.builtin == "union") return type.members.empty() ? "" : SampleValue(type.members.front());
  const Facets& f = type.facets;
  if (!f.enumeration.empty()) return f.enumeration.front();
  const std::string& b = type.builtin;
  std::string v;
  if (IsNumeric(b)) {
    v = b == "positiveInteger" ? "1" : b == "negativeInteger" ? "-1" : "0";
    if (f.min_inclusive) v = *f.min_inclusive;
    else if (f.min_exclusive) {
      Int128 x = 0;
      bool overflow = false;
      v = ParseInteger(*f.min_exclusive, &x, &overflow) && !overflow ? IntText(x + 1) : *f.min_exclusive + "1";
    } else if (f.max_inclusive && !CheckValue(type, v).ok()) {
      v = *f.max_inclusive;
    } else if (f.max_exclusive && !CheckValue(type, v).ok()) {  // the whole part of the bound, less one
      Int128 x = 0;
      bool overflow = false;
      std::string whole = f.max_exclusive->substr(0, f.max_exclusive->find('.'));
      if (whole.empty() || whole == "-" || whole == "+") whole += "0";
      if (ParseInteger(whole, &x, &overflow) && !overflow) v = IntText(x - 1);
    }
  } else if (b == "boolean") v = "false";
  else if (b == "dateTime") v = "2000-01-01T00:00:00Z";
  else if (b == "date") v = "2000-01-01";
  else if (b == "time") v = "00:00:00";
  else if (b == "duration") v = "P1D";
  else if (b == "gYear") v = "2000";
  else if (b == "gYearMonth") v = "2000-01";
  else if (b == "gMonthDay") v = "--01-01";
  else if (b == "gDay") v = "---01";
  else if (b == "gMonth") v = "--01";
  else if (b == "hexBinary") v = "00";
  else if (b == "base64Binary") v = "AA==";
  else if (b == "anyURI") v = "http://example.org/";
  else if (b == "language") v = "en";
  else {
    v = "sample";
    uint64_t want = f.length ? *f.length : f.min_length && *f.min_length > v.size() ? *f.min_length : v.size();
    if (f.max_length && want > *f.max_length) want = *f.max_length;
    while (v.size() < want) v += 'x';
    if (v.size() > want) v.resize(want);
  }
  if (!CheckValue(type, v).ok()) {  // a pattern: try a few common shapes
    for (const char* candidate : {"0", "A", "a", "AA", "00", "A1", "1", "ABC", "000", "0000", "00000", "A-1", ""}) {
      if (CheckValue(type, candidate).ok()) return candidate;
    }
  }
  return v;
}

JsonKind JsonKindOf(const SimpleType& type) {
  if (type.list) return JsonKind::kString;
  if (type.builtin == "boolean") return JsonKind::kBoolean;
  if (IsNumeric(type.builtin)) return JsonKind::kNumber;
  return JsonKind::kString;
}

}  // namespace lather::wsdl
