#include "service/event/edge_socket.h"

#include <catch2/catch.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/write.hpp>

#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <memory>
#include <string>

using lather::EdgeSocket;
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// A reader that reads `chunk` bytes at a time into `got` and counts its calls.
class ChunkReader final : public EdgeSocket::Reader {
 public:
  explicit ChunkReader(size_t chunk) : chunk_(chunk) {}
  EdgeSocket* socket = nullptr;
  std::string got;
  int ready_calls = 0;
  int done_calls = 0;
  boost::system::error_code last_error;
  bool would_block_seen = false;

  EdgeSocket::ReadResult ReadReady() override {
    ++ready_calls;
    std::string room(chunk_, '\0');
    const ssize_t n = ::recv(socket->native_handle(), room.data(), room.size(), MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      would_block_seen = true;
      return EdgeSocket::ReadResult::kWouldBlock;
    }
    if (n <= 0) return EdgeSocket::ReadResult::kDone;
    got.append(room.data(), static_cast<size_t>(n));
    return static_cast<size_t>(n) < chunk_ ? EdgeSocket::ReadResult::kDrained : EdgeSocket::ReadResult::kDone;
  }
  void ReadDone(const boost::system::error_code& error) override {
    ++done_calls;
    last_error = error;
  }

 private:
  size_t chunk_;
};

struct Pair {
  asio::io_context io{1};
  std::unique_ptr<EdgeSocket> server;
  tcp::socket client{io};

  Pair() {
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    client.connect(acceptor.local_endpoint());
    tcp::socket accepted(io);
    acceptor.accept(accepted);
    accepted.non_blocking(true);
    server = std::make_unique<EdgeSocket>(io, std::move(accepted));
  }
  // Runs the loop until `done` or a second has passed.
  template <class Done>
  void RunUntil(Done done) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!done() && std::chrono::steady_clock::now() < until) {
      io.restart();
      io.run_for(std::chrono::milliseconds(10));
    }
  }
};

}  // namespace

TEST_CASE("an edge read waits for bytes and reads them when they come", "[service][event][edge_socket]") {
  Pair p;
  ChunkReader reader(64);
  reader.socket = p.server.get();
  auto keep = std::make_shared<int>(0);
  REQUIRE(p.server->StartRead(&reader, keep));
  REQUIRE_FALSE(p.server->StartRead(&reader, keep));  // one at a time
  p.RunUntil([] { return false; });                   // nothing sent: it waits
  CHECK(reader.done_calls == 0);
  asio::write(p.client, asio::buffer(std::string("hello")));
  p.RunUntil([&] { return reader.done_calls > 0; });
  CHECK(reader.done_calls == 1);
  CHECK(reader.got == "hello");
  CHECK_FALSE(reader.last_error);
  CHECK_FALSE(p.server->read_pending());
}

TEST_CASE("after a read that emptied the socket the next read waits without trying", "[service][event][edge_socket]") {
  Pair p;
  ChunkReader reader(64);
  reader.socket = p.server.get();
  asio::write(p.client, asio::buffer(std::string("one")));
  p.server->StartRead(&reader, nullptr);
  p.RunUntil([&] { return reader.done_calls == 1; });
  REQUIRE(reader.got == "one");  // 3 of 64: drained
  const int calls = reader.ready_calls;
  // The socket is known to be empty and no edge has come since: starting a read costs no read attempt.
  p.server->StartRead(&reader, nullptr);
  CHECK(reader.ready_calls == calls);
  asio::write(p.client, asio::buffer(std::string("two")));
  p.RunUntil([&] { return reader.done_calls == 2; });
  CHECK(reader.got == "onetwo");
}

TEST_CASE("a read that filled its room reads on at once: no byte waits for an edge that came already",
          "[service][event][edge_socket]") {
  Pair p;
  ChunkReader reader(4);
  reader.socket = p.server.get();
  asio::write(p.client, asio::buffer(std::string("0123456789")));
  std::string expected = "0123456789";
  for (int i = 0; i < 3 && reader.got.size() < expected.size(); ++i) {
    p.server->StartRead(&reader, nullptr);
    p.RunUntil([&, before = reader.done_calls] { return reader.done_calls > before; });
  }
  CHECK(reader.got == expected);  // 4 + 4 + 2, with no new edge after the first
}

TEST_CASE("closing the socket ends a pending read with an error", "[service][event][edge_socket]") {
  Pair p;
  ChunkReader reader(64);
  reader.socket = p.server.get();
  auto keep = std::make_shared<int>(0);
  p.server->StartRead(&reader, keep);
  CHECK(keep.use_count() == 2);  // the pending read keeps its owner alive
  p.server->close();
  p.RunUntil([&] { return reader.done_calls > 0; });
  CHECK(reader.done_calls == 1);
  CHECK(reader.last_error == asio::error::operation_aborted);
  CHECK(keep.use_count() == 1);
}
