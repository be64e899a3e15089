// Connection's TLS half: the handshake, and reads and writes through the TlsSession driven by the
// same readiness waits as plain TCP. Loop thread only (see connection.h).
#include <boost/asio/post.hpp>

#include <cerrno>

#include "common/log.h"
#include "common/log_limiter.h"
#include "service/event/connection.h"
#include "service/event/event_loop.h"
#include "common/stamped_receive.h"

namespace lather {

void Connection::StartTls() {
  tls_ = std::make_unique<TlsState>();
  boost::system::error_code ignored;
  tls_->peer = socket_.remote_endpoint(ignored);
  tls_->session = TlsSession::ForServer(*loop_->options().tls, socket_.native_handle());
  if (!tls_->session) {
    LogClientCausedLine("closed a connection from " + PeerName() + ": cannot start a TLS session");
    return Close();
  }
  SetPhase(Phase::kHandshake);
  ContinueHandshake();
}

void Connection::ContinueHandshake() {
  switch (const TlsSession::Result result = tls_->session->Handshake()) {
    case TlsSession::Result::kOk:
      SetPhase(Phase::kIdle);
      return Read();
    case TlsSession::Result::kWantRead:
    case TlsSession::Result::kWantWrite:
      return WaitForTls(result, &Connection::ContinueHandshake);
    case TlsSession::Result::kClosed:
      return Close();  // the client went away before the handshake (a port probe)
    case TlsSession::Result::kFailed:
      LogClientCausedLine("closed a connection from " + PeerName() + ": TLS handshake failed: " + tls_->session->error());
      return Close();
  }
}

void Connection::WaitForTls(TlsSession::Result want, void (Connection::*then)()) {
  socket_.async_wait(want == TlsSession::Result::kWantWrite ? boost::asio::ip::tcp::socket::wait_write
                                                            : boost::asio::ip::tcp::socket::wait_read,
                     [self = shared_from_this(), then](const boost::system::error_code& error) {
                       if (self->phase_ == Phase::kClosed) return;
                       if (error) return self->Close();
                       ((*self).*then)();
                     });
}

void Connection::ReadTls() {
  if (tls_->session->HasPending()) {
    // Decrypted bytes are waiting inside the session: the socket may never become readable for them.
    boost::asio::post(loop_->io(), [self = shared_from_this()] { self->OnReadable({}); });
    return;
  }
  if (tls_->read_wants_write) {
    tls_->read_wants_write = false;
    return WaitForTls(TlsSession::Result::kWantWrite, &Connection::ReadTls);
  }
  socket_.async_wait(boost::asio::ip::tcp::socket::wait_read,
                     [self = shared_from_this()](const boost::system::error_code& error) { self->OnReadable(error); });
}

ssize_t Connection::ReceiveTls(char* room, size_t length) {
  size_t total = 0;
  while (total < length) {
    size_t got = 0;
    const TlsSession::Result result = tls_->session->Read(room + total, length - total, &got);
    if (result == TlsSession::Result::kOk) {
      total += got;
      if (!tls_->session->HasPending()) break;  // all read: skip the read that would find nothing
      continue;
    }
    if (total > 0) break;  // what failed or is missing is met on the next read
    switch (result) {
      case TlsSession::Result::kWantWrite:
        tls_->read_wants_write = true;
        [[fallthrough]];
      case TlsSession::Result::kWantRead:
        errno = EAGAIN;
        return -1;
      case TlsSession::Result::kFailed:
        LogClientCausedLine("closed a connection from " + PeerName() + ": TLS error: " + tls_->session->error());
        return 0;
      default:
        return 0;
    }
  }
  arrival_ns_ = RealtimeNanos();
  return static_cast<ssize_t>(total);
}

void Connection::WriteTls(const std::array<boost::asio::const_buffer, 3>& parts, bool then_read) {
  tls_->parts = parts;
  tls_->written = 0;
  tls_->then_read = then_read;
  ContinueWriteTls();
}

void Connection::ContinueWriteTls() {
  for (boost::asio::const_buffer& part : tls_->parts) {
    while (part.size() > 0) {
      size_t wrote = 0;
      const TlsSession::Result result = tls_->session->Write(static_cast<const char*>(part.data()), part.size(), &wrote);
      if (result == TlsSession::Result::kWantRead || result == TlsSession::Result::kWantWrite) {
        return WaitForTls(result, &Connection::ContinueWriteTls);
      }
      if (result != TlsSession::Result::kOk) {
        if (tls_->then_read) return Close();
        return OnWritten(boost::asio::error::broken_pipe, 0);
      }
      part += wrote;
      tls_->written += wrote;
    }
  }
  if (tls_->then_read) return Read();
  OnWritten({}, tls_->written);
}

void Connection::ReleaseTlsBuffers() {
  if (tls_->session) tls_->session->ReleaseBuffers();
}

void Connection::ShutdownTls() {
  if (tls_->session) tls_->session->Shutdown();
}

}  // namespace lather
