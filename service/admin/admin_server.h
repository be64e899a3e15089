// AdminServer: the separate listener of lather-service --admin-listen, serving the operator's
// endpoints (GET /metrics, GET|HEAD /healthz) apart from the public SOAP port, so the metrics can
// be kept on a private interface. One thread, one connection at a time, one request per
// connection (Connection: close), each within a short deadline: it is for a scraper and a probe,
// not for load. Thread-safe: Stop() may be called from any thread; the renderer is called on the
// admin thread and must be thread-safe.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/thread/thread.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "common/status.h"

namespace lather {

// What the admin listener answers with; each is called on the admin thread and must be thread-safe.
struct AdminHandlers {
  std::function<std::string()> render_metrics;  // the body of GET /metrics
  // GET|HEAD /healthz: the status and body; unset: 200 "ok".
  std::function<std::pair<int, std::string>()> health;
  // POST /reload: starts a reload (the supervisor's hot swap) and returns what it did; unset: 404.
  std::function<std::string()> reload;
};

class AdminServer {
 public:
  // Binds `listen` ("HOST:PORT", port 0 picks one) and starts the thread; `render_metrics` makes
  // the body of GET /metrics. InvalidArgument for a malformed address, IOError if it cannot bind.
  static Status Start(const std::string& listen, std::function<std::string()> render_metrics,
                      std::unique_ptr<AdminServer>* out);
  // The same with every handler.
  static Status Start(const std::string& listen, AdminHandlers handlers, std::unique_ptr<AdminServer>* out);
  ~AdminServer();  // Stop() and join
  AdminServer(const AdminServer&) = delete;
  AdminServer& operator=(const AdminServer&) = delete;

  // "host:port" as bound.
  const std::string& address() const { return address_; }
  uint16_t port() const { return port_; }

  // Stops accepting and joins the thread (at most one request deadline). Idempotent.
  void Stop();

 private:
  AdminServer() = default;
  void Run();
  // Reads one request from `fd` and answers it.
  void Serve(int fd);

  AdminHandlers handlers_;
  boost::asio::io_context io_{1};
  boost::asio::ip::tcp::acceptor acceptor_{io_};
  boost::thread thread_;
  std::atomic<bool> stopping_{false};
  std::string address_;
  uint16_t port_ = 0;
};

}  // namespace lather
