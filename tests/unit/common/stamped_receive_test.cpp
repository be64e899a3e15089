// ReceiveStamped on real loopback sockets: a read's stamp is the kernel's receive time of the data, and - what the
// service's wait limit has to live with - the data of a request still queued when a newer one arrives on the same
// connection is stamped with the newer one's arrival (the kernel merges the newer segment into the queued one and
// keeps the newer stamp: tcp_try_coalesce). A pipelined request's own wait in the socket is invisible to it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "common/stamped_receive.h"

using lather::EnableArrivalStamps;
using lather::RealtimeNanos;
using lather::ReceiveStamped;

namespace {
// A connected pair on 127.0.0.1: {client, server}; the server's side stamps what it receives.
std::pair<int, int> Pair() {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  REQUIRE(listen(listener, 1) == 0);
  socklen_t length = sizeof address;
  REQUIRE(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  const int client = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  const int server = accept(listener, nullptr, nullptr);
  close(listener);
  REQUIRE(server >= 0);
  const int one = 1;
  setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  REQUIRE(EnableArrivalStamps(server));
  return {client, server};
}

// The kernel turns receive stamping on for the whole machine when a first socket asks, from a deferred work item:
// a segment that comes before it is done carries no stamp (ReceiveStamped then gives the read's time). Waits, up
// to a second, until a byte sent on a fresh pair comes back stamped before its read.
void WaitUntilStampsWork() {
  for (int attempt = 0; attempt < 50; ++attempt) {
    auto [client, server] = Pair();
    send(client, "x", 1, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    char byte;
    int64_t stamp = 0;
    const bool stamped = ReceiveStamped(server, &byte, 1, &stamp) == 1 && RealtimeNanos() - stamp > 10'000'000;
    close(client);
    close(server);
    if (stamped) return;
  }
}

void Send(int fd, const std::string& bytes) { REQUIRE(send(fd, bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size())); }
}  // namespace

TEST_CASE("a read is stamped with the kernel's receipt of its bytes, not with the read", "[common][stamps]") {
  WaitUntilStampsWork();
  auto [client, server] = Pair();
  const int64_t before = RealtimeNanos();
  Send(client, std::string(500, 'A'));
  const int64_t sent = RealtimeNanos();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the read comes later than the arrival
  char buffer[1024];
  int64_t stamp = 0;
  REQUIRE(ReceiveStamped(server, buffer, sizeof buffer, &stamp) == 500);
  const int64_t read_at = RealtimeNanos();
  CHECK(stamp >= before);
  CHECK(stamp <= sent);     // received during the send (loopback delivers it in the sending call)
  CHECK(stamp < read_at);   // not the read's time
  close(client);
  close(server);
}

TEST_CASE("a pipelined request still queued when the next arrives carries the next one's stamp",
          "[common][stamps]") {
  WaitUntilStampsWork();  // else an unstamped read would be given its own time, and pass for the wrong reason
  for (const size_t size : {size_t{500}, size_t{19321}}) {  // an Increment; bench/overload's echo of 30 samples
    auto [client, server] = Pair();
    Send(client, std::string(size, 'A'));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const int64_t second_sent = RealtimeNanos();
    Send(client, std::string(size, 'B'));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    // The first request's head, as the service reads it (a head probe of 1 KiB).
    char buffer[1024];
    int64_t stamp = 0;
    REQUIRE(ReceiveStamped(server, buffer, sizeof buffer, &stamp) > 0);
    CHECK(buffer[0] == 'A');
    INFO("request of " << size << " bytes: its head stamped " << (stamp - second_sent) / 1000 << " us after the "
         "second request's send began");
    // The first request arrived 20 ms before the second; its head is stamped no earlier than the second's send.
    // Should the kernel stop merging queued segments (or this kernel not do it), this check tells.
    CHECK(stamp >= second_sent);
    close(client);
    close(server);
  }
}
