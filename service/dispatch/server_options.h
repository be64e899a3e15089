// ServerOptions: everything lather-service can be told on its command line, with the defaults.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "service/http/http_request_parser.h"
#include "service/soap/soap_engine.h"

namespace lather {

class TlsContext;

// How connections are served (see server.h): event loops, or the textbook thread per connection.
enum class Engine { kEvent, kClassic };

struct ServerOptions {
  Engine engine = Engine::kEvent;
  // Address and port to listen on; port 0 picks a free port (see Server::port()).
  std::string listen = "127.0.0.1:8080";
  // A second listener for /metrics and /healthz ("HOST:PORT"); empty: /metrics is on `listen`.
  // With it, GET /metrics on `listen` answers 404.
  std::string admin_listen;
  // Counter store: "sqlite:PATH".
  std::string store = "sqlite:lather.db";
  // How long an IncCounter's wsa:MessageID is remembered (a repeat within it counts once); 0: the
  // header is ignored (set soap.read_message_id to match).
  std::chrono::seconds idempotency_window{86400};
  // SQLite: the writer's log checkpointed by a thread of its own in small passes (true), or by SQLite inside
  // the commit that fills 1,000 pages of it (false; service/store/sqlite_checkpointer.h).
  bool background_checkpoints = true;
  // Most client connections open at once; one more is answered 503 + Retry-After and closed.
  int max_connections = 16000;
  // Event-loop threads; 0 means one per core (the event engine; the classic engine has one thread
  // per connection).
  int threads = 0;
  // Threads for the requests that block on the store or run long (IncCounter, GetCounter, large
  // EchoDataSamples); concurrent increments are committed together, so more threads, bigger batches.
  int pool_threads = 16;
  // Requests that may wait for a pool thread; beyond, 503 + Retry-After.
  size_t pool_queue = 4096;
  // A SOAP request that waited longer than this between its arrival (the kernel's receive stamp) and
  // the moment the server could start it is answered 503 + Retry-After at once instead of run, so an
  // overloaded server spends its time on requests still worth answering. 0: no limit.
  std::chrono::milliseconds max_queue_wait{1000};
  // EchoDataSamples bodies larger than this run on the pool instead of the event loop.
  size_t long_body_bytes = 64 * 1024;
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
  // The kernel's receive buffer of every client connection, in bytes (SO_RCVBUF on the listening socket,
  // as nginx's `listen ... rcvbuf=`); 0: the kernel's default, autotuned (net.ipv4.tcp_rmem). A buffer that
  // holds a pipelining client's requests lets an overloaded service read and refuse them in one wake-up,
  // and stamps their arrival when they come rather than when room is made (docs/pressure.md).
  int receive_buffer = 0;
  // A listening socket to serve instead of binding `listen` (inherited from the --workers supervisor or
  // from systemd's LISTEN_FDS); -1: bind `listen`.
  int listen_fd = -1;
  // On a graceful stop (SIGTERM), an idle keep-alive connection is kept this long so that its next request
  // is answered (with Connection: close) instead of the connection being cut under it; 0: idle connections
  // close at once. Workers of --workers drain this way when they are replaced.
  std::chrono::milliseconds drain_idle{0};
  // Honour the X-Lather-Fault request header (crash, hang, leak): for tests and demos of --workers only.
  bool fault_injection = false;
  // Serve HTTPS with this certificate and key (--tls-cert/--tls-key, loaded by main); null: plain HTTP.
  std::shared_ptr<const TlsContext> tls;
};

}  // namespace lather
