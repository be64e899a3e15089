// HttpFetch: the few HTTP exchanges the WSDL path needs, over Poco::Net: GET a WSDL or schema
// (http://, https://, file:// or a plain path) and POST one SOAP request. Each call opens its own
// connection; bounded in time and size. Stateless functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/status.h"

namespace lather::wsdl {

struct FetchOptions {
  int timeout_seconds = 30;       // connect, send and receive
  size_t max_bytes = 16 << 20;    // the largest document or response accepted
  std::string ca_file;            // https: more CA certificates (PEM) besides the system store
  bool insecure = false;          // https: do not check the peer's certificate
};

struct HttpAnswer {
  int status = 0;
  std::string content_type;
  std::string body;
};

// The document at `url`. IOError (saying who did not answer) for a connection failure or a status
// other than 200, Timeout when it took too long, InvalidArgument for a URL it cannot read.
Status FetchDocument(const std::string& url, const FetchOptions& options, std::string* body);

// POSTs `body` with `headers` ("Name: value") to `url`; any status is an answer (*answer). IOError or
// Timeout when no answer came, InvalidArgument for a bad URL.
Status PostRequest(const std::string& url, const std::vector<std::string>& headers, const std::string& body,
                   const FetchOptions& options, HttpAnswer* answer);

// `ref` resolved against `base` (RFC 3986); plain paths are taken as file:// URLs.
std::string ResolveUrl(const std::string& base, const std::string& ref);

}  // namespace lather::wsdl
