// Helpers that write HTTP responses: the status line and headers, and the SOAP Fault envelope the
// service sends with every rejection made at the HTTP layer (so every client sees a reason).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lather {

inline constexpr std::string_view kSoap11ContentType = "text/xml; charset=utf-8";
inline constexpr std::string_view kSoap12ContentType = "application/soap+xml; charset=utf-8";

// The reason phrase for an HTTP status code ("OK", "Bad Request", ...).
std::string_view StatusReason(int status);

// Appends the status line and headers (Content-Type, Content-Length, Connection: close when
// !keep_alive, then `extra_headers`, each ending in CRLF) and the blank line to *out.
void AppendResponseHead(int status, std::string_view content_type, size_t content_length,
                        bool keep_alive, std::string_view extra_headers, std::string* out);

// The SOAP version a Content-Type announces: 1 for text/xml, 2 for application/soap+xml, 0 otherwise.
int SoapVersionOfContentType(std::string_view content_type);

// The value of a Content-Type parameter such as action="..." (quotes removed), empty if absent.
std::string_view ContentTypeParameter(std::string_view content_type, std::string_view name);

// Appends a complete Fault envelope of `soap_version` (1 or 2): Client/Sender when
// `sender_fault`, Server/Receiver otherwise, with `reason` XML-escaped as the faultstring/Reason.
void AppendFaultEnvelope(int soap_version, bool sender_fault, std::string_view reason, std::string* out);

// Appends a SOAP 1.2 MustUnderstand fault whose Header holds an env:NotUnderstood block naming the
// header block `local_name` in namespace `ns` (SOAP 1.2 part 1, 5.4.8).
void AppendNotUnderstoodFault(std::string_view local_name, std::string_view ns, std::string* out);

// Appends `text` with &, <, >, " escaped.
void AppendXmlEscaped(std::string_view text, std::string* out);

}  // namespace lather
