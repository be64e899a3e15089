// ServerOptions: everything lather-service can be told on its command line, with the defaults.
#pragma once

#include <chrono>
#include <string>

#include "service/http_request_parser.h"
#include "service/soap_adapter.h"

namespace lather {

struct ServerOptions {
  // Address and port to listen on; port 0 picks a free port (see Server::port()).
  std::string listen = "127.0.0.1:8080";
  // Counter store: "sqlite:PATH".
  std::string store = "sqlite:lather.db";
  // Event-loop threads; 0 means one per core.
  int threads = 0;
  // HTTP framing limits (request line, headers, body size).
  HttpLimits http;
  // gSOAP limits (XML depth, repetitions).
  SoapEngineLimits soap;
  // A request's head must arrive within this time of its first byte (else 408).
  std::chrono::milliseconds header_timeout{10000};
  // A request's body must arrive within this time of its head (else 408).
  std::chrono::milliseconds body_timeout{30000};
  // An idle keep-alive connection is closed after this time.
  std::chrono::milliseconds idle_timeout{60000};
  // On SIGINT/SIGTERM, requests still running after this time are abandoned.
  std::chrono::milliseconds shutdown_grace{10000};
};

}  // namespace lather
