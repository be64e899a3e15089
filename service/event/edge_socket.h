// EdgeSocket: a TCP socket whose wait for incoming bytes costs no system call. Asio registers every
// socket with its epoll set once, edge-triggered; but its async_wait(wait_read) cannot know whether an
// edge already passed, so it re-arms the registration (epoll_ctl(EPOLL_CTL_MOD)) on every wait: one
// system call per keep-alive request, over an epoll set as large as the connections. A read started
// here is an operation on the same reactor that does the reading itself (ReadReady), as Asio's own
// async_read_some does: tried at once only when an edge came since the last read that emptied the
// socket, otherwise queued until the next edge, with no epoll_ctl, as nginx's edge-triggered reads.
// Uses Boost.Asio's reactor internals (boost::asio::detail, Boost 1.74's epoll reactor); the unit test
// holds them to that. One loop's socket; not thread-safe (its io_context must run on one thread).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
// After the public headers, which define what the reactor's own headers need.
#include <boost/asio/detail/reactor.hpp>
#include <boost/asio/detail/reactor_op.hpp>

#include <memory>

namespace lather {

class EdgeSocket : public boost::asio::ip::tcp::socket {
 public:
  // What ReadReady found.
  enum class ReadResult {
    kWouldBlock,  // nothing there yet: wait for the next edge (the read stays queued)
    kDrained,     // read, and less than asked for: the socket is empty, the next wait needs an edge
    kDone,        // read all it asked for, or found something else to do: finish the read
  };

  // The party that reads: ReadReady runs on the reactor (when an edge came, or at once when one may
  // have come since the socket was last emptied), ReadDone afterwards as an ordinary handler.
  class Reader {
   public:
    virtual ReadResult ReadReady() = 0;
    // `error` is set when the read was cancelled (the socket closed) before ReadReady finished it.
    virtual void ReadDone(const boost::system::error_code& error) = 0;

   protected:
    ~Reader() = default;
  };

  // Takes over `socket` (open, registered with `io`'s reactor by its accept).
  EdgeSocket(boost::asio::io_context& io, boost::asio::ip::tcp::socket&& socket);

  // Starts a read for `reader`, which `keep` keeps alive until ReadDone has run. At most one at a time:
  // false (and nothing started) while one is pending.
  bool StartRead(Reader* reader, std::shared_ptr<void> keep);

  bool read_pending() const { return op_.pending; }

 private:
  class ReadOp : public boost::asio::detail::reactor_op {
   public:
    ReadOp();
    Reader* reader = nullptr;
    std::shared_ptr<void> keep;
    bool pending = false;

   private:
    static status Perform(boost::asio::detail::reactor_op* base);
    static void Complete(void* owner, boost::asio::detail::operation* base, const boost::system::error_code&,
                         std::size_t);
  };

  boost::asio::detail::reactor& reactor_;
  ReadOp op_;
};

}  // namespace lather
