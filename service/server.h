// Server: lather-service's engine. A few event-loop threads (Boost.Thread, one Boost.Asio
// io_context each) serve many keep-alive connections; each loop owns a gSOAP context (SoapEngine)
// and a counter-store connection, so a request runs start to finish on one thread without locks.
// Start() binds and returns; Stop() is graceful (stop accepting, finish in-flight requests, close
// idle connections) and may be called from any thread; Wait() returns when every loop has ended.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "service/server_options.h"

namespace lather {

class Server {
 public:
  // Opens the stores, binds the listening socket and starts the loops. Returns IOError for an
  // address in use or an unwritable store, InvalidArgument for a malformed --listen.
  static Status Start(const ServerOptions& options, std::unique_ptr<Server>* server);

  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // The port actually bound (useful with port 0) and "host:port" for URLs.
  uint16_t port() const;
  const std::string& address() const;

  // Begins a graceful stop. Thread-safe and idempotent.
  void Stop();

  // Blocks until every loop has finished (after Stop(), within the shutdown grace).
  void Wait();

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lather
