// TargetUrl: the endpoint lather-stress drives, parsed from "http://host[:port][/path]".
#pragma once

#include <string>

#include "common/status.h"

namespace lather {

struct TargetUrl {
  std::string host;   // as written (brackets removed for IPv6)
  int port = 80;
  std::string path = "/";
  std::string host_header;  // "host:port" as sent in the Host header

  std::string ToString() const;
};

// Parses `text`; InvalidArgument for anything but a plain http:// URL (https is not supported).
Status ParseTargetUrl(const std::string& text, TargetUrl* url);

}  // namespace lather
