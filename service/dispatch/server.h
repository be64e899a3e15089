// Server: lather-service's engine, in one of two hosting modes (ServerOptions::engine):
//  - "event" (EventServer, the default): a few event-loop threads each serving many connections;
//  - "classic" (ClassicServer): the textbook gSOAP model, an accept loop and one thread per connection.
// Both frame HTTP, apply the limits and answer the same way; they differ in how they use threads.
// StartServer() (service/server_start.h) binds and returns; Stop() is graceful (stop accepting, finish in-flight requests, close
// idle connections) and may be called from any thread; Wait() returns when the engine has ended.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "service/dispatch/server_options.h"

namespace lather {

class Server {
 public:
  virtual ~Server() = default;

  // The port actually bound (useful with port 0) and "host:port" for URLs.
  virtual uint16_t port() const = 0;
  virtual const std::string& address() const = 0;

  // "host:port" of the --admin-listen listener, empty without one.
  virtual std::string admin_address() const { return ""; }

  // The text GET /metrics answers (Prometheus format): every thread's counters summed. Thread-safe.
  virtual std::string RenderMetrics() = 0;

  // For a supervisor's hang check: how long, in milliseconds, the most stuck part of the engine has gone
  // without progress (an event loop that has not ticked, a pool job still running); 0 when all move.
  // Thread-safe.
  virtual int64_t StalledMillis() { return 0; }

  // SOAP requests answered so far (every operation and outcome). Thread-safe.
  virtual uint64_t RequestsAnswered() { return 0; }

  // Begins a graceful stop. Thread-safe and idempotent.
  virtual void Stop() = 0;

  // Blocks until every request has finished (after Stop(), within the shutdown grace).
  virtual void Wait() = 0;
};

}  // namespace lather
