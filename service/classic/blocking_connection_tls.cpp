// BlockingConnection's TLS half: the handshake, reads and writes through the TlsSession on a
// non-blocking socket, each wait a poll() bounded by the connection's deadlines. One thread only.
#include <fcntl.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>

#include "common/log.h"
#include "common/log_limiter.h"
#include "service/classic/blocking_connection.h"
#include "common/stamped_receive.h"

namespace lather {

bool BlockingConnection::HandshakeTls() {
  // Non-blocking: a client that sends half a TLS record must not hold SSL_read past a deadline.
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
  tls_peer_ = PeerName();
  tls_ = TlsSession::ForServer(*options_.tls, fd_);
  if (!tls_) {
    LogClientCausedLine("closed a connection from " + PeerName() + ": cannot start a TLS session");
    return false;
  }
  const auto deadline = Clock::now() + options_.header_timeout;
  for (;;) {
    const TlsSession::Result result = tls_->Handshake();
    switch (result) {
      case TlsSession::Result::kOk:
        return true;
      case TlsSession::Result::kWantRead:
      case TlsSession::Result::kWantWrite:
        if (WaitTls(result, deadline, true)) continue;
        if (Clock::now() >= deadline) {
          LogClientCausedLine("closed a connection from " + PeerName() + ": the TLS handshake did not complete within " +
                              std::to_string(options_.header_timeout.count()) + " ms");
        }
        return false;
      case TlsSession::Result::kClosed:
        return false;  // the client went away before the handshake (a port probe)
      case TlsSession::Result::kFailed:
        LogClientCausedLine("closed a connection from " + PeerName() + ": TLS handshake failed: " + tls_->error());
        return false;
    }
  }
}

bool BlockingConnection::WaitTls(TlsSession::Result want, Clock::time_point deadline, bool until_stop) {
  for (;;) {
    const auto now = Clock::now();
    if (now >= deadline) return false;
    // The stop flag is looked at as often as in ReadMore: a stalled handshake does not delay a stop.
    const auto wait = std::min(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) +
                                   std::chrono::milliseconds(1),
                               std::chrono::milliseconds(200));
    pollfd p{fd_, static_cast<short>(want == TlsSession::Result::kWantWrite ? POLLOUT : POLLIN), 0};
    const int ready = ::poll(&p, 1, static_cast<int>(wait.count()));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return false;
    if (until_stop && shared_.stopping->load(std::memory_order_relaxed)) return false;
  }
}

ssize_t BlockingConnection::ReceiveTls(char* room, size_t length) {
  tls_wants_write_ = false;
  size_t got = 0;
  switch (tls_->Read(room, length, &got)) {
    case TlsSession::Result::kOk:
      arrival_ns_ = RealtimeNanos();  // the kernel's stamp describes ciphertext, maybe read earlier
      return static_cast<ssize_t>(got);
    case TlsSession::Result::kWantWrite:
      tls_wants_write_ = true;
      [[fallthrough]];
    case TlsSession::Result::kWantRead:
      errno = EAGAIN;
      return -1;
    case TlsSession::Result::kFailed:
      LogClientCausedLine("closed a connection from " + PeerName() + ": TLS error: " + tls_->error());
      return 0;
    case TlsSession::Result::kClosed:
      break;
  }
  return 0;
}

bool BlockingConnection::WriteAllTls(std::string_view head, std::string_view body) {
  for (std::string_view part : {head, body}) {
    while (!part.empty()) {
      size_t wrote = 0;
      const TlsSession::Result result = tls_->Write(part.data(), part.size(), &wrote);
      if (result == TlsSession::Result::kWantRead || result == TlsSession::Result::kWantWrite) {
        // A client that stops reading our answer is cut off after the body timeout.
        if (!WaitTls(result, Clock::now() + options_.body_timeout, false)) return false;
        continue;
      }
      if (result != TlsSession::Result::kOk) return false;
      metrics_->AddBytesSent(wrote);
      part.remove_prefix(wrote);
    }
  }
  return true;
}

}  // namespace lather
