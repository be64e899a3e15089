// TLS over a non-blocking socket with OpenSSL, shared by the service (both engines) and the raw
// load engine of lather-stress: a TlsContext holds the certificate (server) or the trust store
// (client) and the protocol floor (TLS 1.2); a TlsSession is one connection's TLS state, driven by
// the caller's own readiness waits: every call returns at once, saying whether the socket must
// become readable or writable before the call is made again.
// A TlsContext is immutable after creation and may be shared by any number of threads; a
// TlsSession belongs to one connection and one thread at a time. Creating a context sets SIGPIPE
// to be ignored (OpenSSL writes to sockets with write(2); a reset peer must be an error, not a signal).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <string>

#include "common/status.h"

struct ssl_ctx_st;
struct ssl_st;

namespace lather {

class TlsContext {
 public:
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // A server context from PEM files: the certificate (chain) and its private key. InvalidArgument
  // with one line naming the file and OpenSSL's reason when either cannot be loaded or they do not
  // belong together.
  static Status ForServer(const std::string& cert_file, const std::string& key_file,
                          std::unique_ptr<TlsContext>* context);

  // A client context. With `verify` the peer's certificate must chain to the system CA store or to
  // `ca_file` (PEM, optional) and name the host; without it anything is accepted. InvalidArgument
  // when `ca_file` cannot be loaded.
  static Status ForClient(bool verify, const std::string& ca_file, std::unique_ptr<TlsContext>* context);

  ssl_ctx_st* native() const { return ctx_; }
  bool verify() const { return verify_; }

 private:
  explicit TlsContext(ssl_ctx_st* ctx, bool verify) : ctx_(ctx), verify_(verify) {}

  ssl_ctx_st* ctx_;
  bool verify_;
};

class TlsSession {
 public:
  // What a call needs next. kWantRead/kWantWrite: wait for the socket, then call again with the
  // same arguments. kClosed: the peer closed (close_notify or EOF). kFailed: see error().
  enum class Result { kOk, kWantRead, kWantWrite, kClosed, kFailed };

  // A session on the connected, non-blocking socket `fd` (not owned: the caller closes it).
  // `host` (client side only) is the name or IP address the certificate must show and the SNI sent.
  static std::unique_ptr<TlsSession> ForServer(const TlsContext& context, int fd);
  static std::unique_ptr<TlsSession> ForClient(const TlsContext& context, int fd, const std::string& host);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  // Advances the handshake; kOk once it is complete.
  Result Handshake();
  // Reads up to `length` decrypted bytes into `buffer`; on kOk *got > 0.
  Result Read(char* buffer, size_t length, size_t* got);
  // Encrypts and sends up to `length` bytes; on kOk *wrote > 0 (possibly fewer than `length`).
  Result Write(const char* data, size_t length, size_t* wrote);
  // Sends close_notify if the session is still usable; never waits. The socket stays open.
  void Shutdown();
  // True when bytes the session already took from the socket may give data: read again without
  // waiting for the socket. (OpenSSL reads ahead: one recv() takes every record there is. Half a
  // record does not count once a read has said kWantRead for it.)
  bool HasPending() const;
  // True when the handshake failed because the peer's certificate did not pass the checks.
  bool certificate_rejected() const;
  // Frees the session's record buffers (about 34 KB) if they hold nothing; they are taken again on
  // the next read or write. For idle keep-alive connections.
  void ReleaseBuffers();
  // Why the last call failed, in one line (OpenSSL's reason, or the certificate check's).
  const std::string& error() const { return error_; }

 private:
  TlsSession(ssl_st* ssl) : ssl_(ssl) {}
  Result Classify(int ret);

  ssl_st* ssl_;
  bool broken_ = false;  // a fatal error happened: no close_notify
  bool read_blocked_ = false;  // the last Read() said kWantRead: what is buffered is not a whole record
  std::string error_;
};

}  // namespace lather
