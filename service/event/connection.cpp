#include "service/event/connection.h"

#include <boost/asio/buffer.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <optional>
#include <utility>

#include "common/clock.h"
#include "common/log.h"
#include "common/log_limiter.h"
#include "service/event/event_loop.h"
#include "common/stamped_receive.h"
#include "service/memory/memory_return.h"

namespace lather {
namespace {
constexpr size_t kReadChunk = EventLoop::kReadChunk;  // a request's first read (a spare of the loop's)
// The most one read takes from a socket, and one write gives it, per wake-up of the loop.
constexpr size_t kMaxReadPerWake = 256 * 1024;
constexpr size_t kMaxWritePerWake = 256 * 1024;
// Buffers larger than this are freed on the blocking pool rather than on the loop.
constexpr size_t kFreeOffLoopBytes = 1024 * 1024;
// After a rejection, how long the rest of the client's request is read and dropped before closing.
constexpr std::chrono::milliseconds kLingerTime{5000};
// How long an idle connection waiting with the edge read goes before it looks once for a FIN it cannot see
// (Connection::ProbeForEnd).
constexpr std::chrono::milliseconds kEndProbeAfter{1000};
// Answers up to this size are copied together for one write; larger ones are written from where they are.
constexpr size_t kCoalesceBytes = 16 * 1024;
// A first read while shedding load (RequestRouter::shedding): a SOAP request's head and a little more.
constexpr size_t kHeadProbe = 1024;
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
}  // namespace

Connection::Connection(EventLoop* loop, boost::asio::ip::tcp::socket socket)
    : loop_(loop), socket_(loop->io(), std::move(socket)), parser_(loop->options().http) {}

void Connection::Start() {
  boost::system::error_code ignored;
  socket_.set_option(boost::asio::ip::tcp::no_delay(true), ignored);
  socket_.non_blocking(true, ignored);
  loop_->metrics().ConnectionOpened();
  if (loop_->options().tls != nullptr) return StartTls();
  EnableArrivalStamps(socket_.native_handle());
  seen_.Observe(RealtimeNanos(), 0);  // whatever comes arrives after this
  SetPhase(Phase::kIdle);
  Read();
}

void Connection::CloseIfIdle() {
  if (phase_ == Phase::kIdle || phase_ == Phase::kLingering || phase_ == Phase::kHandshake) Close();
}

void Connection::DrainIfIdle(std::chrono::milliseconds grace) {
  if (phase_ == Phase::kLingering || phase_ == Phase::kHandshake) return Close();
  if (phase_ != Phase::kIdle) return;  // busy: it drains after its current response (DrainOrClose)
  ArmDrain(grace);
}

void Connection::ArmDrain(std::chrono::milliseconds grace) {
  // Its next request (already on its way, perhaps) is answered with Connection: close; a client that
  // sends none within `grace` is closed then. Armed once: the next answer closes the connection anyway.
  if (drain_armed_) return;
  drain_armed_ = true;
  end_probe_due_ = false;  // the deadline is the drain's now
  loop_->ArmDeadline(this, grace);
}

void Connection::DrainOrClose() {
  const std::chrono::milliseconds grace = loop_->options().drain_idle;
  if (grace.count() <= 0) return Close();
  // The last answer announced keep-alive (one with Connection: close ends in OnWritten): wait for the next
  // request rather than cut the connection under it.
  phase_ = Phase::kIdle;
  ArmDrain(grace);
  ReleaseBuffers();
  Read();
}

void Connection::SetPhase(Phase phase) {
  if (phase == phase_ && phase != Phase::kIdle) return;  // a phase's deadline runs from its start
  phase_ = phase;
  const ServerOptions& o = loop_->options();
  std::chrono::milliseconds limit{};
  switch (phase) {
    case Phase::kIdle:
      limit = o.idle_timeout;
      // The edge read's wait cannot see a FIN that came with the last request (ProbeForEnd): it looks once,
      // kEndProbeAfter into the idle time, and then waits out the rest.
      end_probe_due_ = loop_->edge_reads() && !tls_ && limit > kEndProbeAfter;
      if (end_probe_due_) limit = kEndProbeAfter;
      break;
    case Phase::kHead: limit = o.header_timeout; break;
    case Phase::kHandshake: limit = o.header_timeout; break;
    case Phase::kBody: limit = o.body_timeout; break;
    case Phase::kWriting: limit = o.body_timeout; break;  // a reader that never reads is cut off too
    case Phase::kLingering: limit = kLingerTime; break;
    case Phase::kPool: loop_->DisarmDeadline(this); return;  // the pool answers; its queue is bounded
    case Phase::kClosed: loop_->DisarmDeadline(this); return;
  }
  loop_->ArmDeadline(this, limit);
}

void Connection::DeadlineExpired() {
  auto self = shared_from_this();  // OnDeadline may close it: the loop's reference goes then
  OnDeadline();
}

void Connection::OnDeadline() {
  switch (phase_) {
    case Phase::kIdle:
      if (std::exchange(end_probe_due_, false)) return ProbeForEnd();
      Close();
      break;
    case Phase::kWriting:
    case Phase::kLingering:
      Close();
      break;
    case Phase::kPool:
      break;
    case Phase::kHandshake:
      LogClientCausedLine("closed a connection from " + PeerName() + ": the TLS handshake did not complete within " +
                          std::to_string(loop_->options().header_timeout.count()) + " ms");
      Close();
      break;
    case Phase::kHead:
      Reject(408, "the request head did not arrive within " +
                      std::to_string(loop_->options().header_timeout.count()) + " ms");
      break;
    case Phase::kBody:
      if (discard_left_ > 0) {  // refused on its head and answered; the rest of its body never came
        LogClientCausedLine("closed a connection from " + PeerName() + ": the body of a refused request did not "
                            "arrive within " + std::to_string(loop_->options().body_timeout.count()) + " ms");
        return Close();
      }
      Reject(408, "the request body did not arrive within " +
                      std::to_string(loop_->options().body_timeout.count()) + " ms");
      break;
    case Phase::kClosed:
      break;
  }
}

void Connection::Read() {
  wake_timed_ = false;  // the wake-up ends here without a write: nothing to book
  if (tls_) return ReadTls();
  if (phase_ == Phase::kIdle && loop_->edge_reads()) {
    // The wait for the next request: no buffer held, no epoll re-arm (see EdgeSocket). A FIN that came with
    // the last request is found by ProbeForEnd a second into the idle time (a reset, at the answer's write
    // or then). LATHER_EDGE_READS=0 turns it off: see EventLoop::edge_reads().
    socket_.StartRead(this, shared_from_this());
    return;
  }
  // A request in progress (the rest of its head or body), lingering, or dropping a refused body: the wait
  // re-arms the registration, so that a reset or FIN that came with the bytes already read is seen at once
  // (its edge has passed); the requests that need this wait are the ones that span several reads.
  socket_.async_wait(boost::asio::ip::tcp::socket::wait_read,
                     [self = shared_from_this()](const boost::system::error_code& error) {
                       self->BeginWake();
                       self->OnReadable(error);
                     });
}

void Connection::ProbeForEnd() {
  // An edge wait sleeps until the socket's next edge. A client that sent its request and a FIN together (a
  // half-close) gave its last edge before the read that emptied the socket, so nothing would wake the wait
  // until the idle deadline. One peek a second into the idle time finds the FIN (0) or a reset; a keep-alive
  // client's next request moves the deadline on before then, so a busy connection never pays for it.
  char byte;
  ssize_t n;
  do {
    n = ::recv(socket_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) return Close();
  loop_->ArmDeadline(this, loop_->options().idle_timeout - kEndProbeAfter);  // still idle: the rest of its time
}

EdgeSocket::ReadResult Connection::ReadReady() {
  read_outcome_ = ReadOutcome::kNotRead;
  // What is not an ordinary read is left to OnReadable (from ReadDone), as after a wait.
  if (phase_ == Phase::kClosed || phase_ == Phase::kLingering || discard_left_ > 0) return EdgeSocket::ReadResult::kDone;
  BeginWake();
  size_t asked = 0;
  ssize_t n;
  do {
    n = ReceiveNow(&asked);
  } while (n < 0 && errno == EINTR);
  const int read_errno = errno;
  PauseWake();  // the reactor goes on with other sockets before ReadDone runs (ResumeWake)
  if (n < 0 && (read_errno == EAGAIN || read_errno == EWOULDBLOCK)) {
    if (in_.empty()) loop_->ReturnReadBuffer(&in_);  // a read tried before an edge came: an idle connection holds none
    if (out_.empty()) return EdgeSocket::ReadResult::kWouldBlock;
    read_outcome_ = ReadOutcome::kNothingButAnswers;  // refusals answered on their heads go out first
    return EdgeSocket::ReadResult::kDone;
  }
  if (n <= 0) {
    read_outcome_ = ReadOutcome::kEnd;  // EOF or reset: the client is gone
    return EdgeSocket::ReadResult::kDone;
  }
  const size_t bytes = static_cast<size_t>(n);
  const bool drained = bytes < asked;  // it took less than it asked for: the socket is empty
  in_.Commit(bytes);
  loop_->metrics().AddBytesReceived(bytes);
  read_outcome_ = ReadOutcome::kData;
  return drained ? EdgeSocket::ReadResult::kDrained : EdgeSocket::ReadResult::kDone;
}

void Connection::ReadDone(const boost::system::error_code& error) {
  const ReadOutcome outcome = std::exchange(read_outcome_, ReadOutcome::kNotRead);
  if (phase_ == Phase::kClosed) return;
  ResumeWake();
  if (error) return Close();
  switch (outcome) {
    case ReadOutcome::kNotRead:
      return OnReadable(error);
    case ReadOutcome::kNothingButAnswers:
      return out_.empty() ? Read() : Flush(false);
    case ReadOutcome::kEnd:
      // A half-sent request is simply dropped (no side effect).
      return Close();
    case ReadOutcome::kData:
      if (phase_ == Phase::kLingering) return Drain();
      return Process();
  }
}

void Connection::BeginWake() {
  // Timed while the loop sheds load: it may answer only refusals. Two to four reads of the monotonic clock (vDSO,
  // tens of nanoseconds) per wake-up, in its own pieces: the thread's CPU clock (a system call, so read for one
  // wake-up in 16) from the read to the write booked, for a read done at once after a write (EdgeSocket's
  // speculative read: its ReadDone is queued behind the loop's other work), every connection's work between the two.
  observe_wake_ = loop_->router().shedding() && !tls_;
  wake_timed_ = loop_->router().shedding();
  if (!wake_timed_) return;
  wake_piece_ns_ = MonotonicNanos();
  wake_spent_ns_ = 0;
  wake_refused_ = 0;
  wake_served_ = false;
}

void Connection::PauseWake() {
  if (!wake_timed_ || wake_piece_ns_ == 0) return;
  wake_spent_ns_ += MonotonicNanos() - wake_piece_ns_;
  wake_piece_ns_ = 0;
}

void Connection::ResumeWake() {
  if (wake_timed_ && wake_piece_ns_ == 0) wake_piece_ns_ = MonotonicNanos();
}

ssize_t Connection::ReceiveNow(size_t* asked) {
  // A request whose size its head announced (Content-Length; the parser bounds it) gets its whole buffer at once
  // (growing by doubling would copy it again and again on the loop) and is never outgrown by its tail, and one
  // wake-up reads at most kMaxReadPerWake of it, so that a 30 MB upload shares the loop with the quick calls of
  // other connections.
  const size_t expected = parser_.expected_size();
  loop_->BorrowReadBuffer(&in_);  // a new request's first read: into a spare, if the loop has one
  if (expected > in_.capacity()) loop_->BorrowLargeReadBuffer(&in_, expected);  // the last large one, if it fits
  // A chunked body keeps only what is not decoded yet (Process drops the rest), so its buffer stays small: it is
  // read kMaxReadPerWake at a time into a room that size, not kReadChunk.
  char* room = expected > in_.size()         ? in_.ReserveTotal(expected)
               : parser_.in_chunked_body() ? in_.Reserve(kMaxReadPerWake, kReadChunk)
                                           : in_.Reserve(kReadChunk / 2, kReadChunk);
  // While the loop sheds load, a new request's first read takes only about a head's worth: if it is refused
  // on its head its body is dropped in the kernel (DiscardBody) instead of being copied out; if it is served,
  // the next read takes the rest.
  const bool probe = in_.empty() && loop_->router().shedding();
  const size_t length = std::min(in_.space(), probe ? kHeadProbe : kMaxReadPerWake);
  *asked = length;
  if (tls_) return ReceiveTls(room, length);
  const ssize_t n = ReceiveStamped(socket_.native_handle(), room, length, &arrival_ns_);
  NoteRead(n, length);
  head_probed_ = probe && n > 0 && !last_read_drained_;
  return n;
}

void Connection::NoteRead(ssize_t n, size_t asked) {
  const int saved_errno = errno;  // the caller reads recv()'s errno
  if (n > 0) read_offset_ += static_cast<uint64_t>(n);
  const bool drained = (n > 0 && static_cast<size_t>(n) < asked) ||
                       (n < 0 && (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK));
  if (n >= 0 || drained) last_read_drained_ = drained;
  // What was just read is stamped over the limit already: its request is refused whatever it has behind it, so
  // the wake-up's observation is left to a later read (or the read that empties the socket).
  const bool stale = n > 0 && !drained && observe_wake_ && loop_->router().OverQueueWait(SecondsSince(arrival_ns_));
  if (drained) {
    seen_.Observe(RealtimeNanos(), read_offset_);  // empty now: what comes next arrives after this
  } else if (n > 0 && observe_wake_ && !stale) {
    // Shedding, and the socket holds more: where its queue ends now bounds the arrival of what is read later in
    // this wake-up and the next (one ioctl per wake-up, only while shedding).
    int queued = 0;
    if (::ioctl(socket_.native_handle(), SIOCINQ, &queued) == 0 && queued >= 0) {
      seen_.Observe(RealtimeNanos(), read_offset_ + static_cast<uint64_t>(queued));
    }
  }
  if (!stale) observe_wake_ = false;
  errno = saved_errno;
}

void Connection::SetRequestArrival(uint64_t size) {
  request_arrival_ns_ = arrival_ns_;
  if (tls_ || !loop_->router().shedding()) return;
  // A request with newer bytes behind it (buffered here, or still in the socket) may have been merged with them
  // in the kernel's queue and read with their stamp: it is judged from the earliest it can have arrived. The
  // newest request on the connection keeps its own stamp.
  if (size == 0) return;
  const uint64_t start = read_offset_ - in_.size();
  const bool whole_here = in_.size() >= size;
  const bool behind = in_.size() > size || (whole_here && !last_read_drained_) || seen_.last_end() > start + size;
  if (behind) request_arrival_ns_ = seen_.EarliestArrival(start, arrival_ns_);
}

void Connection::OnReadable(const boost::system::error_code& error) {
  if (phase_ == Phase::kClosed) return;
  if (error) return Close();
  if (phase_ == Phase::kLingering) return Drain();
  if (discard_left_ > 0) return DiscardBody();
  size_t asked = 0;
  const ssize_t n = ReceiveNow(&asked);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    if (!out_.empty()) return Flush(false);  // refusals answered on their heads, before waiting for more
    return Read();
  }
  if (n <= 0) {
    // EOF or reset: the client is gone; a half-sent request is simply dropped (no side effect).
    Close();
    return;
  }
  const size_t bytes = static_cast<size_t>(n);
  in_.Commit(bytes);
  loop_->metrics().AddBytesReceived(bytes);
  Process();
}

void Connection::Process() {
  for (;;) {
    // Between requests. (A chunked body in progress may leave in_ empty, or holding only the CRLF after a
    // chunk: its decoded bytes are dropped as it goes.)
    const bool between = !parser_.head_complete();
    if (const size_t blank = between ? LeadingEmptyLineBytes(in_.data()) : 0; blank > 0 && blank == in_.size()) {
      in_.Consume(blank);  // a client's CRLF after its request (RFC 9112 2.2): idle, not a request begun
      parser_.Reset();
    }
    if (between && in_.empty()) {
      if (!out_.empty()) return Flush(false);
      if (discard_left_ > 0) {  // a refused request's body is still coming: under the body deadline
        SetPhase(Phase::kBody);
        return Read();
      }
      if (loop_->stopping()) return DrainOrClose();
      SetPhase(Phase::kIdle);
      ReleaseBuffers();  // idle: give the read buffer back (it is taken again on the next read)
      return Read();
    }
    switch (parser_.Parse(in_.data())) {
      case HttpRequestParser::Result::kNeedMore: {
        const HttpLimits& limits = loop_->options().http;
        if (in_.size() + parser_.discarded() > limits.max_header_bytes + 2 * limits.max_body_bytes) {
          return Reject(413, "request framing overhead exceeds the message size limit");
        }
        // A chunked body's bytes already decoded (and its head, whose fields the parser copied) are dropped:
        // the buffer holds only the undecoded rest, not the raw chunks beside their decoded copy.
        if (const size_t decoded = parser_.decoded_prefix(); decoded > 0) {
          in_.Consume(decoded);
          parser_.Discard(decoded);
        }
        if (parser_.expected_size() > 0 && !tls_ && RefuseOnHead()) return;
        if (!out_.empty()) return Flush(false);  // answer what is done before waiting for more
        SetPhase(parser_.head_complete() ? Phase::kBody : Phase::kHead);
        if (parser_.head_complete() && parser_.request().expect_continue && !continue_sent_) {
          return SendContinue();
        }
        if (std::exchange(head_probed_, false)) {
          // Only a head's worth was read (shedding) and the request is kept: the rest of it is most often in the
          // socket already. Read it now, not after re-arming the registration and a round of the loop.
          return OnReadable(boost::system::error_code());
        }
        return Read();
      }
      case HttpRequestParser::Result::kError:
        return Reject(parser_.error_status(), parser_.error_reason());
      case HttpRequestParser::Result::kComplete: {
        loop_->BorrowString(EventLoop::Spare::kHead, &response_.head);  // idle connections gave theirs back
        loop_->BorrowString(EventLoop::Spare::kBody, &response_.body);
        SetRequestArrival(parser_.consumed());
        loop_->router().Route(parser_.request(), !loop_->stopping(), SecondsSince(request_arrival_ns_), &response_);
        if (response_.deferred) {
          if (out_.empty()) return RunDeferred();
          run_deferred_after_write_ = true;  // the answers before it go first
          return Flush(false);
        }
        if (!Queue(parser_.consumed())) return;
        break;
      }
    }
  }
}

bool Connection::Queue(size_t consumed) {
  if (parser_.request().http10 && !response_.close) {
    // HTTP/1.0 clients (ApacheBench -k) keep the connection only if the response says so.
    response_.head.insert(response_.head.size() - 2, "Connection: keep-alive\r\n");
  }
  in_.Consume(consumed);
  if (Bytes body = parser_.TakeLargeBody()) loop_->FreeOffLoop(std::move(body));  // unmapped on the pool
  parser_.Reset();
  if (response_.busy) {
    ++wake_refused_;
  } else {
    wake_served_ = true;
  }
  continue_sent_ = false;
  if (response_.close || loop_->stopping() || response_.body.size() > kCoalesceBytes) {
    close_after_write_ = response_.close || loop_->stopping();
    Flush(true);
    return false;
  }
  loop_->BorrowString(EventLoop::Spare::kOut, &out_);
  out_.append(response_.head).append(response_.body);
  return true;
}

bool Connection::RefuseOnHead() {
  SetRequestArrival(parser_.expected_size());
  const double waited = SecondsSince(request_arrival_ns_);
  if (!loop_->router().OverQueueWait(waited)) return false;  // most heads; and a body still coming holds no spares
  // The 503's head and body are written into spares the idle connections gave back, as an answer after the
  // whole request is (Process): a refusal allocates nothing either.
  loop_->BorrowString(EventLoop::Spare::kHead, &response_.head);
  loop_->BorrowString(EventLoop::Spare::kBody, &response_.body);
  if (!loop_->router().RefuseBusyHead(parser_.request(), !loop_->stopping(), waited, &response_)) return false;
  // All of in_ is this request's (its end is not here yet); the rest of its body is dropped as it comes.
  const uint64_t left = parser_.expected_size() - in_.size();
  if (response_.close) linger_after_write_ = true;  // the client may still be sending the body
  if (!Queue(in_.size())) return true;               // a closing answer: written now, the body read and dropped
  discard_left_ = left;
  DiscardBody();
  return true;
}

void Connection::DiscardBody() {
  // MSG_TRUNC on a TCP socket drops the bytes instead of copying them out (tcp(7)); it never takes more than
  // this request's, so a pipelined request behind it stays in the socket.
  const ssize_t n = ::recv(socket_.native_handle(), nullptr, discard_left_, MSG_TRUNC | MSG_DONTWAIT);
  NoteRead(n, discard_left_);
  if (n > 0) {
    loop_->metrics().AddBytesReceived(static_cast<size_t>(n));
    discard_left_ -= static_cast<uint64_t>(n);
  } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
    return Close();  // the client is gone
  }
  // The rest is not here yet: in_ is empty, so Process() writes the answers and waits under the body deadline.
  if (discard_left_ > 0) return Process();
  // Dropped: read the next request at once (a pipelining client has often sent it), so that the answers of
  // several refusals go out in one write, unless enough are waiting already.
  if (out_.size() >= kCoalesceBytes) return Flush(false);
  OnReadable(boost::system::error_code());
}

void Connection::RunDeferred() {
  wake_timed_ = false;  // the call goes on off the loop: its answer, whatever it is, is no refusal of this wake-up's
  if (response_.increment && loop_->writer() != nullptr) return SubmitIncrement();
  RunOnPool();
}

void Connection::SubmitIncrement() {
  SetPhase(Phase::kPool);
  // As on the pool: the call's bytes stay in in_ until the answer is written; the loop's group keeps this
  // connection alive until its answer is back.
  loop_->QueueIncrement(shared_from_this(), &response_.pending_increment, request_arrival_ns_);
}

void Connection::FinishIncrement(const GroupCommitter::Answer& answer) {
  loop_->metrics().RequestFinished();
  if (phase_ == Phase::kClosed) return;
  if (answer.refused) {
    return Reject(503, "the server is busy: too many requests are waiting for the store; retry later",
                  "Retry-After: 1\r\n");
  }
  if (loop_->stopping()) response_.keep_alive = false;
  if (answer.busy) {  // it waited too long for the writer and was not run
    DeferredResult result;
    result.busy = true;
    result.waited = answer.waited;
    loop_->router().CompleteDeferred(std::move(result), &response_);
  } else if (answer.status.ok() &&
             loop_->router().AnswerIncrement(response_.pending_increment, response_.keep_alive && !loop_->stopping(),
                                             answer.value, &response_)) {
    // Written from the engine's capture of this answer: the call is not read a second time.
  } else {
    // The same call, served again with the writer's answer: the engine writes the response (or the store's
    // fault) as it would have with the value in hand.
    loop_->engine().InjectIncrement(answer.status, answer.value);
    // Waited 0 for the router: the increment is committed, so no queue-wait refusal may follow it now.
    loop_->router().Route(parser_.request(), response_.keep_alive && !loop_->stopping(), 0.0, &response_);
    if (response_.deferred) {  // cannot happen (the same call, answered): never write a response it has not made
      LogLine("internal error: an answered IncCounter was deferred again");
      return Reject(500, "internal error: the increment was committed but its answer could not be written");
    }
  }
  if (Queue(parser_.consumed())) Process();  // more pipelined requests may be buffered behind it
}

void Connection::RunOnPool() {
  SetPhase(Phase::kPool);
  // The call's body points into in_, which stays as it is until the response is written. The work
  // guard keeps the loop running (and so this connection alive) until the answer is posted back.
  auto self = shared_from_this();
  auto work = boost::asio::make_work_guard(loop_->io());
  const SoapCall call = response_.call;
  const int64_t arrival = request_arrival_ns_;
  const double limit = loop_->router().max_queue_wait();
  const bool large = call.body.size() > loop_->options().long_body_bytes;
  // A large echo yields to the loops (BlockingPool::Priority::kYielding), for a bounded time.
  const auto priority = large ? BlockingPool::Priority::kYielding : BlockingPool::Priority::kNormal;
  const bool accepted = loop_->pool().Submit([self, call, work, arrival, limit](SoapEngine& engine) mutable {
    DeferredResult result = ServeDeferred(engine, call, arrival, limit);
    // The reference moves into the posted handler: the pool thread never holds the connection's last one.
    boost::asio::io_context& io = self->loop_->io();
    boost::asio::post(io, [self = std::move(self), result = std::move(result)]() mutable {
      self->FinishOnLoop(std::move(result));
    });
    work.reset();
  }, priority);
  if (accepted) {
    loop_->metrics().RequestStarted();
  } else {
    Reject(503, "the server is busy: too many requests are waiting for the store; retry later", "Retry-After: 1\r\n");
  }
}

void Connection::FinishOnLoop(DeferredResult result) {
  loop_->metrics().RequestFinished();
  if (phase_ == Phase::kClosed) return;
  if (loop_->stopping()) response_.keep_alive = false;
  loop_->router().CompleteDeferred(std::move(result), &response_);
  if (Queue(parser_.consumed())) Process();  // more pipelined requests may be buffered behind it
}

void Connection::SendContinue() {
  continue_sent_ = true;
  if (tls_) return WriteTls({boost::asio::buffer(kContinue.data(), kContinue.size())}, true);
  boost::asio::async_write(socket_, boost::asio::buffer(kContinue.data(), kContinue.size()),
                           [self = shared_from_this()](const boost::system::error_code& error, size_t) {
                             if (error) return self->Close();
                             self->Read();
                           });
}

std::string Connection::PeerName() const {
  boost::system::error_code ec;
  auto endpoint = socket_.remote_endpoint(ec);
  if (ec && tls_) endpoint = tls_->peer;  // a failed handshake is often logged after a reset
  if (endpoint.port() == 0) return "a closed peer";
  return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

void Connection::Reject(int status, const std::string& reason, const char* extra_headers) {
  LogClientCausedLine("rejected a request from " + DescribeClient(PeerName(), parser_.forwarded_for()) + ": " +
                      std::to_string(status) + " " + reason);
  loop_->router().Reject(status, reason, parser_.head_complete() ? parser_.request().content_type : "",
                         extra_headers, &response_);
  close_after_write_ = true;
  linger_after_write_ = true;
  Flush(true);
}

void Connection::Drain() {
  std::array<char, kReadChunk> dropped;  // what a refused client still sends is read here and never kept
  for (;;) {
    const ssize_t n = ::recv(socket_.native_handle(), dropped.data(), dropped.size(), 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return Read();
    if (n <= 0) return Close();  // the client has closed (or reset): done
  }
}

void Connection::Flush(bool with_response) {
  SetPhase(Phase::kWriting);
  std::array<boost::asio::const_buffer, 3> buffers = {boost::asio::buffer(out_), boost::asio::const_buffer(),
                                                      boost::asio::const_buffer()};
  body_written_ = body_size_ = 0;
  if (with_response) {
    body_size_ = response_.body.size();
    buffers[1] = boost::asio::buffer(response_.head);
    // A large body goes out kMaxWritePerWake at a time (see WriteMore), the rest after other work.
    body_written_ = std::min(response_.body.size(), kMaxWritePerWake);
    buffers[2] = boost::asio::buffer(response_.body.data(), body_written_);
  }
  if (tls_) return WriteTls(buffers, false);
  boost::asio::async_write(socket_, buffers,
                           [self = shared_from_this()](const boost::system::error_code& error, size_t bytes) {
                             self->OnWritten(error, bytes);
                           });
  if (wake_timed_) NoteRefusalCost();  // the write above has been tried already (Asio writes at once)
}

void Connection::NoteRefusalCost() {
  PauseWake();  // the piece running ends with the write
  if (wake_refused_ > 0 && !wake_served_) {
    loop_->metrics().RecordRefusalTime(static_cast<uint64_t>(wake_spent_ns_), wake_refused_);
  }
  wake_timed_ = false;
}

void Connection::ReleaseBuffers() {
  // A large read buffer is kept by the loop for the next large request, or freed on the pool (munmap of tens of
  // megabytes takes milliseconds).
  if (in_.capacity() > kFreeOffLoopBytes) {
    loop_->KeepLargeReadBuffer(&in_);
    loop_->FreeOffLoop(in_.TakeStorage());  // the one not kept, if any
  }
  loop_->ReturnReadBuffer(&in_);  // to the loop's spares (or freed, if not one of them)
  if (tls_) ReleaseTlsBuffers();
  if (response_.body.capacity() > kFreeOffLoopBytes) {
    auto body = std::make_shared<std::string>(std::move(response_.body));
    response_.body = std::string();
    if (!loop_->pool().Submit([body](SoapEngine&) mutable { FreeBuffer(body.get()); })) FreeBuffer(body.get());
  }
  // The answer buffers go back to the loop's spares (the next call on any connection takes them): an idle
  // connection keeps no memory of the answers it wrote.
  loop_->ReturnString(EventLoop::Spare::kHead, &response_.head);
  loop_->ReturnString(EventLoop::Spare::kBody, &response_.body);
  if (out_.empty()) loop_->ReturnString(EventLoop::Spare::kOut, &out_);
}

void Connection::WriteMore() {
  const size_t slice = std::min(body_size_ - body_written_, kMaxWritePerWake);
  const char* from = response_.body.data() + body_written_;
  body_written_ += slice;
  if (tls_) return WriteTls({boost::asio::buffer(from, slice)}, false);
  boost::asio::async_write(socket_, boost::asio::buffer(from, slice),
                           [self = shared_from_this()](const boost::system::error_code& error, size_t bytes) {
                             self->OnWritten(error, bytes);
                           });
}

void Connection::OnWritten(const boost::system::error_code& error, size_t bytes) {
  if (!error) loop_->metrics().AddBytesSent(bytes);
  if (!error && body_written_ < body_size_) return WriteMore();
  out_.clear();
  if (out_.capacity() > 4 * kCoalesceBytes) std::string().swap(out_);
  // Stopping with --drain-idle, a response that announced keep-alive is not followed by a close (the
  // client may be sending its next request already): the connection waits for it, see DrainOrClose().
  const bool drain = loop_->stopping() && loop_->options().drain_idle.count() > 0;
  if (error || close_after_write_ || (loop_->stopping() && !drain)) {
    if (!error) {
      if (tls_) ShutdownTls();
      boost::system::error_code ignored;
      socket_.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
      if (linger_after_write_ && !loop_->stopping()) {
        SetPhase(Phase::kLingering);
        // The refused request's bytes are done with: its buffers go now. (Drained into the request's buffer, the
        // rest of an oversized chunked body filled the untouched half of a 128 MiB one.)
        in_.Consume(in_.size());
        ReleaseBuffers();
        return Drain();
      }
    }
    return Close();
  }
  phase_ = Phase::kIdle;
  if (run_deferred_after_write_) {
    run_deferred_after_write_ = false;
    return RunDeferred();
  }
  Process();  // a pipelined request may already be buffered
}

void Connection::Close() {
  if (phase_ == Phase::kClosed) return;
  SetPhase(Phase::kClosed);
  loop_->metrics().ConnectionClosed();
  loop_->ConnectionEnded();
  if (tls_) ShutdownTls();
  boost::system::error_code ignored;
  socket_.close(ignored);
  loop_->Remove(shared_from_this());
}

}  // namespace lather
