// What several integration tests build the same way: a typed client of the service under test, and
// a SOAP envelope around a Body's content. Plain functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "client/soap_client.h"
#include "tests/integration/service_process.h"

namespace lather::test {

inline constexpr char kXmlDeclaration[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

// A Client of `service` (SOAP 1.2 when `soap12`) whose calls time out after `timeout_seconds`.
Client MakeClient(const ServiceProcess& service, bool soap12 = false, int timeout_seconds = 10);

// `prolog`, then an Envelope of namespace `ns` (kEnv11 or kEnv12) declaring l = urn:lather:v1, whose
// Body holds `body_content`.
std::string Envelope(const char* ns, const std::string& body_content, const std::string& prolog = kXmlDeclaration);

// The same Envelope with nothing before it (no XML declaration).
std::string BareEnvelope(const char* ns, const std::string& body_content);

// `text` as one gzip member, as a client sending Content-Encoding: gzip would; throws if zlib fails.
std::string Gzip(const std::string& text);

// `size` lowercase letters from a linear congruential generator started at `seed`: text that gzip cannot
// shrink much, for bodies that must stay large once compressed.
std::string IncompressibleText(size_t size, uint32_t seed);

// A POST of `body` (already encoded) with Content-Encoding `coding` and the given Content-Type.
std::string EncodedPost(const char* content_type, const std::string& body, const std::string& coding);

}  // namespace lather::test
