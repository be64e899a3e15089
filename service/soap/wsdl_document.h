// The WSDL served at GET /soap?wsdl: the contract embedded at build time from wsdl/lather.wsdl,
// with every soap:address / soap12:address rewritten to the address the client used.
#pragma once

#include <string>
#include <string_view>

namespace lather {

// The WSDL text exactly as in wsdl/lather.wsdl.
std::string_view EmbeddedWsdl();

// The WSDL with each address location set to `endpoint_url` (e.g. "http://127.0.0.1:8080/soap").
std::string WsdlForEndpoint(std::string_view endpoint_url);

}  // namespace lather
