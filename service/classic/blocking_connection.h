// BlockingConnection: one client connection served start to finish by its own thread with
// blocking socket I/O (the classic engine): read until a whole HTTP request is buffered, have the
// router answer it, write the answer, repeat. Same framing, limits, deadlines and answers as the
// event engine's Connection; calls that wait for the store go to the shared blocking pool (and its
// group commit) while this thread waits. With ServerOptions::tls the socket is made non-blocking
// and driven through a TlsSession with poll() and the same deadlines (blocking_connection_tls.cpp).
// Owns its gSOAP context; one thread only.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "common/tls.h"
#include "service/admin/metrics.h"
#include "service/dispatch/blocking_pool.h"
#include "service/dispatch/request_router.h"
#include "service/dispatch/server_options.h"
#include "service/http/http_request_parser.h"
#include "service/http/read_buffer.h"
#include "service/soap/operations.h"
#include "service/soap/soap_engine.h"

namespace lather {

// What every connection thread of a classic server shares (read-only while serving).
struct ClassicShared {
  const ServerOptions* options = nullptr;
  BlockingPool* pool = nullptr;
  const std::atomic<bool>* stopping = nullptr;  // set by Stop(): finish the current request, then close
  std::string address;                          // "host:port" for ?wsdl without a Host header
  std::function<std::string()> render_metrics;  // GET /metrics
};

class BlockingConnection {
 public:
  // Takes ownership of the connected socket `fd`; `metrics` is this thread's.
  BlockingConnection(int fd, const ClassicShared& shared, LoopMetrics* metrics);
  ~BlockingConnection();  // closes the socket
  BlockingConnection(const BlockingConnection&) = delete;
  BlockingConnection& operator=(const BlockingConnection&) = delete;

  // Serves requests until the client closes, a deadline passes, a request is rejected, or the
  // server stops. Never throws for I/O errors (the connection just ends).
  void Serve();

 private:
  using Clock = std::chrono::steady_clock;
  enum class ReadResult { kData, kTimeout, kClosed, kStopping };

  // Reads what is there into in_, waiting at most until `deadline`; when `idle`, also gives up
  // (kStopping) once the server stops.
  ReadResult ReadMore(Clock::time_point deadline, bool idle);
  // Buffers one whole request; false (after rejecting it if it was bad) if the connection must end.
  bool ReadRequest();
  // Runs a deferred call on the blocking pool and waits for it; false if the pool refused it.
  bool RunDeferred();
  bool WriteAll(std::string_view head, std::string_view body);
  void Reject(int status, const std::string& reason, const char* extra_headers = "");
  std::string PeerName() const;

  // TLS (blocking_connection_tls.cpp). Runs the handshake within the header timeout; false (logged
  // unless the client just went away) if the connection must end.
  bool HandshakeTls();
  // Waits until the socket is ready for `want` or `deadline` passes; false on timeout or error,
  // and with `until_stop` also once the server stops.
  bool WaitTls(TlsSession::Result want, Clock::time_point deadline, bool until_stop);
  // recv() for TLS, stamped with the time of the read; -1 with errno EAGAIN when the session needs
  // the socket first (tls_wants_write_ says which way); 0 at EOF or failure (logged).
  ssize_t ReceiveTls(char* room, size_t length);
  // WriteAll for TLS, each wait bounded by the body timeout.
  bool WriteAllTls(std::string_view head, std::string_view body);

  const int fd_;
  const ClassicShared& shared_;
  const ServerOptions& options_;
  LoopMetrics* metrics_;
  Operations operations_;
  SoapEngine engine_;
  RequestRouter router_;
  HttpRequestParser parser_;
  HttpResponse response_;
  ReadBuffer in_;           // unconsumed bytes; starts at the current request
  int64_t arrival_ns_ = 0;  // kernel receive stamp of the newest bytes read (CLOCK_REALTIME)
  std::unique_ptr<TlsSession> tls_;  // null: plain TCP
  bool tls_wants_write_ = false;     // the session must write before it can read on
  std::string tls_peer_;             // the client's address, taken when TLS starts
};

}  // namespace lather
