// PeekIdle on real loopback TCP connections: an open, quiet connection may take a request; one whose server
// closed it, reset it or sent bytes must be read first; the peek consumes nothing.
#include "stress/load/idle_peek.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

using lather::IdlePeek;
using lather::PeekIdle;

namespace {

// A connected client and server socket over loopback.
struct Pair {
  int client = -1;
  int server = -1;
  Pair() {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(listener, 1) == 0);
    REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    client = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    server = ::accept(listener, nullptr, nullptr);
    REQUIRE(server >= 0);
    ::close(listener);
  }
  ~Pair() {
    if (client >= 0) ::close(client);
    if (server >= 0) ::close(server);
  }
};

// Loopback delivers at once, but give the kernel a moment to queue the segment on the other side.
void Settle() { std::this_thread::sleep_for(std::chrono::milliseconds(20)); }

}  // namespace

TEST_CASE("an open, quiet connection may take the next request", "[unit][stress][load]") {
  Pair pair;
  CHECK(PeekIdle(pair.client) == IdlePeek::kOpen);
  CHECK(PeekIdle(pair.client) == IdlePeek::kOpen);  // and asking again changes nothing
}

TEST_CASE("a connection its server closed is read before it is used", "[unit][stress][load]") {
  Pair pair;
  ::close(pair.server);
  pair.server = -1;
  Settle();
  CHECK(PeekIdle(pair.client) == IdlePeek::kSomethingToRead);
  char byte;
  CHECK(::recv(pair.client, &byte, 1, MSG_DONTWAIT) == 0);  // the end of stream is still there to be read
}

TEST_CASE("a connection its server reset is read before it is used", "[unit][stress][load]") {
  Pair pair;
  const linger abort{1, 0};
  REQUIRE(::setsockopt(pair.server, SOL_SOCKET, SO_LINGER, &abort, sizeof abort) == 0);
  ::close(pair.server);
  pair.server = -1;
  Settle();
  CHECK(PeekIdle(pair.client) == IdlePeek::kSomethingToRead);
}

TEST_CASE("bytes the server sent unasked are left in the socket for the read", "[unit][stress][load]") {
  Pair pair;
  REQUIRE(::send(pair.server, "HTTP", 4, 0) == 4);
  Settle();
  CHECK(PeekIdle(pair.client) == IdlePeek::kSomethingToRead);
  char bytes[8] = {};
  CHECK(::recv(pair.client, bytes, sizeof bytes, MSG_DONTWAIT) == 4);  // all four: the peek took none
  CHECK(PeekIdle(pair.client) == IdlePeek::kOpen);
}
