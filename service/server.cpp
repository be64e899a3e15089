#include "service/server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/thread/thread.hpp>

#include <atomic>
#include <optional>

#include "common/log.h"
#include "service/connection.h"
#include "service/event_loop.h"
#include "service/group_commit.h"
#include "service/http_response.h"

namespace lather {

namespace asio = boost::asio;
using asio::ip::tcp;

struct Server::Impl {
  ServerOptions options;
  std::unique_ptr<GroupCommitter> committer;
  std::unique_ptr<BlockingPool> pool;  // stopped after the loops, before the committer
  std::vector<std::unique_ptr<EventLoop>> loops;
  std::unique_ptr<tcp::acceptor> acceptor;  // on loops[0]
  std::vector<boost::thread> threads;
  std::string address;
  uint16_t port = 0;
  size_t next_loop = 0;
  std::atomic<bool> stop_requested{false};
  std::atomic<int> connections{0};       // open client connections, all loops
  std::string busy_response;             // the canned 503 for one connection too many
  std::unique_ptr<asio::steady_timer> accept_backoff;
  bool joined = false;

  void Accept();
};

namespace {

// Splits "host:port" or "[v6]:port"; false if malformed.
bool SplitHostPort(const std::string& text, std::string* host, std::string* port) {
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') return false;
    *host = text.substr(1, close - 1);
    *port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) return false;
    *host = text.substr(0, colon);
    *port = text.substr(colon + 1);
  }
  if (host->empty()) *host = "0.0.0.0";
  return !port->empty() && port->find_first_not_of("0123456789") == std::string::npos && port->size() <= 5;
}

}  // namespace

void Server::Impl::Accept() {
  EventLoop* loop = loops[next_loop++ % loops.size()].get();
  acceptor->async_accept(loop->io(), [this, loop](const boost::system::error_code& error, tcp::socket socket) {
    if (error == asio::error::operation_aborted || !acceptor->is_open()) return;
    if (error == asio::error::no_descriptors || error.value() == ENFILE || error == asio::error::no_buffer_space ||
        error == asio::error::no_memory) {
      // Out of file descriptors: log once per pause and retry in 100 ms instead of spinning.
      LogLine("accept failed: " + error.message() + "; pausing accepts for 100 ms");
      accept_backoff->expires_after(std::chrono::milliseconds(100));
      accept_backoff->async_wait([this](const boost::system::error_code& e) {
        if (!e && acceptor->is_open()) Accept();
      });
      return;
    }
    if (error) {
      LogLine("accept failed: " + error.message());
    } else if (connections.load(std::memory_order_relaxed) >= options.max_connections) {
      // One connection too many: answered at once and closed (this handler runs on loop 0).
      boost::system::error_code ignored;
      socket.non_blocking(true, ignored);
      socket.write_some(asio::buffer(busy_response), ignored);
      socket.shutdown(tcp::socket::shutdown_both, ignored);
      socket.close(ignored);
      loops[0]->metrics().RecordRejection(503);
    } else {
      connections.fetch_add(1, std::memory_order_relaxed);
      asio::post(loop->io(), [loop, s = std::make_shared<tcp::socket>(std::move(socket))]() mutable {
        if (loop->stopping()) {
          loop->ConnectionEnded();
          return;
        }
        auto connection = std::make_shared<Connection>(loop, std::move(*s));
        loop->Add(connection);
        connection->Start();
      });
    }
    Accept();
  });
}

Status Server::Start(const ServerOptions& options, std::unique_ptr<Server>* server) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  std::string host, port;
  if (!SplitHostPort(options.listen, &host, &port) || std::stoul(port) > 65535) {
    return Status::InvalidArgument("--listen '" + options.listen + "' is not HOST:PORT");
  }
  int threads = options.threads > 0 ? options.threads : static_cast<int>(boost::thread::hardware_concurrency());
  if (threads <= 0) threads = 1;

  // The store first: an unwritable store fails before we bind.
  std::unique_ptr<CounterStore> writer_store;
  Status s = CounterStore::Open(options.store, &writer_store);
  if (!s.ok()) return s;
  impl->committer = std::make_unique<GroupCommitter>(std::move(writer_store));
  s = BlockingPool::Start(impl->options, impl->committer.get(), &impl->pool);
  if (!s.ok()) return s;

  try {
    asio::io_context resolver_io;
    tcp::resolver resolver(resolver_io);
    const auto results = resolver.resolve(host, port, tcp::resolver::passive | tcp::resolver::numeric_service);
    const tcp::endpoint endpoint = *results.begin();
    const std::string shown_host = endpoint.address().is_v6() ? "[" + endpoint.address().to_string() + "]"
                                                                : endpoint.address().to_string();
    for (int i = 0; i < threads; ++i) {
      impl->loops.push_back(std::make_unique<EventLoop>(impl->options, impl->pool.get()));
    }
    impl->acceptor = std::make_unique<tcp::acceptor>(impl->loops[0]->io());
    impl->acceptor->open(endpoint.protocol());
    impl->acceptor->set_option(tcp::acceptor::reuse_address(true));
    impl->acceptor->bind(endpoint);
    impl->acceptor->listen(asio::socket_base::max_listen_connections);
    impl->port = impl->acceptor->local_endpoint().port();
    impl->address = shown_host + ":" + std::to_string(impl->port);
  } catch (const boost::system::system_error& e) {
    return Status::IOError("cannot listen on " + options.listen + ": " + e.code().message());
  }
  // The routers name the service by the bound address when a request has no Host header.
  std::vector<const LoopMetrics*> all_metrics;
  for (auto& loop : impl->loops) all_metrics.push_back(&loop->metrics());
  std::string busy_body;
  AppendFaultEnvelope(1, false, "the server is busy: it has " + std::to_string(options.max_connections) +
                                    " connections open; retry later", &busy_body);
  AppendResponseHead(503, kSoap11ContentType, busy_body.size(), false, "Retry-After: 1\r\n", &impl->busy_response);
  impl->busy_response += busy_body;
  impl->accept_backoff = std::make_unique<asio::steady_timer>(impl->loops[0]->io());
  for (auto& loop : impl->loops) {
    loop->set_connection_count(&impl->connections);
    loop->router().set_local_address(impl->address);
    loop->router().set_all_metrics(all_metrics);
  }

  Impl* raw = impl.get();
  server->reset(new Server(std::move(impl)));
  raw->Accept();
  for (auto& loop : raw->loops) {
    EventLoop* l = loop.get();
    raw->threads.emplace_back([l] { l->Run(); });
  }
  return Status::Ok();
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() {
  Stop();
  Wait();
}

uint16_t Server::port() const { return impl_->port; }

const std::string& Server::address() const { return impl_->address; }

void Server::Stop() {
  if (impl_->stop_requested.exchange(true)) return;
  Impl* impl = impl_.get();
  asio::post(impl->loops[0]->io(), [impl] {
    boost::system::error_code ignored;
    impl->acceptor->close(ignored);
  });
  for (auto& loop : impl->loops) {
    EventLoop* l = loop.get();
    asio::post(l->io(), [l] { l->BeginStop(); });
  }
}

void Server::Wait() {
  if (impl_->joined) return;
  std::optional<boost::chrono::steady_clock::time_point> deadline;
  for (boost::thread& thread : impl_->threads) {
    // Before Stop() the loops run for ever; once it is requested, in-flight work gets its grace.
    while (!impl_->stop_requested.load()) {
      if (thread.try_join_for(boost::chrono::milliseconds(100))) break;
    }
    if (!deadline) {
      deadline = boost::chrono::steady_clock::now() +
                 boost::chrono::milliseconds(impl_->options.shutdown_grace.count());
    }
    if (thread.joinable() && !thread.try_join_until(*deadline)) {
      LogLine("shutdown grace over: abandoning requests still in progress");
      for (auto& loop : impl_->loops) loop->io().stop();
      thread.join();
    }
  }
  impl_->pool->Stop();  // deferred requests of the loops are done (or abandoned with them)
  impl_->joined = true;
}

}  // namespace lather
