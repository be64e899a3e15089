#include "service/classic/blocking_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>

#include <boost/thread/condition_variable.hpp>
#include <boost/thread/mutex.hpp>

#include "common/log.h"
#include "common/log_limiter.h"
#include "service/http/lingering_refusal.h"
#include "common/stamped_receive.h"
#include "service/memory/memory_return.h"

namespace lather {
namespace {
constexpr size_t kReadChunk = 16 * 1024;
constexpr size_t kChunkedRead = 256 * 1024;  // the room a chunked body is read into (ReadMore)
constexpr size_t kKeepBufferBytes = 1 << 20;  // larger buffers are freed between requests
constexpr std::chrono::milliseconds kStopCheck{200};  // how often an idle connection looks at stopping
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
constexpr std::chrono::milliseconds kLingerTime{5000};  // after a rejection, see Reject()
}  // namespace

BlockingConnection::BlockingConnection(int fd, const ClassicShared& shared, LoopMetrics* metrics)
    : fd_(fd),
      shared_(shared),
      options_(*shared.options),
      metrics_(metrics),
      operations_(nullptr),  // store calls are deferred to the pool, whose workers own the store
      engine_(&operations_, options_.soap, true),
      // The thread may block, so a large echo runs right here: nothing is deferred for its size.
      router_(&engine_, metrics, shared.address, std::numeric_limits<size_t>::max()),
      parser_(options_.http) {
  router_.set_metrics_renderer(shared.render_metrics);
  router_.set_serve_metrics(options_.admin_listen.empty());
  router_.set_max_queue_wait(std::chrono::duration<double>(options_.max_queue_wait).count());
  router_.set_https(options_.tls != nullptr);
  router_.set_max_decoded_bytes(options_.http.max_body_bytes);
  router_.set_fault_injection(options_.fault_injection);
}

BlockingConnection::~BlockingConnection() {
  if (tls_) tls_->Shutdown();
  ::close(fd_);
}

void BlockingConnection::Serve() {
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // A client that stops reading our answer is cut off after the body timeout.
  const auto send_limit = std::chrono::duration_cast<std::chrono::microseconds>(options_.body_timeout);
  timeval send_timeout{static_cast<time_t>(send_limit.count() / 1000000),
                       static_cast<suseconds_t>(send_limit.count() % 1000000)};
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
  metrics_->ConnectionOpened();
  if (options_.tls == nullptr) {
    EnableArrivalStamps(fd_);
  } else if (!HandshakeTls()) {
    metrics_->ConnectionClosed();
    return;
  }
  for (;;) {
    if (const size_t blank = LeadingEmptyLineBytes(in_.data()); blank > 0 && blank == in_.size()) {
      in_.Consume(blank);  // a client's CRLF after its request (RFC 9112 2.2): idle, not a request begun
      parser_.Reset();
    }
    if (in_.empty()) {
      if (shared_.stopping->load(std::memory_order_relaxed)) break;
      if (tls_) tls_->ReleaseBuffers();  // idle: the session's record buffers are not needed
      if (ReadMore(Clock::now() + options_.idle_timeout, true) != ReadResult::kData) break;
      continue;  // what arrived may be empty lines only
    }
    if (!ReadRequest()) break;
    router_.Route(parser_.request(), !shared_.stopping->load(std::memory_order_relaxed), SecondsSince(arrival_ns_),
                  &response_);
    if (response_.deferred && !RunDeferred()) break;
    if (parser_.request().http10 && !response_.close) {
      // HTTP/1.0 clients (ApacheBench -k) keep the connection only if the response says so.
      response_.head.insert(response_.head.size() - 2, "Connection: keep-alive\r\n");
    }
    if (!WriteAll(response_.head, response_.body)) break;
    if (response_.close || shared_.stopping->load(std::memory_order_relaxed)) {
      if (tls_) tls_->Shutdown();
      ::shutdown(fd_, SHUT_WR);
      break;
    }
    in_.Consume(parser_.consumed());
    parser_.Reset();
    // A large message's buffers are not kept for the next request (a keep-alive connection that once
    // echoed 30 MB held twice that until it closed).
    if (response_.body.capacity() > kKeepBufferBytes) FreeBuffer(&response_.body);
    if (in_.capacity() > kKeepBufferBytes) {
      in_.Release();  // only when no pipelined request waits
      NoteLargeFree();
    }
  }
  metrics_->ConnectionClosed();
}

BlockingConnection::ReadResult BlockingConnection::ReadMore(Clock::time_point deadline, bool idle) {
  // A chunked body's buffer stays small (its decoded bytes are dropped): it is read up to kChunkedRead at a time.
  char* room = in_.Reserve(parser_.in_chunked_body() ? kChunkedRead : kReadChunk / 2, kReadChunk);
  for (;;) {
    const auto now = Clock::now();
    if (now >= deadline) return ReadResult::kTimeout;
    if (idle && shared_.stopping->load(std::memory_order_relaxed)) return ReadResult::kStopping;
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) + std::chrono::milliseconds(1);
    if (idle) wait = std::min(wait, kStopCheck);
    pollfd p{fd_, static_cast<short>(tls_wants_write_ ? POLLOUT : POLLIN), 0};
    const int ready = tls_ && tls_->HasPending() ? 1 : ::poll(&p, 1, static_cast<int>(wait.count()));
    if (ready < 0 && errno != EINTR) return ReadResult::kClosed;
    if (ready <= 0) continue;
    const ssize_t n = tls_ ? ReceiveTls(room, in_.space()) : ReceiveStamped(fd_, room, in_.space(), &arrival_ns_);
    if (n > 0) {
      in_.Commit(static_cast<size_t>(n));
      metrics_->AddBytesReceived(static_cast<uint64_t>(n));
      return ReadResult::kData;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    return ReadResult::kClosed;  // EOF or reset: a half-sent request is simply dropped
  }
}

bool BlockingConnection::ReadRequest() {
  auto deadline = Clock::now() + options_.header_timeout;
  bool in_body = false;
  bool continue_sent = false;
  for (;;) {
    switch (parser_.Parse(in_.data())) {
      case HttpRequestParser::Result::kComplete:
        return true;
      case HttpRequestParser::Result::kError:
        Reject(parser_.error_status(), parser_.error_reason());
        return false;
      case HttpRequestParser::Result::kNeedMore:
        break;
    }
    if (in_.size() + parser_.discarded() > options_.http.max_header_bytes + 2 * options_.http.max_body_bytes) {
      Reject(413, "request framing overhead exceeds the message size limit");
      return false;
    }
    // A chunked body's decoded bytes (and the head, whose fields the parser copied) are not kept beside their
    // decoded copy: the buffer holds only the undecoded rest.
    if (const size_t decoded = parser_.decoded_prefix(); decoded > 0) {
      in_.Consume(decoded);
      parser_.Discard(decoded);
    }
    if (parser_.head_complete() && !in_body) {
      in_body = true;
      deadline = Clock::now() + options_.body_timeout;
      if (parser_.request().expect_continue && !continue_sent) {
        continue_sent = true;
        if (!WriteAll(kContinue, {})) return false;
      }
    }
    switch (ReadMore(deadline, false)) {
      case ReadResult::kData:
        break;
      case ReadResult::kTimeout:
        Reject(408, in_body ? "the request body did not arrive within " + std::to_string(options_.body_timeout.count()) + " ms"
                            : "the request head did not arrive within " + std::to_string(options_.header_timeout.count()) + " ms");
        return false;
      case ReadResult::kClosed:
      case ReadResult::kStopping:
        return false;
    }
  }
}

bool BlockingConnection::RunDeferred() {
  // The job runs on a pool thread while this one waits for it (the call points into in_).
  struct Handoff {
    boost::mutex mutex;
    boost::condition_variable ready;
    bool done = false;
    DeferredResult result;
  } handoff;
  const SoapCall call = response_.call;
  const int64_t arrival = arrival_ns_;
  const double limit = router_.max_queue_wait();
  const bool accepted = shared_.pool->Submit([&handoff, call, arrival, limit](SoapEngine& engine) {
    DeferredResult result = ServeDeferred(engine, call, arrival, limit);
    boost::lock_guard<boost::mutex> lock(handoff.mutex);
    handoff.result = std::move(result);
    handoff.done = true;
    handoff.ready.notify_one();  // under the lock: `handoff` lives on the waiting thread's stack
  });
  if (!accepted) {
    Reject(503, "the server is busy: too many requests are waiting for the store; retry later", "Retry-After: 1\r\n");
    return false;
  }
  metrics_->RequestStarted();
  {
    boost::unique_lock<boost::mutex> lock(handoff.mutex);
    while (!handoff.done) handoff.ready.wait(lock);
  }
  metrics_->RequestFinished();
  if (shared_.stopping->load(std::memory_order_relaxed)) response_.keep_alive = false;
  router_.CompleteDeferred(std::move(handoff.result), &response_);
  return true;
}

bool BlockingConnection::WriteAll(std::string_view head, std::string_view body) {
  if (tls_) return WriteAllTls(head, body);
  iovec parts[2] = {{const_cast<char*>(head.data()), head.size()}, {const_cast<char*>(body.data()), body.size()}};
  size_t first = 0;
  while (first < 2) {
    if (parts[first].iov_len == 0) {
      ++first;
      continue;
    }
    msghdr message{};
    message.msg_iov = parts + first;
    message.msg_iovlen = 2 - first;
    const ssize_t n = ::sendmsg(fd_, &message, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;  // reset, or the send timeout passed
    }
    metrics_->AddBytesSent(static_cast<uint64_t>(n));
    size_t left = static_cast<size_t>(n);
    while (left > 0 && first < 2) {
      const size_t step = std::min(left, parts[first].iov_len);
      parts[first].iov_base = static_cast<char*>(parts[first].iov_base) + step;
      parts[first].iov_len -= step;
      left -= step;
      if (parts[first].iov_len == 0) ++first;
    }
  }
  return true;
}

void BlockingConnection::Reject(int status, const std::string& reason, const char* extra_headers) {
  LogClientCausedLine("rejected a request from " + DescribeClient(PeerName(), parser_.forwarded_for()) + ": " +
                      std::to_string(status) + " " + reason);
  router_.Reject(status, reason, parser_.head_complete() ? parser_.request().content_type : "", extra_headers,
                 &response_);
  if (!WriteAll(response_.head, response_.body)) return;
  // Linger: read and drop what the client still sends until it closes (at most kLingerTime), so
  // that closing does not reset the connection under the answer before the client has read it.
  if (tls_) tls_->Shutdown();
  ::shutdown(fd_, SHUT_WR);
  DrainUntilClosed(fd_, kLingerTime, shared_.stopping);
}

std::string BlockingConnection::PeerName() const {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return tls_peer_.empty() ? "a closed peer" : tls_peer_;  // TLS remembers it (a reset peer has none)
  }
  char text[INET6_ADDRSTRLEN] = "?";
  uint16_t port = 0;
  if (address.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&address);
    ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    port = ntohs(a->sin6_port);
  } else {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&address);
    ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    port = ntohs(a->sin_port);
  }
  return std::string(text) + ":" + std::to_string(port);
}

}  // namespace lather
