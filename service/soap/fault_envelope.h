// The SOAP Fault envelopes the service writes itself (for every rejection made before gSOAP reads
// an envelope, so every client sees a reason), the SOAP media types, and the version a Content-Type
// announces. Stateless functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace lather {

inline constexpr std::string_view kSoap11ContentType = "text/xml; charset=utf-8";
inline constexpr std::string_view kSoap12ContentType = "application/soap+xml; charset=utf-8";

// The SOAP version a Content-Type announces: 1 for text/xml, 2 for application/soap+xml, 0 otherwise.
int SoapVersionOfContentType(std::string_view content_type);

// Appends a complete Fault envelope of `soap_version` (1 or 2): Client/Sender when
// `sender_fault`, Server/Receiver otherwise, with `reason` XML-escaped as the faultstring/Reason.
void AppendFaultEnvelope(int soap_version, bool sender_fault, std::string_view reason, std::string* out);

// Appends a SOAP 1.2 MustUnderstand fault whose Header holds an env:NotUnderstood block naming the
// header block `local_name` in namespace `ns` (SOAP 1.2 part 1, 5.4.8).
void AppendNotUnderstoodFault(std::string_view local_name, std::string_view ns, std::string* out);

// Appends a SOAP 1.1 VersionMismatch fault (the answer to an envelope of the other version than its
// binding's, SOAP 1.2 part 1 appendix A) with `reason`, and an Upgrade header block naming the envelopes
// this service supports (SOAP 1.2 part 1, 5.4.7).
void AppendVersionMismatchFault(std::string_view reason, std::string* out);

// Appends a SOAP 1.2 env:VersionMismatch fault with `reason` and an env:Upgrade header block naming the
// envelopes this service supports, SOAP 1.2's first (SOAP 1.2 part 1, 5.4.7: a node that generates a
// VersionMismatch fault SHOULD provide it).
void AppendVersionMismatchFault12(std::string_view reason, std::string* out);

// Appends `text` with &, <, >, " escaped.
void AppendXmlEscaped(std::string_view text, std::string* out);

}  // namespace lather
