#include "common/tls.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <csignal>
#include <cstring>

namespace lather {
namespace {

// OpenSSL's reason for `code` ("wrong version number", "No such file or directory").
std::string ReasonText(unsigned long code) {
  if (ERR_SYSTEM_ERROR(code)) return std::strerror(ERR_GET_REASON(code));
  const char* reason = ERR_reason_error_string(code);
  if (reason != nullptr) return reason;
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

// The reason for the oldest error queued on this thread, or `fallback`; clears the queue.
std::string TakeError(const char* fallback, unsigned long* code_out = nullptr) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code_out != nullptr) *code_out = code;
  return code == 0 ? std::string(fallback) : ReasonText(code);
}

// Settings both sides share: TLS 1.2 at least, partial writes, reading ahead.
void CommonSettings(SSL_CTX* ctx) {
  // OpenSSL's socket BIO writes with write(2): a peer that reset would raise SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // A peer that closes without close_notify is an ordinary EOF: HTTP frames its own messages.
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
  // Partial writes as with send(); the retried buffer may move (it is the same bytes). Idle
  // connections give their record buffers back through ReleaseBuffers().
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // One recv() for every record there is (without it: two per record, header then body, and a third
  // that finds nothing). HasPending() says when buffered records need no wait for the socket.
  SSL_CTX_set_read_ahead(ctx, 1);
}

}  // namespace

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

Status TlsContext::ForServer(const std::string& cert_file, const std::string& key_file,
                             std::unique_ptr<TlsContext>* context) {
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return Status::Internal("cannot create a TLS context: " + TakeError("unknown error"));
  std::unique_ptr<TlsContext> result(new TlsContext(ctx, false));
  CommonSettings(ctx);
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1) {
    return Status::InvalidArgument("cannot load the TLS certificate " + cert_file + ": " +
                                   TakeError("not a PEM certificate"));
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    unsigned long code = 0;
    const std::string reason = TakeError("not a PEM private key", &code);
    if (ERR_GET_LIB(code) == ERR_LIB_X509 && ERR_GET_REASON(code) == X509_R_KEY_VALUES_MISMATCH) {
      return Status::InvalidArgument("the TLS key " + key_file + " does not match the certificate " + cert_file);
    }
    return Status::InvalidArgument("cannot load the TLS key " + key_file + ": " + reason);
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return Status::InvalidArgument("the TLS key " + key_file + " does not match the certificate " + cert_file + ": " +
                                   TakeError("key mismatch"));
  }
  *context = std::move(result);
  return Status::Ok();
}

Status TlsContext::ForClient(bool verify, const std::string& ca_file, std::unique_ptr<TlsContext>* context) {
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr) return Status::Internal("cannot create a TLS context: " + TakeError("unknown error"));
  std::unique_ptr<TlsContext> result(new TlsContext(ctx, verify));
  CommonSettings(ctx);
  if (verify) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    if (SSL_CTX_set_default_verify_paths(ctx) != 1) ERR_clear_error();  // no system store: --cacert may do
    if (!ca_file.empty() && SSL_CTX_load_verify_locations(ctx, ca_file.c_str(), nullptr) != 1) {
      return Status::InvalidArgument("cannot load the CA file " + ca_file + ": " + TakeError("not PEM certificates"));
    }
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  }
  *context = std::move(result);
  return Status::Ok();
}

std::unique_ptr<TlsSession> TlsSession::ForServer(const TlsContext& context, int fd) {
  SSL* ssl = SSL_new(context.native());
  if (ssl == nullptr) return nullptr;
  std::unique_ptr<TlsSession> session(new TlsSession(ssl));
  if (SSL_set_fd(ssl, fd) != 1) return nullptr;
  SSL_set_accept_state(ssl);
  return session;
}

std::unique_ptr<TlsSession> TlsSession::ForClient(const TlsContext& context, int fd, const std::string& host) {
  SSL* ssl = SSL_new(context.native());
  if (ssl == nullptr) return nullptr;
  std::unique_ptr<TlsSession> session(new TlsSession(ssl));
  if (SSL_set_fd(ssl, fd) != 1) return nullptr;
  in6_addr scratch;
  const bool is_ip = inet_pton(AF_INET, host.c_str(), &scratch) == 1 || inet_pton(AF_INET6, host.c_str(), &scratch) == 1;
  if (!is_ip && !host.empty()) {  // SNI names hosts only (SSL_set_tlsext_host_name, without its C cast)
    SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, const_cast<char*>(host.c_str()));
  }
  // SSL_set1_host checks a DNS name or, given an address, the certificate's IP entries.
  if (context.verify() && !host.empty() && SSL_set1_host(ssl, host.c_str()) != 1) return nullptr;
  SSL_set_connect_state(ssl);
  return session;
}

TlsSession::~TlsSession() { SSL_free(ssl_); }

TlsSession::Result TlsSession::Classify(int ret) {
  const int code = SSL_get_error(ssl_, ret);
  switch (code) {
    case SSL_ERROR_WANT_READ:
      return Result::kWantRead;
    case SSL_ERROR_WANT_WRITE:
      return Result::kWantWrite;
    case SSL_ERROR_ZERO_RETURN:
      return Result::kClosed;
    case SSL_ERROR_SYSCALL:
      broken_ = true;
      ERR_clear_error();
      if (errno == 0 || errno == ECONNRESET || errno == EPIPE) return Result::kClosed;
      error_ = std::strerror(errno);
      return Result::kFailed;
    default:
      broken_ = true;
      error_ = TakeError("TLS protocol error");
      if (error_ == "http request") error_ = "plain HTTP sent to the TLS port";
      if (SSL_get_verify_result(ssl_) != X509_V_OK) {
        error_ += std::string(" (") + X509_verify_cert_error_string(SSL_get_verify_result(ssl_)) + ")";
      }
      return Result::kFailed;
  }
}

TlsSession::Result TlsSession::Handshake() {
  ERR_clear_error();
  errno = 0;
  const int ret = SSL_do_handshake(ssl_);
  return ret == 1 ? Result::kOk : Classify(ret);
}

TlsSession::Result TlsSession::Read(char* buffer, size_t length, size_t* got) {
  ERR_clear_error();
  errno = 0;
  const int ret = SSL_read_ex(ssl_, buffer, length, got);
  const Result result = ret == 1 ? Result::kOk : Classify(ret);
  read_blocked_ = result == Result::kWantRead;
  return result;
}

TlsSession::Result TlsSession::Write(const char* data, size_t length, size_t* wrote) {
  ERR_clear_error();
  errno = 0;
  const int ret = SSL_write_ex(ssl_, data, length, wrote);
  return ret == 1 ? Result::kOk : Classify(ret);
}

void TlsSession::Shutdown() {
  if (broken_ || !SSL_is_init_finished(ssl_) || (SSL_get_shutdown(ssl_) & SSL_SENT_SHUTDOWN) != 0) return;
  ERR_clear_error();
  (void)SSL_shutdown(ssl_);  // queues close_notify; on a full socket it is simply not sent
  ERR_clear_error();
}

bool TlsSession::certificate_rejected() const {
  return broken_ && SSL_get_verify_mode(ssl_) != SSL_VERIFY_NONE && SSL_get_verify_result(ssl_) != X509_V_OK;
}

void TlsSession::ReleaseBuffers() { (void)SSL_free_buffers(ssl_); }

bool TlsSession::HasPending() const {
  return SSL_pending(ssl_) > 0 || (!read_blocked_ && SSL_has_pending(ssl_) == 1);
}

}  // namespace lather
