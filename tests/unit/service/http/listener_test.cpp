#include "service/http/listener.h"

#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// The receive buffer the kernel gives a connection accepted by `acceptor`, as asked (Linux reports twice the value
// asked for its bookkeeping; Asio's get_option halves it back on Linux).
int AcceptedReceiveBuffer(asio::io_context& io, tcp::acceptor& acceptor, uint16_t port) {
  tcp::socket client(io);
  client.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  tcp::socket accepted = acceptor.accept();
  tcp::socket::receive_buffer_size size;
  accepted.get_option(size);
  return size.value();
}

}  // namespace

TEST_CASE("connections accepted by a listener inherit the receive buffer SetReceiveBuffer gave it", "[listener]") {
  constexpr int kBytes = 1 << 20;
  asio::io_context io;
  tcp::acceptor acceptor(io);
  uint16_t port = 0;
  std::string address;
  REQUIRE(lather::Listen("127.0.0.1:0", &acceptor, &port, &address).ok());
  const int before = AcceptedReceiveBuffer(io, acceptor, port);
  REQUIRE(lather::SetReceiveBuffer(&acceptor, kBytes).ok());
  CHECK(AcceptedReceiveBuffer(io, acceptor, port) == kBytes);
  CHECK(before != kBytes);  // the kernel's default was not already what was asked

  SECTION("and a listener taken over from a parent process too") {
    tcp::acceptor adopted(io);
    uint16_t adopted_port = 0;
    REQUIRE(lather::AdoptListener(::dup(acceptor.native_handle()), &adopted, &adopted_port, &address).ok());
    REQUIRE(lather::SetReceiveBuffer(&adopted, kBytes / 2).ok());
    CHECK(AcceptedReceiveBuffer(io, adopted, adopted_port) == kBytes / 2);
  }
}
