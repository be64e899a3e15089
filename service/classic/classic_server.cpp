#include "service/classic/classic_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/thread/condition_variable.hpp>
#include <boost/thread/mutex.hpp>
#include <boost/thread/thread.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <thread>
#include <unordered_set>
#include <vector>

#include "common/log.h"
#include "service/classic/blocking_connection.h"
#include "service/dispatch/server_setup.h"
#include "service/dispatch/store_metrics.h"
#include "service/http/lingering_refusal.h"
#include "service/http/listener.h"

namespace lather {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

constexpr size_t kConnectionStack = 1 << 20;  // per connection thread, more if --max-depth needs it
constexpr int kAcceptPollMillis = 200;        // how often the accept loop looks at the stop flag

// Everything the connection threads use. Shared-owned: a thread abandoned after the shutdown grace
// may outlive the ClassicServer object.
struct ClassicState {
  ServerOptions options;
  std::unique_ptr<GroupCommitter> committer;
  std::unique_ptr<BlockingPool> pool;
  std::atomic<bool> stopping{false};
  ClassicShared shared;
  std::string busy_response;
  std::shared_ptr<std::atomic<int>> lingering_refusals = std::make_shared<std::atomic<int>>(0);
  LoopMetrics accept_metrics;  // written by the accept thread only

  boost::mutex mutex;  // guards the members below; taken per connection, never per call
  boost::condition_variable connection_ended;
  int connections = 0;
  std::unordered_set<const LoopMetrics*> live;  // metrics of the connections being served
  LoopMetrics ended;                            // ended connections' metrics, summed

  std::string RenderAll() {
    boost::lock_guard<boost::mutex> lock(mutex);
    std::vector<const LoopMetrics*> all(live.begin(), live.end());
    all.push_back(&ended);
    all.push_back(&accept_metrics);
    std::string text = RenderMetrics(all, pool->queued());
    if (committer != nullptr) AppendStoreMetrics(*committer, &text);
    return text;
  }
};

// A connection thread's whole life; catches everything (a thread entry).
void ServeConnection(const std::shared_ptr<ClassicState>& state, int fd) {
  LoopMetrics metrics;
  {
    boost::lock_guard<boost::mutex> lock(state->mutex);
    state->live.insert(&metrics);
  }
  try {
    BlockingConnection connection(fd, state->shared, &metrics);
    connection.Serve();
  } catch (const std::exception& e) {
    LogLine(std::string("connection thread: unexpected exception: ") + e.what());
  } catch (...) {
    LogLine("connection thread: unexpected exception");
  }
  boost::lock_guard<boost::mutex> lock(state->mutex);
  state->live.erase(&metrics);
  metrics.AddTo(&state->ended);
  --state->connections;
  state->connection_ended.notify_all();
}

class ClassicServer final : public Server {
 public:
  explicit ClassicServer(const ServerOptions& options) : state_(std::make_shared<ClassicState>()) {
    state_->options = options;
  }
  ~ClassicServer() override {
    Stop();
    Wait();
  }

  Status Start();
  uint16_t port() const override { return port_; }
  const std::string& address() const override { return address_; }
  void Stop() override { state_->stopping.store(true); }
  std::string RenderMetrics() override { return state_->RenderAll(); }
  // A connection thread is the textbook model's unit and may block on its client for as long as the
  // timeouts allow, so only the pool's jobs count as stalls here.
  int64_t StalledMillis() override { return state_->pool ? state_->pool->LongestJobNanos() / 1'000'000 : 0; }
  uint64_t RequestsAnswered() override {
    boost::lock_guard<boost::mutex> lock(state_->mutex);
    uint64_t answered = state_->ended.RequestsTotal();
    for (const LoopMetrics* m : state_->live) answered += m->RequestsTotal();
    return answered;
  }
  void Wait() override;

 private:
  void AcceptLoop();
  // Answers one connection too many with the canned 503 and closes it (after a linger).
  void RefuseBusy(int fd);

  std::shared_ptr<ClassicState> state_;
  asio::io_context io_{1};
  tcp::acceptor acceptor_{io_};
  boost::thread accept_thread_;
  std::string address_;
  uint16_t port_ = 0;
  bool joined_ = false;
};

Status ClassicServer::Start() {
  ClassicState& state = *state_;
  Status s = StartStore(state.options, &state.committer, &state.pool);
  if (!s.ok()) return s;
  s = state.options.listen_fd >= 0 ? AdoptListener(state.options.listen_fd, &acceptor_, &port_, &address_)
                                   : Listen(state.options.listen, &acceptor_, &port_, &address_);
  if (s.ok() && state.options.receive_buffer > 0) s = SetReceiveBuffer(&acceptor_, state.options.receive_buffer);
  if (!s.ok()) return s;
  boost::system::error_code ignored;
  acceptor_.non_blocking(true, ignored);  // poll() says when; a vanished connection must not block accept
  state.busy_response = BusyResponse(state.options.max_connections);
  state.shared.options = &state.options;
  state.shared.pool = state.pool.get();
  state.shared.stopping = &state.stopping;
  state.shared.address = address_;
  state.shared.render_metrics = [raw = state_.get()] { return raw->RenderAll(); };
  accept_thread_ = boost::thread([this] { AcceptLoop(); });
  return Status::Ok();
}

void ClassicServer::RefuseBusy(int fd) {
  // Drained on a thread of its own until the client closes: a request already on the wire must not
  // turn the close into a reset under the 503.
  RefuseWithLinger(fd, state_->busy_response, state_->lingering_refusals);
  state_->accept_metrics.RecordRejection(503);
}

void ClassicServer::AcceptLoop() {
  const int listen_fd = acceptor_.native_handle();
  boost::thread::attributes attributes;
  attributes.set_stack_size(std::max(kConnectionStack, SoapStackBytes(state_->options.soap)));
  while (!state_->stopping.load()) {
    pollfd p{listen_fd, POLLIN, 0};
    if (::poll(&p, 1, kAcceptPollMillis) <= 0) continue;
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of file descriptors: log once per pause and retry in 100 ms instead of spinning.
        LogLine(std::string("accept failed: ") + std::strerror(errno) + "; pausing accepts for 100 ms");
        // (std's sleep: boost's is an interruption point whose thread-data lookup UBSan's vptr check
        // reports as an invalid object, stopping a sanitized build here.)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      } else if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
        LogLine(std::string("accept failed: ") + std::strerror(errno));
      }
      continue;
    }
    {
      boost::lock_guard<boost::mutex> lock(state_->mutex);
      if (state_->connections >= state_->options.max_connections) {
        RefuseBusy(fd);
        continue;
      }
      ++state_->connections;
    }
    try {
      boost::thread thread(attributes, [state = state_, fd] { ServeConnection(state, fd); });
      thread.detach();
    } catch (const std::exception& e) {
      LogLine(std::string("cannot start a connection thread: ") + e.what());
      RefuseBusy(fd);
      boost::lock_guard<boost::mutex> lock(state_->mutex);
      --state_->connections;
    }
  }
  boost::system::error_code ignored;
  acceptor_.close(ignored);
}

void ClassicServer::Wait() {
  if (joined_ || !accept_thread_.joinable()) return;
  accept_thread_.join();  // returns once Stop() was called
  const auto deadline =
      boost::chrono::steady_clock::now() + boost::chrono::milliseconds(state_->options.shutdown_grace.count());
  bool all_ended = true;
  {
    boost::unique_lock<boost::mutex> lock(state_->mutex);
    while (state_->connections > 0) {
      if (state_->connection_ended.wait_until(lock, deadline) == boost::cv_status::timeout) {
        all_ended = state_->connections == 0;
        break;
      }
    }
  }
  if (all_ended) {
    state_->pool->Stop();
  } else {
    // The abandoned threads keep the state (and the pool they may be waiting on) alive.
    LogLine("shutdown grace over: abandoning requests still in progress");
  }
  joined_ = true;
}

}  // namespace

Status StartClassicServer(const ServerOptions& options, std::unique_ptr<Server>* server) {
  auto classic = std::make_unique<ClassicServer>(options);
  Status s = classic->Start();
  if (!s.ok()) return s;
  *server = std::move(classic);
  return Status::Ok();
}

}  // namespace lather
