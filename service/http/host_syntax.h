// Host syntax: whether a Host header value, or the authority of an absolute-form request target, is a
// valid uri-host [ ":" port ] (RFC 9110 7.2 and 4.2, RFC 3986 3.2.2 and 3.2.3). RFC 9112 3.2: a server
// MUST answer 400 to a request whose Host is invalid. Pure functions; thread-safe.
#pragma once

#include <string_view>

namespace lather {

// True if `value` is uri-host [ ":" port ]: a reg-name (unreserved, sub-delims and %HH), an IPv4
// address (a reg-name by its characters) or a bracketed IPv6 address or IPvFuture, then optionally ':'
// and digits. An empty value is valid (RFC 9110 7.2: a target URI without an authority); userinfo
// ("user@host") is not, nor white space, a second ':' outside brackets or a bracket left open.
bool IsValidHostValue(std::string_view value);

// The host part of a valid `value` (without the port and its ':'); "" for an invalid one.
std::string_view HostWithoutPort(std::string_view value);

}  // namespace lather
