// TargetUrl: the endpoint lather-stress drives, parsed from "http[s]://host[:port][/path]".
#pragma once

#include <string>

#include "common/status.h"

namespace lather {

struct TargetUrl {
  std::string host;   // as written (brackets removed for IPv6)
  int port = 80;
  std::string path = "/";
  std::string host_header;  // "host:port" as sent in the Host header
  bool tls = false;         // https://

  std::string ToString() const;
};

// Parses `text`; InvalidArgument for anything but an http:// or https:// URL (port 80 or 443 when
// none is given).
Status ParseTargetUrl(const std::string& text, TargetUrl* url);

}  // namespace lather
