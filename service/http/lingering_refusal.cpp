#include "service/http/lingering_refusal.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <exception>
#include <thread>

namespace lather {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

constexpr std::chrono::milliseconds kStopCheck{200};

// One refused connection being drained on its socket's executor; frees its place when destroyed.
class Refusal : public std::enable_shared_from_this<Refusal> {
 public:
  Refusal(tcp::socket socket, std::shared_ptr<std::atomic<int>> lingering)
      : socket_(std::move(socket)), timer_(socket_.get_executor()), lingering_(std::move(lingering)) {}
  ~Refusal() { lingering_->fetch_sub(1, std::memory_order_relaxed); }
  Refusal(const Refusal&) = delete;
  Refusal& operator=(const Refusal&) = delete;

  tcp::socket::executor_type executor() { return socket_.get_executor(); }

  void Start() {
    timer_.expires_after(kRefusalLinger);
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& error) {
      boost::system::error_code ignored;
      if (!error) self->socket_.close(ignored);  // the pending read ends with an error
    });
    Read();
  }

 private:
  void Read() {
    socket_.async_read_some(asio::buffer(scratch_),
                            [self = shared_from_this()](const boost::system::error_code& error, size_t) {
                              if (error) {
                                self->timer_.cancel();  // EOF, reset or closed by the timer: done
                                return;
                              }
                              self->Read();
                            });
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  std::shared_ptr<std::atomic<int>> lingering_;
  std::array<char, 16 * 1024> scratch_{};
};

// Takes a place among the lingering refusals; false when all are taken.
bool TakePlace(std::atomic<int>* lingering) {
  if (lingering->fetch_add(1, std::memory_order_relaxed) < kMaxLingeringRefusals) return true;
  lingering->fetch_sub(1, std::memory_order_relaxed);
  return false;
}

}  // namespace

void RefuseWithLinger(tcp::socket socket, const std::string& response,
                      const std::shared_ptr<std::atomic<int>>& lingering) {
  boost::system::error_code ignored;
  socket.non_blocking(true, ignored);
  socket.write_some(asio::buffer(response), ignored);  // a few hundred bytes: fits the socket buffer
  if (!TakePlace(lingering.get())) {
    socket.shutdown(tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
    return;
  }
  socket.shutdown(tcp::socket::shutdown_send, ignored);
  auto refusal = std::make_shared<Refusal>(std::move(socket), lingering);
  // Started on the socket's own loop, which may be another thread than the acceptor's.
  asio::post(refusal->executor(), [refusal] { refusal->Start(); });
}

void RefuseWithLinger(int fd, const std::string& response, const std::shared_ptr<std::atomic<int>>& lingering) {
  (void)::send(fd, response.data(), response.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (TakePlace(lingering.get())) {
    ::shutdown(fd, SHUT_WR);
    try {
      std::thread([fd, lingering] {
        DrainUntilClosed(fd, kRefusalLinger, nullptr);
        ::close(fd);
        lingering->fetch_sub(1, std::memory_order_relaxed);
      }).detach();
      return;
    } catch (const std::exception&) {
      lingering->fetch_sub(1, std::memory_order_relaxed);  // no thread: close at once below
    }
  }
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

void DrainUntilClosed(int fd, std::chrono::milliseconds limit, const std::atomic<bool>* stopping) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  char scratch[16 * 1024];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || (stopping != nullptr && stopping->load(std::memory_order_relaxed))) return;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min(left, kStopCheck).count()));
    if (ready < 0 && errno != EINTR) return;
    if (ready <= 0) continue;
    const ssize_t n = ::recv(fd, scratch, sizeof scratch, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return;
  }
}

}  // namespace lather
