#include "service/http/host_syntax.h"

#include <arpa/inet.h>

#include <string>

#include "common/char_table.h"

namespace lather {
namespace {

constexpr bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
constexpr bool IsHexDigit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
constexpr bool IsUnreserved(char c) { return IsAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~'; }
constexpr bool IsSubDelim(char c) {
  switch (c) {
    case '!': case '$': case '&': case '\'': case '(': case ')': case '*': case '+': case ',': case ';': case '=':
      return true;
    default:
      return false;
  }
}

constexpr CharTable kUnreservedOrSubDelim([](char c) { return IsUnreserved(c) || IsSubDelim(c); });

// reg-name = *( unreserved / pct-encoded / sub-delims )
bool IsRegName(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 >= s.size() || !IsHexDigit(s[i + 1]) || !IsHexDigit(s[i + 2])) return false;
      i += 2;
    } else if (!kUnreservedOrSubDelim(s[i])) {
      return false;
    }
  }
  return true;
}

// IP-literal = "[" ( IPv6address / IPvFuture ) "]", given what is between the brackets.
bool IsIpLiteralContent(std::string_view s) {
  if (!s.empty() && (s[0] == 'v' || s[0] == 'V')) {  // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
    size_t i = 1;
    while (i < s.size() && IsHexDigit(s[i])) ++i;
    if (i == 1 || i >= s.size() || s[i] != '.' || i + 1 == s.size()) return false;
    for (++i; i < s.size(); ++i) {
      if (!IsUnreserved(s[i]) && !IsSubDelim(s[i]) && s[i] != ':') return false;
    }
    return true;
  }
  if (s.empty() || s.size() > 45) return false;  // the longest IPv6 text form is 45 characters
  const std::string text(s);
  in6_addr address;
  return inet_pton(AF_INET6, text.c_str(), &address) == 1;
}

// Where the port's ':' is in a syntactically valid value, npos when there is no port; `valid` says
// whether the value is uri-host [ ":" port ].
size_t PortColon(std::string_view value, bool* valid) {
  *valid = false;
  size_t host_end = 0;
  if (!value.empty() && value[0] == '[') {
    const size_t close = value.find(']');
    if (close == std::string_view::npos || !IsIpLiteralContent(value.substr(1, close - 1))) return std::string_view::npos;
    host_end = close + 1;
  } else {
    host_end = value.find(':');
    if (host_end == std::string_view::npos) host_end = value.size();
    if (!IsRegName(value.substr(0, host_end))) return std::string_view::npos;
  }
  if (host_end == value.size()) {
    *valid = true;
    return std::string_view::npos;
  }
  if (value[host_end] != ':') return std::string_view::npos;
  for (size_t i = host_end + 1; i < value.size(); ++i) {  // port = *DIGIT
    if (value[i] < '0' || value[i] > '9') return std::string_view::npos;
  }
  *valid = true;
  return host_end;
}

}  // namespace

bool IsValidHostValue(std::string_view value) {
  bool valid = false;
  PortColon(value, &valid);
  return valid;
}

std::string_view HostWithoutPort(std::string_view value) {
  bool valid = false;
  const size_t colon = PortColon(value, &valid);
  if (!valid) return {};
  return colon == std::string_view::npos ? value : value.substr(0, colon);
}

}  // namespace lather
