#include "stress/load/target_url.h"

namespace lather {

std::string TargetUrl::ToString() const { return (tls ? "https://" : "http://") + host_header + path; }

Status ParseTargetUrl(const std::string& text, TargetUrl* url) {
  url->tls = text.rfind("https://", 0) == 0;
  if (!url->tls && text.rfind("http://", 0) != 0) return Status::InvalidArgument("not an http:// or https:// URL: " + text);
  std::string rest = text.substr(url->tls ? 8 : 7);
  const size_t slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  url->path = slash == std::string::npos ? "/" : rest.substr(slash);
  std::string port_text;
  if (!authority.empty() && authority[0] == '[') {
    const size_t close = authority.find(']');
    if (close == std::string::npos) return Status::InvalidArgument("bad IPv6 address in " + text);
    url->host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return Status::InvalidArgument("bad port in " + text);
      port_text = authority.substr(close + 2);
    }
  } else {
    const size_t colon = authority.rfind(':');
    url->host = authority.substr(0, colon);
    if (colon != std::string::npos) port_text = authority.substr(colon + 1);
  }
  if (url->host.empty()) return Status::InvalidArgument("no host in " + text);
  url->port = url->tls ? 443 : 80;
  if (!port_text.empty()) {
    if (port_text.size() > 5 || port_text.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(port_text) == 0 || std::stoi(port_text) > 65535) {
      return Status::InvalidArgument("bad port '" + port_text + "' in " + text);
    }
    url->port = std::stoi(port_text);
  }
  url->host_header = (url->host.find(':') != std::string::npos ? "[" + url->host + "]" : url->host) + ":" +
                     std::to_string(url->port);
  return Status::Ok();
}

}  // namespace lather
