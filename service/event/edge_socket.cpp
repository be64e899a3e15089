#include "service/event/edge_socket.h"

#include <boost/asio/error.hpp>

#include <utility>

namespace lather {

EdgeSocket::EdgeSocket(boost::asio::io_context& io, boost::asio::ip::tcp::socket&& socket)
    : boost::asio::ip::tcp::socket(std::move(socket)),
      reactor_(boost::asio::use_service<boost::asio::detail::reactor>(io)) {}

bool EdgeSocket::StartRead(Reader* reader, std::shared_ptr<void> keep) {
  if (op_.pending) return false;
  op_.pending = true;
  op_.reader = reader;
  op_.keep = std::move(keep);
  op_.ec_ = boost::system::error_code();
  op_.bytes_transferred_ = 0;
  auto& impl = impl_.get_implementation();
  // allow_speculative: Perform runs at once if an edge came since the socket was last emptied (Asio keeps
  // that per descriptor); otherwise the op waits on the registration as it is.
  reactor_.start_op(boost::asio::detail::reactor::read_op, impl.socket_, impl.reactor_data_, &op_,
                    /*is_continuation=*/true, /*allow_speculative=*/true);
  return true;
}

EdgeSocket::ReadOp::ReadOp() : reactor_op(boost::system::error_code(), &ReadOp::Perform, &ReadOp::Complete) {}

boost::asio::detail::reactor_op::status EdgeSocket::ReadOp::Perform(boost::asio::detail::reactor_op* base) {
  auto* op = static_cast<ReadOp*>(base);
  switch (op->reader->ReadReady()) {
    case ReadResult::kWouldBlock: return not_done;
    case ReadResult::kDrained: return done_and_exhausted;
    case ReadResult::kDone: return done;
  }
  return done;
}

void EdgeSocket::ReadOp::Complete(void* owner, boost::asio::detail::operation* base,
                                  const boost::system::error_code&, std::size_t) {
  auto* op = static_cast<ReadOp*>(base);
  // The reader may be destroyed with the last reference: take it off the op first, touch the op no more.
  std::shared_ptr<void> keep = std::move(op->keep);
  Reader* reader = op->reader;
  const boost::system::error_code error = op->ec_;
  op->pending = false;
  if (owner != nullptr) reader->ReadDone(error);  // null: the io_context is being destroyed
}

}  // namespace lather
