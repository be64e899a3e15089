#include "service/soap/wsdl_document.h"

#include <cstddef>

#include "service/soap/fault_envelope.h"

namespace lather {
extern const char kWsdlText[];
extern const std::size_t kWsdlTextSize;

std::string_view EmbeddedWsdl() { return std::string_view(kWsdlText, kWsdlTextSize); }

std::string WsdlForEndpoint(std::string_view endpoint_url) {
  const std::string_view wsdl = EmbeddedWsdl();
  std::string out;
  out.reserve(wsdl.size() + 64);
  constexpr std::string_view kAttr = "location=\"";
  size_t pos = 0;
  for (;;) {
    const size_t addr = wsdl.find(":address ", pos);
    const size_t attr = addr == std::string_view::npos ? addr : wsdl.find(kAttr, addr);
    const size_t end = attr == std::string_view::npos ? attr : wsdl.find('"', attr + kAttr.size());
    if (end == std::string_view::npos) break;
    out.append(wsdl.substr(pos, attr + kAttr.size() - pos));
    AppendXmlEscaped(endpoint_url, &out);
    pos = end;
  }
  out.append(wsdl.substr(pos));
  return out;
}

}  // namespace lather
