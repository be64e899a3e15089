// A TCP listener on 127.0.0.1 (port 0) that never accepts: the kernel completes the handshakes and takes
// the requests' bytes, and no answer ever comes. A test can ask whether anyone connected. One per test.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include <catch2/catch.hpp>

namespace lather::test {

class IdleListener {
 public:
  IdleListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(fd_, 16) == 0);
    socklen_t length = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &length);
    port_ = ntohs(addr.sin_port);
  }
  ~IdleListener() { ::close(fd_); }
  IdleListener(const IdleListener&) = delete;
  IdleListener& operator=(const IdleListener&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/soap"; }
  // True if a connection is waiting to be accepted (looked for during `wait_ms`).
  bool Connected(int wait_ms) const {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, wait_ms) > 0;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace lather::test
