#include "tests/integration/soap_fixtures.h"

namespace lather::test {

Client MakeClient(const ServiceProcess& service, bool soap12, int timeout_seconds) {
  ClientOptions options;
  options.url = service.url();
  options.soap12 = soap12;
  options.timeout_seconds = timeout_seconds;
  return Client(options);
}

std::string Envelope(const char* ns, const std::string& body_content, const std::string& prolog) {
  return prolog + "<s:Envelope xmlns:s=\"" + ns + "\" xmlns:l=\"urn:lather:v1\"><s:Body>" + body_content +
         "</s:Body></s:Envelope>";
}

std::string BareEnvelope(const char* ns, const std::string& body_content) { return Envelope(ns, body_content, ""); }

}  // namespace lather::test
