// Helpers that write HTTP responses (the status line and headers) and read Content-Type values.
// Stateless functions; thread-safe. The SOAP Fault bodies live in service/soap/fault_envelope.h.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lather {

// The reason phrase for an HTTP status code ("OK", "Bad Request", ...).
std::string_view StatusReason(int status);

// Appends the status line and headers (Content-Type, Content-Length, Connection: close when
// !keep_alive, then `extra_headers`, each ending in CRLF) and the blank line to *out.
// "Date: Tue, 01 Dec 2026 22:33:34 GMT\r\n" for now (RFC 9110 6.6.1: an origin server with a clock sends
// Date), formatted once a second per thread. The view stays valid until the thread's next call.
std::string_view DateHeaderLine();

void AppendResponseHead(int status, std::string_view content_type, size_t content_length,
                        bool keep_alive, std::string_view extra_headers, std::string* out);

// The media type of a Content-Type value ("text/xml" of "text/xml; charset=utf-8"), blanks trimmed.
std::string_view MediaType(std::string_view content_type);

// True if `a` and `b` are equal ignoring ASCII case.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// The value of a Content-Type parameter such as action="..." (quotes removed), empty if absent.
std::string_view ContentTypeParameter(std::string_view content_type, std::string_view name);

}  // namespace lather
