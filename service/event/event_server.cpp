#include "service/event/event_server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/thread/thread.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <optional>
#include <utility>

#include "common/clock.h"
#include "common/log.h"
#include "service/dispatch/server_setup.h"
#include "service/dispatch/store_metrics.h"
#include "service/event/connection.h"
#include "service/event/event_loop.h"
#include "service/http/lingering_refusal.h"
#include "service/http/listener.h"
#include "service/store/group_commit.h"

namespace lather {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

class EventServer final : public Server {
 public:
  explicit EventServer(const ServerOptions& options) : options_(options) {}
  ~EventServer() override {
    Stop();
    Wait();
    // The writer's callbacks post to the loops: it goes (answering what it still holds) while they exist.
    pool_.reset();
    committer_.reset();
  }

  Status Start();
  uint16_t port() const override { return port_; }
  const std::string& address() const override { return address_; }
  void Stop() override;
  void Wait() override;
  std::string RenderMetrics() override { return render_metrics_(); }
  int64_t StalledMillis() override;
  uint64_t RequestsAnswered() override;

 private:
  void Accept();

  ServerOptions options_;
  std::unique_ptr<GroupCommitter> committer_;
  std::unique_ptr<BlockingPool> pool_;  // stopped after the loops, before the committer
  std::vector<std::unique_ptr<EventLoop>> loops_;
  std::unique_ptr<tcp::acceptor> acceptor_;  // on loops_[0]
  std::vector<boost::thread> threads_;
  std::string address_;
  uint16_t port_ = 0;
  size_t next_loop_ = 0;
  std::atomic<bool> stop_requested_{false};
  std::atomic<int> connections_{0};  // open client connections, all loops
  std::string busy_response_;        // the canned 503 for one connection too many
  std::shared_ptr<std::atomic<int>> lingering_refusals_ = std::make_shared<std::atomic<int>>(0);
  std::unique_ptr<asio::steady_timer> accept_backoff_;
  bool joined_ = false;
  std::function<std::string()> render_metrics_;
};

// A connection's descriptor on its way from the acceptor's loop to the loop that serves it: closed if it never
// gets there (that loop stopped first).
class HandedDescriptor {
 public:
  explicit HandedDescriptor(int fd) : fd_(fd) {}
  HandedDescriptor(const HandedDescriptor&) = delete;
  HandedDescriptor& operator=(const HandedDescriptor&) = delete;
  ~HandedDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int Take() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// On `loop`'s thread: serves an accepted connection, or lets it go when the loop is stopping without a drain.
void StartConnection(EventLoop* loop, tcp::socket socket) {
  const std::chrono::milliseconds drain = loop->options().drain_idle;
  if (loop->stopping() && drain.count() == 0) {
    loop->ConnectionEnded();
    return;
  }
  auto connection = std::make_shared<Connection>(loop, std::move(socket));
  loop->Add(connection);
  connection->Start();
  // Accepted just as a drain began: its first request is answered (with Connection: close), not cut.
  if (loop->stopping()) connection->DrainIfIdle(drain);
}

void EventServer::Accept() {
  EventLoop* loop = loops_[next_loop_++ % loops_.size()].get();
  acceptor_->async_accept([this, loop](const boost::system::error_code& error, tcp::socket socket) {
    if (error == asio::error::operation_aborted || !acceptor_->is_open()) return;
    if (error == asio::error::no_descriptors || error.value() == ENFILE || error == asio::error::no_buffer_space ||
        error == asio::error::no_memory) {
      // Out of file descriptors: log once per pause and retry in 100 ms instead of spinning.
      LogLine("accept failed: " + error.message() + "; pausing accepts for 100 ms");
      accept_backoff_->expires_after(std::chrono::milliseconds(100));
      accept_backoff_->async_wait([this](const boost::system::error_code& e) {
        if (!e && acceptor_->is_open()) Accept();
      });
      return;
    }
    if (error) {
      LogLine("accept failed: " + error.message());
    } else if (connections_.load(std::memory_order_relaxed) >= options_.max_connections) {
      // One connection too many: answered at once, then drained until the client closes, so that
      // a request already on the wire does not turn the close into a reset (this handler runs on loop 0).
      RefuseWithLinger(std::move(socket), busy_response_, lingering_refusals_);
      loops_[0]->metrics().RecordRejection(503);
    } else if (loop == loops_[0].get()) {
      connections_.fetch_add(1, std::memory_order_relaxed);
      asio::post(loop->io(), [loop, s = std::make_shared<tcp::socket>(std::move(socket))] {
        StartConnection(loop, std::move(*s));
      });
    } else {
      // Another loop's connection goes there as its descriptor, registered on that loop's reactor by its own
      // thread: each loop's sockets are touched by that loop alone (its io_context runs without socket locks).
      connections_.fetch_add(1, std::memory_order_relaxed);
      boost::system::error_code released;
      auto fd = std::make_shared<HandedDescriptor>(socket.release(released));
      boost::system::error_code unknown;
      const tcp protocol = acceptor_->local_endpoint(unknown).protocol();
      asio::post(loop->io(), [loop, fd, protocol, failed = released]() mutable {
        tcp::socket handed(loop->io());
        const int handle = fd->Take();
        if (handle < 0 || handed.assign(protocol, handle, failed)) {
          if (handle >= 0) ::close(handle);
          LogLine("accept failed: the connection could not be handed to its loop: " + failed.message());
          loop->ConnectionEnded();
          return;
        }
        StartConnection(loop, std::move(handed));
      });
    }
    Accept();
  });
}

Status EventServer::Start() {
  int threads = options_.threads > 0 ? options_.threads : static_cast<int>(boost::thread::hardware_concurrency());
  if (threads <= 0) threads = 1;
  // The store first: an unwritable store fails before we bind.
  Status s = StartStore(options_, &committer_, &pool_);
  if (!s.ok()) return s;
  for (int i = 0; i < threads; ++i) loops_.push_back(std::make_unique<EventLoop>(options_, pool_.get()));
  acceptor_ = std::make_unique<tcp::acceptor>(loops_[0]->io());
  s = options_.listen_fd >= 0 ? AdoptListener(options_.listen_fd, acceptor_.get(), &port_, &address_)
                              : Listen(options_.listen, acceptor_.get(), &port_, &address_);
  if (s.ok() && options_.receive_buffer > 0) s = SetReceiveBuffer(acceptor_.get(), options_.receive_buffer);
  if (!s.ok()) return s;
  busy_response_ = BusyResponse(options_.max_connections);
  accept_backoff_ = std::make_unique<asio::steady_timer>(loops_[0]->io());
  // The routers name the service by the bound address when a request has no Host header.
  std::vector<const LoopMetrics*> all_metrics;
  for (auto& loop : loops_) all_metrics.push_back(&loop->metrics());
  // Waiting for the store: in the pool's queue, and IncCounter calls queued from the loops to the writer.
  if (committer_ != nullptr) committer_->set_max_queued(options_.pool_queue);
  render_metrics_ = [all_metrics, pool = pool_.get(), writer = committer_.get()] {
    std::string text = lather::RenderMetrics(all_metrics, pool->queued() + (writer != nullptr ? writer->queued() : 0));
    if (writer != nullptr) AppendStoreMetrics(*writer, &text);
    return text;
  };
  for (auto& loop : loops_) {
    loop->set_connection_count(&connections_);
    loop->set_writer(committer_.get());
    loop->router().set_local_address(address_);
    loop->router().set_metrics_renderer(render_metrics_);
    loop->router().set_serve_metrics(options_.admin_listen.empty());
  }
  Accept();
  for (auto& loop : loops_) {
    EventLoop* l = loop.get();
    threads_.emplace_back([l] { l->Run(); });
  }
  return Status::Ok();
}

int64_t EventServer::StalledMillis() {
  // A loop ticks every 100 ms when it is free to; later than that, it is stuck in something.
  const int64_t now = MonotonicNanos();
  int64_t stalled = pool_ ? pool_->LongestJobNanos() : 0;
  for (const auto& loop : loops_) stalled = std::max(stalled, now - loop->last_tick_ns() - 100'000'000);
  return stalled > 0 ? stalled / 1'000'000 : 0;
}

uint64_t EventServer::RequestsAnswered() {
  uint64_t answered = 0;
  for (const auto& loop : loops_) answered += loop->metrics().RequestsTotal();
  return answered;
}

void EventServer::Stop() {
  if (stop_requested_.exchange(true) || loops_.empty()) return;
  asio::post(loops_[0]->io(), [this] {
    boost::system::error_code ignored;
    acceptor_->close(ignored);
  });
  for (auto& loop : loops_) {
    EventLoop* l = loop.get();
    asio::post(l->io(), [l] { l->BeginStop(); });
  }
}

void EventServer::Wait() {
  if (joined_ || threads_.empty()) return;
  std::optional<boost::chrono::steady_clock::time_point> deadline;
  for (boost::thread& thread : threads_) {
    // Before Stop() the loops run for ever; once it is requested, in-flight work gets its grace.
    while (!stop_requested_.load()) {
      if (thread.try_join_for(boost::chrono::milliseconds(100))) break;
    }
    if (!deadline) {
      deadline = boost::chrono::steady_clock::now() + boost::chrono::milliseconds(options_.shutdown_grace.count());
    }
    if (thread.joinable() && !thread.try_join_until(*deadline)) {
      LogLine("shutdown grace over: abandoning requests still in progress");
      for (auto& loop : loops_) loop->io().stop();
      thread.join();
    }
  }
  pool_->Stop();  // deferred requests of the loops are done (or abandoned with them)
  joined_ = true;
}

}  // namespace

Status StartEventServer(const ServerOptions& options, std::unique_ptr<Server>* server) {
  auto event_server = std::make_unique<EventServer>(options);
  Status s = event_server->Start();
  if (!s.ok()) return s;
  *server = std::move(event_server);
  return Status::Ok();
}

}  // namespace lather
