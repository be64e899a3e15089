// Connection: one client's keep-alive TCP connection on an EventLoop. Reads until a whole HTTP
// request is buffered, has the loop's router answer it, and repeats; pipelined requests are answered
// in order, the answers to every request already buffered going out in one write. Enforces the
// header, body and idle deadlines (on its loop's DeadlineLanes). With ServerOptions::tls it speaks TLS: the handshake runs under
// the header deadline and the same reads and writes go through a TlsSession (connection_tls.cpp).
// Owned by its EventLoop (shared_ptr kept alive by pending handlers); loop thread only.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <array>
#include <chrono>
#include <memory>
#include <string>

#include "common/tls.h"
#include "service/dispatch/request_router.h"
#include "service/event/arrival_bounds.h"
#include "service/event/deadline_lanes.h"
#include "service/event/edge_socket.h"
#include "service/store/group_commit.h"
#include "service/http/http_request_parser.h"
#include "service/http/read_buffer.h"

namespace lather {

class EventLoop;

class Connection : public std::enable_shared_from_this<Connection>,
                   private DeadlineLanes::Entry,
                   private EdgeSocket::Reader {
 public:
  Connection(EventLoop* loop, boost::asio::ip::tcp::socket socket);

  // Starts serving; call once, on the loop's thread.
  void Start();

  // Closes the connection now if no request is in progress (shutdown); otherwise it closes after
  // the response it is working on.
  void CloseIfIdle();

  // Called when the loop begins a draining stop: an idle connection waits up to `grace` for one last
  // request (answered with Connection: close); a lingering or handshaking one closes now.
  void DrainIfIdle(std::chrono::milliseconds grace);

  // The writer's answer to the IncCounter this connection queued (EventLoop::QueueIncrement): written from
  // the engine's capture, or the call served again with it; refused, a 503.
  void FinishIncrement(const GroupCommitter::Answer& answer);

 private:
  // A stopping loop's connection: wait (once, up to `grace`) for one last request instead of closing.
  void ArmDrain(std::chrono::milliseconds grace);
  // At the end of the buffered requests while stopping: ArmDrain() with --drain-idle, else Close().
  void DrainOrClose();
  // kLingering: a rejection was written and sending shut down; what the client still sends is read
  // and dropped until it closes (or kLingerTime passes), so that closing does not reset the
  // connection under the answer before the client has read it.
  // kHandshake: TLS handshake in progress (under the header deadline).
  enum class Phase { kHandshake, kIdle, kHead, kBody, kPool, kWriting, kLingering, kClosed };

  void Read();
  // The socket is readable (or a wait for it failed): reads what is there and goes on.
  void OnReadable(const boost::system::error_code& error);
  // EdgeSocket::Reader, for a plain connection's reads: ReadReady reads on the reactor's turn (no wait
  // re-armed), ReadDone goes on with what it read (or with OnReadable when it read nothing).
  EdgeSocket::ReadResult ReadReady() override;
  void ReadDone(const boost::system::error_code& error) override;
  // recv() of what is there into in_ (the room OnReadable's rules give; *asked: how much it asked for);
  // recv()'s result.
  ssize_t ReceiveNow(size_t* asked);
  // What ReadReady did, for ReadDone.
  enum class ReadOutcome { kNotRead, kData, kNothingButAnswers, kEnd };
  ReadOutcome read_outcome_ = ReadOutcome::kNotRead;
  void Process();
  // Adds response_ to the pending answers and consumes its request (`consumed` bytes of in_); false when it
  // started the write itself (a large body is written from where it is; a closing answer ends the batch).
  bool Queue(size_t consumed);
  // With the head parsed and the body to come: a request the router refuses on its head alone (busy) is
  // answered now and its body dropped as it arrives (DiscardBody), never buffered. False: read on.
  bool RefuseOnHead();
  // Drops what has arrived of a refused request's body (discard_left_) without copying it; then goes on.
  void DiscardBody();
  // Writes the pending answers (and response_ too, with `with_response`).
  void Flush(bool with_response);
  void OnWritten(const boost::system::error_code& error, size_t bytes);
  // Gives back the read buffer (a large answer's memory freed on the pool) and the answer buffers (to the
  // loop's spares) while the connection is idle.
  void ReleaseBuffers();
  // Writes the next slice of a large response body.
  void WriteMore();
  void SendContinue();
  // Lingering: reads and drops what has arrived; closes at EOF.
  void Drain();
  void Reject(int status, const std::string& reason, const char* extra_headers = "");
  // Runs the deferred call: an IncCounter through the store's writer (SubmitIncrement), anything else
  // on the blocking pool (RunOnPool); the response is written when it is done.
  void RunDeferred();
  void RunOnPool();
  void FinishOnLoop(DeferredResult result);
  // Queues the IncCounter the loop's engine has read to the writer; its answer comes back on the loop.
  void SubmitIncrement();
  void SetPhase(Phase phase);
  // "address:port" of the client, for the log.
  std::string PeerName() const;
  void DeadlineExpired() override;
  void OnDeadline();
  // Idle with the edge read: closes the connection if the client has sent a FIN (or reset) that no edge
  // will report, else arms the rest of the idle deadline.
  void ProbeForEnd();
  void Close();

  // TLS (connection_tls.cpp). Starts the session and its handshake.
  void StartTls();
  // Advances the handshake; serves requests once it is done.
  void ContinueHandshake();
  // Waits until the socket is ready for what `want` asks (kWantRead/kWantWrite), then runs `then`.
  void WaitForTls(TlsSession::Result want, void (Connection::*then)());
  // Read() for TLS: reads at once when the session holds bytes, else waits as the session asks.
  void ReadTls();
  // recv() for TLS: decrypted bytes into `room`, stamped with the time of the read (the kernel's
  // receive stamp describes ciphertext that SSL_read may have taken earlier). -1 with errno EAGAIN
  // when nothing is there yet; 0 at EOF or failure (logged).
  ssize_t ReceiveTls(char* room, size_t length);
  // async_write for TLS: writes `parts`, then calls OnWritten (or Read() with `then_read`).
  void WriteTls(const std::array<boost::asio::const_buffer, 3>& parts, bool then_read);
  void ContinueWriteTls();
  // Sends close_notify (never waits).
  void ShutdownTls();
  // Gives back the session's record buffers while the connection is idle.
  void ReleaseTlsBuffers();

  EventLoop* loop_;
  EdgeSocket socket_;
  ReadBuffer in_;             // unconsumed bytes; starts at the current request
  int64_t arrival_ns_ = 0;    // kernel receive stamp of the newest bytes read (CLOCK_REALTIME)
  // When the current request arrived, as its wait is judged (the limit, the pool's and writer's queues, /metrics):
  // its stamp; while the loop sheds load and newer bytes are queued behind it, the earliest it can have arrived
  // (RequestArrival): its stamp is then a newer request's.
  int64_t request_arrival_ns_ = 0;
  uint64_t read_offset_ = 0;  // bytes read from the socket so far (plain connections): the stream offset of in_'s end
  ArrivalBounds seen_;        // the socket's queue as reads saw it (plain connections)
  bool last_read_drained_ = true;  // the last read emptied the socket
  bool observe_wake_ = false;      // this wake-up's first read asks the queue's length (shedding only)
  bool head_probed_ = false;       // the last read took only a head's worth (shedding) and left bytes in the socket
  // After a read's recv() (`n` of `asked` bytes; errno kept): the offset, and what the read saw of the queue.
  void NoteRead(ssize_t n, size_t asked);
  // request_arrival_ns_ for the request at the start of in_, `size` bytes long when its head says so (0: unknown).
  void SetRequestArrival(uint64_t size);
  uint64_t discard_left_ = 0;  // bytes of a request refused on its head still to drop from the socket
  // The cost of refusals (LoopMetrics::RecordRefusalTime), timed in every wake-up while the loop sheds load, on
  // the monotonic clock (no system call): the wake-up's own pieces only - its read on the reactor's turn
  // (ReadReady) and its handling from ReadDone to the write - not the other connections' reads the reactor does
  // between the two. What the answers queued since it began were.
  bool wake_timed_ = false;
  int64_t wake_piece_ns_ = 0;  // when the running piece began (0: paused between ReadReady and ReadDone)
  int64_t wake_spent_ns_ = 0;  // the pieces before it
  uint32_t wake_refused_ = 0;
  bool wake_served_ = false;
  void BeginWake();        // a wake-up from Read()'s wait begins: timed while the loop sheds load
  void PauseWake();        // ReadReady ends: the reactor reads other sockets before this one's ReadDone runs
  void ResumeWake();       // ReadDone begins
  void NoteRefusalCost();  // the answers are written: books a wake-up that answered only refusals
  HttpRequestParser parser_;
  HttpResponse response_;
  std::string out_;                    // answers to pipelined requests not yet written
  size_t body_size_ = 0;     // of response_.body being written (0: none)
  size_t body_written_ = 0;  // of it, handed to the socket so far
  bool drain_armed_ = false;  // ArmDrain() ran: the drain deadline is set
  bool end_probe_due_ = false;  // the idle deadline armed is ProbeForEnd's, not the idle timeout's
  bool close_after_write_ = false;
  bool linger_after_write_ = false;  // a rejection: the client may still be sending
  bool run_deferred_after_write_ = false;  // response_ holds a call for the pool, behind out_
  Phase phase_ = Phase::kIdle;
  bool continue_sent_ = false;
  // TLS state, allocated only when the service speaks TLS: a plain connection stays as small as before.
  struct TlsState {
    std::unique_ptr<TlsSession> session;
    boost::asio::ip::tcp::endpoint peer;  // taken when TLS starts: a reset peer has no address
    bool read_wants_write = false;        // the session must write before it can read on
    std::array<boost::asio::const_buffer, 3> parts;  // what WriteTls has left to write
    size_t written = 0;
    bool then_read = false;
  };
  std::unique_ptr<TlsState> tls_;  // null: plain TCP
};

}  // namespace lather
