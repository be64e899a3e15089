#include "service/http/listener.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace lather {

namespace asio = boost::asio;
using asio::ip::tcp;

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
  return !port->empty() && port->find_first_not_of("0123456789") == std::string::npos && port->size() <= 5 &&
         std::stoul(*port) <= 65535;
}

}  // namespace

Status Listen(const std::string& listen, tcp::acceptor* acceptor, uint16_t* port, std::string* address) {
  std::string host, port_text;
  if (!SplitHostPort(listen, &host, &port_text)) {
    return Status::InvalidArgument("--listen '" + listen + "' is not HOST:PORT");
  }
  try {
    asio::io_context resolver_io;
    tcp::resolver resolver(resolver_io);
    const auto results = resolver.resolve(host, port_text, tcp::resolver::passive | tcp::resolver::numeric_service);
    const tcp::endpoint endpoint = *results.begin();
    acceptor->open(endpoint.protocol());
    acceptor->set_option(tcp::acceptor::reuse_address(true));
    acceptor->bind(endpoint);
    acceptor->listen(asio::socket_base::max_listen_connections);
    *port = acceptor->local_endpoint().port();
    const std::string shown_host = endpoint.address().is_v6() ? "[" + endpoint.address().to_string() + "]"
                                                                : endpoint.address().to_string();
    *address = shown_host + ":" + std::to_string(*port);
  } catch (const boost::system::system_error& e) {
    return Status::IOError("cannot listen on " + listen + ": " + e.code().message());
  }
  return Status::Ok();
}

Status AdoptListener(int fd, tcp::acceptor* acceptor, uint16_t* port, std::string* address) {
  try {
    sockaddr_storage local{};
    socklen_t length = sizeof local;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) != 0) {
      return Status::IOError("inherited listening socket " + std::to_string(fd) + ": " + std::strerror(errno));
    }
    acceptor->assign(local.ss_family == AF_INET6 ? tcp::v6() : tcp::v4(), fd);
    const tcp::endpoint endpoint = acceptor->local_endpoint();
    *port = endpoint.port();
    const std::string shown_host = endpoint.address().is_v6() ? "[" + endpoint.address().to_string() + "]"
                                                                : endpoint.address().to_string();
    *address = shown_host + ":" + std::to_string(*port);
  } catch (const boost::system::system_error& e) {
    return Status::IOError("cannot use the inherited listening socket " + std::to_string(fd) + ": " + e.code().message());
  }
  return Status::Ok();
}

Status SetReceiveBuffer(tcp::acceptor* acceptor, int bytes) {
  const int fd = acceptor->native_handle();
  // Linux doubles the value asked (room for its bookkeeping) and caps SO_RCVBUF at net.core.rmem_max.
  const auto granted = [fd] {
    int value = 0;
    socklen_t length = sizeof value;
    return ::getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &value, &length) == 0 ? value / 2 : -1;
  };
  if (::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes) != 0) {
    return Status::IOError(std::string("--receive-buffer: setsockopt(SO_RCVBUF): ") + std::strerror(errno));
  }
  if (granted() >= bytes) return Status::Ok();
  if (::setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes) == 0 && granted() >= bytes) {
    return Status::Ok();
  }
  return Status::InvalidArgument("--receive-buffer " + std::to_string(bytes) + ": the kernel grants " +
                                 std::to_string(granted()) + " bytes at most (net.core.rmem_max; raise it with "
                                 "sysctl, or run with CAP_NET_ADMIN)");
}

}  // namespace lather
