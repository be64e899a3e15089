#include "stress/load/load_runner.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <thread>

#include "common/huge_pages.h"
#include "common/stamped_receive.h"
#include "common/tls.h"
#include "stress/load/http_response_reader.h"
#include "stress/load/idle_peek.h"

namespace lather {

namespace {

constexpr uint64_t kLateNanos = 1000000;           // sent more than 1 ms after schedule: late
constexpr uint64_t kTimerNanos = 10000000;         // timeouts and reconnects are checked every 10 ms
constexpr uint64_t kReconnectDelayNanos = 100000000;  // after a failed connect
constexpr size_t kReadChunk = 64 * 1024;
constexpr size_t kMaxBacklog = 1000000;            // open model: scheduled calls waiting for a connection
constexpr int kGiveUpConnectFailures = 50;         // in a row, with no connection ever made
// Open model: a connection idle this long is looked at (PeekIdle) before it takes a request, in case its server
// closed it since the loop last read its sockets. Servers close idle connections after a second or more (an idle
// timeout, a drain's grace); one busy within the last 50 ms is reused without the system call.
constexpr uint64_t kPeekIdleAfterNanos = 50000000;

double ThreadCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

struct Call {
  uint64_t n;
  uint64_t intended_ns;
  uint64_t sent_ns;
  uint32_t head_bytes;
  uint32_t body_bytes;
};

struct Connection {
  int fd = -1;
  bool connecting = false;     // TCP connect, then the TLS handshake
  std::unique_ptr<TlsSession> tls;  // https only
  bool writing = false;        // EPOLLOUT is registered
  uint64_t opened_ns = 0;
  uint64_t reopen_at_ns = 0;   // 0: not waiting to reopen
  std::string out;
  size_t out_offset = 0;
  std::string in;
  size_t in_offset = 0;
  size_t in_length = 0;
  std::deque<Call> inflight;
  uint64_t idle_since_ns = 0;  // open model: when its last call ended (or it connected)
  int64_t received_realtime_ns = 0;  // --receive-stamps: the kernel's stamp of the newest bytes read
};

class Worker {
 public:
  Worker(const LoadOptions& o, int index, int connections, uint64_t quota, uint64_t start_ns, uint64_t warm_end_ns,
         uint64_t end_ns, double rate)
      : o_(o), index_(index), connections_(static_cast<size_t>(connections)), quota_(quota),
        start_ns_(start_ns), warm_end_ns_(warm_end_ns), end_ns_(end_ns), rate_(rate),
        rng_(0x9E3779B97F4A7C15ull * static_cast<uint64_t>(index + 1)) {
    next_number_ = o.first_call_number + static_cast<uint64_t>(index);
    if (o.tls != nullptr) {
      // Made like o.tls, which succeeded; should this one fail (resources), the thread shares o.tls.
      if (!TlsContext::ForClient(o.tls_verify, o.tls_ca_file, &tls_).ok()) tls_.reset();
    }
  }

  void Run();

  ThreadStats stats;
  std::atomic<uint64_t> live_ok{0};
  std::atomic<uint64_t> live_failed{0};
  LiveLatency live_latency;
  std::atomic<bool> done{false};
  uint64_t finished_ns = 0;
  std::string setup_error;

 private:
  bool open_model() const { return rate_ > 0; }
  uint64_t NextNumber() {
    const uint64_t n = next_number_ % o_.call_number_modulus;
    next_number_ += static_cast<uint64_t>(o_.threads);
    return n;
  }
  uint64_t Gap() {
    const double mean = 1e9 / rate_;
    if (!o_.poisson) return static_cast<uint64_t>(mean);
    std::exponential_distribution<double> gap(1.0 / mean);
    return static_cast<uint64_t>(gap(rng_));
  }
  bool Finished(uint64_t now) const {
    if (o_.total_calls > 0) return counted_ >= quota_ || gave_up_;
    return now >= end_ns_ || gave_up_;
  }
  // True if a call issued now may be sent (the run is not over, the quota not used up).
  bool CanIssue(uint64_t intended_ns) {
    if (o_.total_calls == 0) return intended_ns < end_ns_;
    if (intended_ns < warm_end_ns_) return true;
    return issued_counted_ < quota_;
  }

  void Open(Connection& c, uint64_t now);
  void OnConnected(Connection& c, uint64_t now);
  void ConnectFailed(Connection& c, uint64_t now, int error);
  void ConnectFailed(Connection& c, uint64_t now, const std::string& reason);
  // https: advances the handshake of a connected socket; OnConnected once it is done.
  void ContinueHandshake(Connection& c, uint64_t now);
  // read()/write() on the socket or through its TLS session: bytes, 0 at EOF, -1 with errno.
  ssize_t ReadSome(Connection& c, char* data, size_t length);
  ssize_t WriteSome(Connection& c, const char* data, size_t length);
  void Close(Connection& c);
  void Fail(Connection& c, CallOutcome outcome, const char* detail, uint64_t now);
  void Send(Connection& c, uint64_t n, uint64_t intended_ns, uint64_t now);
  void Flush(Connection& c, uint64_t now);
  void OnReadable(Connection& c, uint64_t now);
  void ProcessResponses(Connection& c, bool eof, uint64_t now);
  // `received_ns`: when the kernel received the answer (NowNanos()'s clock; --receive-stamps), else 0.
  void Record(const Call& call, CallOutcome outcome, uint64_t response_head, uint64_t response_body,
              size_t response_payload, uint64_t now, const std::string* detail, uint64_t received_ns = 0);
  void BecameIdle(Connection& c, uint64_t now);
  void IssueDue(uint64_t now);
  void CheckTimers(uint64_t now);
  void SetWriting(Connection& c, bool writing);
  // Waits up to `wait_ns` for events: epoll_pwait2, or epoll_wait (the wait rounded up to a millisecond)
  // where it is missing (Linux before 5.11, valgrind 3.19). Returns epoll's count, -1 with errno.
  int Wait(epoll_event* events, int max, uint64_t wait_ns);
  size_t Index(const Connection& c) const { return static_cast<size_t>(&c - connections_.data()); }

  const LoadOptions& o_;
  std::unique_ptr<TlsContext> tls_;  // this thread's own TLS context (https only)
  const int index_;
  std::vector<Connection> connections_;
  const uint64_t quota_;
  const uint64_t start_ns_, warm_end_ns_, end_ns_;
  const double rate_;
  std::mt19937_64 rng_;
  uint64_t next_number_ = 0;
  uint64_t next_intended_ns_ = 0;
  uint64_t counted_ = 0;
  uint64_t issued_counted_ = 0;
  uint64_t next_timer_ns_ = 0;
  bool started_ = false;  // no call leaves before start_ns_ (connections may open earlier)
  bool window_started_ = false;
  bool gave_up_ = false;
  bool ever_connected_ = false;
  int connect_failures_in_row_ = 0;
  int epoll_ = -1;
  bool no_pwait2_ = false;  // epoll_pwait2 said ENOSYS: epoll_wait from then on
  // --receive-stamps: CLOCK_REALTIME less NowNanos()'s clock, taken once per wake-up (the stamps' clock to ours).
  int64_t realtime_offset_ns_ = 0;
  std::unique_ptr<ResponseChecker> checker_;
  HttpResponseReader reader_;
  std::vector<size_t> idle_;                      // open model: connections with a free slot
  std::deque<std::pair<uint64_t, uint64_t>> backlog_;  // open model: (n, intended) waiting for a connection
  std::string detail_;
};

int Worker::Wait(epoll_event* events, int max, uint64_t wait_ns) {
  if (!no_pwait2_) {
    timespec ts{static_cast<time_t>(wait_ns / 1000000000ull), static_cast<long>(wait_ns % 1000000000ull)};
    const int n = epoll_pwait2(epoll_, events, max, &ts, nullptr);
    if (n >= 0 || errno != ENOSYS) return n;
    no_pwait2_ = true;
  }
  return epoll_wait(epoll_, events, max,
                    static_cast<int>(std::min<uint64_t>((wait_ns + 999999) / 1000000, 1000)));
}

void Worker::SetWriting(Connection& c, bool writing) {
  if (c.writing == writing) return;
  c.writing = writing;
  epoll_event ev{};
  ev.events = EPOLLIN | (writing ? EPOLLOUT : 0u);
  ev.data.u64 = Index(c);
  epoll_ctl(epoll_, EPOLL_CTL_MOD, c.fd, &ev);
}

void Worker::Open(Connection& c, uint64_t now) {
  c.reopen_at_ns = 0;
  c.fd = socket(o_.address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (c.fd < 0) return ConnectFailed(c, now, errno);
  const int one = 1;
  setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (o_.receive_stamps && o_.tls == nullptr) EnableArrivalStamps(c.fd);
  c.received_realtime_ns = 0;
  c.opened_ns = now;
  const int rc = connect(c.fd, reinterpret_cast<const sockaddr*>(&o_.address), o_.address_length);
  if (rc != 0 && errno != EINPROGRESS) return ConnectFailed(c, now, errno);
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT;
  ev.data.u64 = Index(c);
  epoll_ctl(epoll_, EPOLL_CTL_ADD, c.fd, &ev);
  c.writing = true;
  c.connecting = true;
}

void Worker::OnConnected(Connection& c, uint64_t now) {
  c.connecting = false;
  ever_connected_ = true;
  connect_failures_in_row_ = 0;
  ++stats.connections_opened;
  SetWriting(c, !c.out.empty());
  if (open_model()) {
    for (int i = 0; i < o_.pipeline; ++i) idle_.push_back(Index(c));
  }
  BecameIdle(c, now);
}

void Worker::ConnectFailed(Connection& c, uint64_t now, int error) { ConnectFailed(c, now, std::strerror(error)); }

void Worker::ConnectFailed(Connection& c, uint64_t now, const std::string& reason) {
  Close(c);
  if (window_started_) {
    ++stats.outcomes[static_cast<size_t>(CallOutcome::kConnect)];
    live_failed.store(live_failed.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (stats.first_failure.empty()) stats.first_failure = "connect: " + reason;
  }
  if (!ever_connected_ && ++connect_failures_in_row_ >= kGiveUpConnectFailures) {
    gave_up_ = true;
    setup_error = "cannot connect: " + reason;
  }
  c.reopen_at_ns = now + kReconnectDelayNanos;
}

void Worker::ContinueHandshake(Connection& c, uint64_t now) {
  if (!c.tls) {
    c.tls = TlsSession::ForClient(tls_ != nullptr ? *tls_ : *o_.tls, c.fd, o_.tls_host);
    if (!c.tls) return ConnectFailed(c, now, "cannot start a TLS session");
  }
  switch (c.tls->Handshake()) {
    case TlsSession::Result::kOk:
      return OnConnected(c, now);
    case TlsSession::Result::kWantRead:
      return SetWriting(c, false);
    case TlsSession::Result::kWantWrite:
      return SetWriting(c, true);
    case TlsSession::Result::kClosed:
      return ConnectFailed(c, now, "TLS handshake: the server closed the connection");
    case TlsSession::Result::kFailed:
      // A certificate that fails the checks will fail them again: no point retrying it 50 times.
      if (c.tls->certificate_rejected() && !ever_connected_) connect_failures_in_row_ = kGiveUpConnectFailures;
      return ConnectFailed(c, now, "TLS handshake: " + c.tls->error());
  }
}

ssize_t Worker::ReadSome(Connection& c, char* data, size_t length) {
  if (!c.tls) {
    return o_.receive_stamps ? ReceiveWithKernelStamp(c.fd, data, length, &c.received_realtime_ns)
                            : read(c.fd, data, length);
  }
  size_t got = 0;
  switch (c.tls->Read(data, length, &got)) {
    case TlsSession::Result::kOk:
      return static_cast<ssize_t>(got);
    case TlsSession::Result::kWantRead:
    case TlsSession::Result::kWantWrite:  // rare (a key update): the next wake-up retries
      errno = EAGAIN;
      return -1;
    case TlsSession::Result::kClosed:
      return 0;
    case TlsSession::Result::kFailed:
      break;
  }
  errno = ECONNRESET;
  return -1;
}

ssize_t Worker::WriteSome(Connection& c, const char* data, size_t length) {
  if (!c.tls) return write(c.fd, data, length);
  size_t wrote = 0;
  switch (c.tls->Write(data, length, &wrote)) {
    case TlsSession::Result::kOk:
      return static_cast<ssize_t>(wrote);
    case TlsSession::Result::kWantRead:
    case TlsSession::Result::kWantWrite:
      errno = EAGAIN;
      return -1;
    default:
      errno = ECONNRESET;
      return -1;
  }
}

void Worker::Close(Connection& c) {
  if (c.tls) {
    c.tls->Shutdown();
    c.tls.reset();
  }
  if (c.fd >= 0) close(c.fd);  // also removes it from the epoll set
  c.fd = -1;
  c.connecting = c.writing = false;
  c.out.clear();
  c.out_offset = 0;
  c.in_offset = c.in_length = 0;
}

void Worker::Fail(Connection& c, CallOutcome outcome, const char* detail, uint64_t now) {
  detail_ = detail;
  while (!c.inflight.empty()) {
    Record(c.inflight.front(), outcome, 0, 0, 0, now, &detail_);
    c.inflight.pop_front();
  }
  Close(c);
  c.reopen_at_ns = now;  // reopen at once
}

void Worker::Send(Connection& c, uint64_t n, uint64_t intended_ns, uint64_t now) {
  size_t head = 0, body = 0;
  o_.request->Render(n, &c.out, &head, &body);
  c.inflight.push_back(Call{n, intended_ns, now, static_cast<uint32_t>(head), static_cast<uint32_t>(body)});
  if (intended_ns >= warm_end_ns_) ++issued_counted_;
  if (open_model()) {
    const uint64_t lateness = now > intended_ns ? now - intended_ns : 0;
    if (intended_ns >= warm_end_ns_ && lateness > kLateNanos) {
      ++stats.late_calls;
      stats.total_lateness_ns += lateness;
      stats.max_lateness_ns = std::max(stats.max_lateness_ns, lateness);
    }
  }
  Flush(c, now);
}

void Worker::Flush(Connection& c, uint64_t now) {
  while (c.out_offset < c.out.size()) {
    const ssize_t n = WriteSome(c, c.out.data() + c.out_offset, c.out.size() - c.out_offset);
    if (n > 0) {
      c.out_offset += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return SetWriting(c, true);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return Fail(c, CallOutcome::kIo, "write failed: connection reset", now);
    }
  }
  c.out.clear();
  c.out_offset = 0;
  SetWriting(c, false);
}

void Worker::OnReadable(Connection& c, uint64_t now) {
  bool eof = false;
  for (;;) {
    if (c.in.size() - c.in_length < kReadChunk / 4) {
      ReserveWithHugePages(&c.in, c.in_length + kReadChunk);  // a large response: 2 MiB pages
      c.in.resize(c.in_length + kReadChunk);
    }
    const size_t room = c.in.size() - c.in_length;
    const ssize_t n = ReadSome(c, c.in.data() + c.in_length, room);
    if (n > 0) {
      c.in_length += static_cast<size_t>(n);
      // Drained: skip the read that would say EAGAIN (TLS: when the session holds nothing more).
      if (c.tls ? !c.tls->HasPending() : static_cast<size_t>(n) < room) break;
    } else if (n == 0) {
      eof = true;
      break;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      break;
    } else if (errno != EINTR) {
      return Fail(c, CallOutcome::kIo, "read failed: connection reset", now);
    }
  }
  ProcessResponses(c, eof, now);
}

void Worker::ProcessResponses(Connection& c, bool eof, uint64_t now) {
  // The answers completed by this read arrived, at the latest, with its newest bytes.
  const int64_t received = c.received_realtime_ns - realtime_offset_ns_;
  const uint64_t received_ns = o_.receive_stamps && c.received_realtime_ns != 0 && received > 0
                                   ? static_cast<uint64_t>(received) : 0;
  while (!c.inflight.empty() && c.fd >= 0) {
    HttpResponseView view;
    const auto r = reader_.Read(c.in.data() + c.in_offset, c.in_length - c.in_offset, eof, &view);
    if (r == HttpResponseReader::Result::kNeedMore) break;
    if (r == HttpResponseReader::Result::kError) return Fail(c, CallOutcome::kIo, "malformed HTTP response", now);
    const Call call = c.inflight.front();
    c.inflight.pop_front();
    size_t payload = 0;
    const bool want_detail = stats.first_failure.empty();
    const CallOutcome outcome = checker_->Check(view.status, view.body, view.body_size, call.n, &payload,
                                                want_detail ? &detail_ : nullptr);
    Record(call, outcome, view.head_bytes, view.total_bytes - view.head_bytes, payload, now, &detail_, received_ns);
    c.in_offset += view.total_bytes;
    if (view.close || !o_.keep_alive) {
      if (!c.inflight.empty()) return Fail(c, CallOutcome::kIo, "server closed a pipelined connection", now);
      Close(c);
      Open(c, now);
      return;
    }
    BecameIdle(c, now);
  }
  if (c.fd < 0) return;
  if (eof) {
    if (!c.inflight.empty()) return Fail(c, CallOutcome::kIo, "connection closed before the response", now);
    Close(c);
    Open(c, now);
    return;
  }
  if (c.in_offset == c.in_length) {
    c.in_offset = c.in_length = 0;
  } else if (c.in_offset > kReadChunk) {
    std::memmove(c.in.data(), c.in.data() + c.in_offset, c.in_length - c.in_offset);
    c.in_length -= c.in_offset;
    c.in_offset = 0;
  }
}

void Worker::Record(const Call& call, CallOutcome outcome, uint64_t response_head, uint64_t response_body,
                    size_t response_payload, uint64_t now, const std::string* detail, uint64_t received_ns) {
  if (call.intended_ns < warm_end_ns_) return;  // warm-up: not in the figures
  if (o_.total_calls > 0 && counted_ >= quota_) return;
  ++counted_;
  ++stats.outcomes[static_cast<size_t>(outcome)];
  ByteCounts& b = stats.bytes;
  b.request_head += call.head_bytes;
  b.request_body += call.body_bytes;
  b.response_head += response_head;
  b.response_body += response_body;
  b.request_payload += o_.request_payload_bytes + o_.payload_placeholders * (DecimalDigits(call.n) - 1);
  b.response_payload += response_payload;
  const bool ok = outcome == CallOutcome::kOk;
  if (ok) {
    stats.latency.Record(now - call.intended_ns);
    stats.service_time.Record(now - call.sent_ns);
    if (received_ns != 0) {
      stats.receipt_time.Record(received_ns > call.sent_ns ? received_ns - call.sent_ns : 0);
    } else if (o_.receive_stamps && o_.tls == nullptr) {
      ++stats.unstamped_answers;
    }
    live_latency.Record(now - call.intended_ns);
    live_ok.store(live_ok.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  } else {
    live_failed.store(live_failed.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (stats.first_failure.empty() && detail != nullptr) {
      stats.first_failure = std::string(CallOutcomeName(outcome)) + ": " + *detail;
    }
  }
  if (o_.series) {
    // A call that ends just after the window's end (the loop is ending) goes into its last second: the
    // counts of the seconds stay the calls of the window, and no second lies after it.
    uint64_t at = now - warm_end_ns_;
    if (o_.total_calls == 0 && end_ns_ > warm_end_ns_) at = std::min(at, end_ns_ - warm_end_ns_ - 1);
    const size_t second = static_cast<size_t>(at / 1000000000ull);
    if (second >= stats.seconds.size()) stats.seconds.resize(second + 1);
    SecondStats& s = stats.seconds[second];
    if (ok) {
      ++s.calls_ok;
      s.latency.Record(now - call.intended_ns);
    } else {
      ++s.errors;
    }
    s.bytes_sent += call.head_bytes + call.body_bytes;
    s.bytes_received += response_head + response_body;
  }
}

void Worker::BecameIdle(Connection& c, uint64_t now) {
  if (c.fd < 0 || c.connecting) return;
  if (open_model()) {
    if (!backlog_.empty() && static_cast<int>(c.inflight.size()) < o_.pipeline) {
      const auto [n, intended] = backlog_.front();
      backlog_.pop_front();
      return Send(c, n, intended, now);
    }
    if (c.inflight.empty()) c.idle_since_ns = now;
    if (static_cast<int>(c.inflight.size()) < o_.pipeline) idle_.push_back(Index(c));
    return;
  }
  while (started_ && c.fd >= 0 && static_cast<int>(c.inflight.size()) < o_.pipeline && CanIssue(now) &&
         !Finished(now)) {
    Send(c, NextNumber(), now, now);
  }
}

void Worker::IssueDue(uint64_t now) {
  while (next_intended_ns_ <= now && CanIssue(next_intended_ns_)) {
    const uint64_t intended = next_intended_ns_;
    next_intended_ns_ += Gap();
    const uint64_t n = NextNumber();
    Connection* target = nullptr;
    while (!idle_.empty() && target == nullptr) {
      Connection& c = connections_[idle_.back()];
      idle_.pop_back();
      if (c.fd < 0 || c.connecting || static_cast<int>(c.inflight.size()) >= o_.pipeline) continue;
      if (c.inflight.empty() && now - c.idle_since_ns > kPeekIdleAfterNanos &&
          PeekIdle(c.fd) == IdlePeek::kSomethingToRead) {
        // Its server closed it (or sent something) since the loop last read its sockets: read that first, as
        // after a wait. A close ends it quietly (no call is in flight; it is opened again) and this call goes to
        // another connection. A TLS record (a session ticket) leaves it open and usable.
        OnReadable(c, now);
        if (c.fd < 0) continue;
        if (c.in_length != c.in_offset) {  // bytes that no request asked for: not a connection to send on
          Close(c);
          Open(c, now);
          continue;
        }
      }
      target = &c;
    }
    if (target != nullptr) {
      Send(*target, n, intended, now);
    } else if (backlog_.size() < kMaxBacklog) {
      backlog_.emplace_back(n, intended);  // sent late, when a connection frees up
    } else {
      Call call{n, intended, now, 0, 0};
      detail_ = "the harness could not keep the schedule: more than 1,000,000 calls waiting for a connection";
      Record(call, CallOutcome::kConnect, 0, 0, 0, now, &detail_);
    }
  }
}

void Worker::CheckTimers(uint64_t now) {
  const uint64_t timeout = static_cast<uint64_t>(o_.timeout_seconds * 1e9);
  for (Connection& c : connections_) {
    if (c.fd < 0) {
      if (c.reopen_at_ns != 0 && c.reopen_at_ns <= now) Open(c, now);
      continue;
    }
    if (c.connecting && now - c.opened_ns > timeout) {
      ConnectFailed(c, now, ETIMEDOUT);
    } else if (!c.inflight.empty() && now - c.inflight.front().sent_ns > timeout) {
      Fail(c, CallOutcome::kTimeout, "no response within the timeout", now);
    }
  }
}

void Worker::Run() {
  Status s = ResponseChecker::Create(o_.expectation, &checker_);
  if (!s.ok()) {
    setup_error = s.message();
    done = true;
    return;
  }
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  uint64_t now = NowNanos();
  if (o_.receive_stamps) realtime_offset_ns_ = RealtimeNanos() - static_cast<int64_t>(now);
  // Open model: the threads' schedules interleave (thread i starts i/threads of a gap later).
  next_intended_ns_ = start_ns_ + (open_model() ? static_cast<uint64_t>(1e9 / rate_ * index_ / o_.threads) : 0);
  for (Connection& c : connections_) Open(c, now);
  std::vector<epoll_event> events(256);
  double cpu_at_start = 0;
  while (true) {
    now = NowNanos();
    if (!started_ && now >= start_ns_) {
      started_ = true;
      if (!open_model()) {
        for (Connection& c : connections_) BecameIdle(c, now);
      }
    }
    if (!window_started_ && now >= warm_end_ns_) {
      window_started_ = true;
      cpu_at_start = ThreadCpuSeconds();
    }
    if (Finished(now)) break;
    if (open_model()) IssueDue(now);
    if (now >= next_timer_ns_) {
      CheckTimers(now);
      next_timer_ns_ = now + kTimerNanos;
    }
    uint64_t wake = next_timer_ns_;
    if (o_.total_calls == 0) wake = std::min(wake, end_ns_);
    if (!started_) wake = std::min(wake, start_ns_);
    if (!window_started_) wake = std::min(wake, warm_end_ns_);
    if (open_model() && CanIssue(next_intended_ns_)) wake = std::min(wake, next_intended_ns_);
    const int n = Wait(events.data(), static_cast<int>(events.size()), wake > now ? wake - now : 0);
    now = NowNanos();
    if (o_.receive_stamps) realtime_offset_ns_ = RealtimeNanos() - static_cast<int64_t>(now);
    for (int i = 0; i < n; ++i) {
      Connection& c = connections_[events[static_cast<size_t>(i)].data.u64];
      const uint32_t ev = events[static_cast<size_t>(i)].events;
      if (c.fd < 0) continue;
      if (c.connecting && c.tls) {
        ContinueHandshake(c, now);
        continue;
      }
      if (c.connecting) {
        if ((ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)) == 0) continue;
        int error = 0;
        socklen_t len = sizeof error;
        getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &len);
        if (error != 0) {
          ConnectFailed(c, now, error);
          continue;
        }
        if (o_.tls != nullptr) {
          ContinueHandshake(c, now);  // the handshake counts as connecting, not as a call's latency
        } else {
          OnConnected(c, now);
        }
        continue;
      }
      if (ev & EPOLLOUT) Flush(c, now);
      if (c.fd >= 0 && (ev & (EPOLLIN | EPOLLHUP | EPOLLERR))) OnReadable(c, now);
    }
  }
  finished_ns = NowNanos();
  if (window_started_) stats.cpu_seconds = ThreadCpuSeconds() - cpu_at_start;
  for (const Connection& c : connections_) {
    for (const Call& call : c.inflight) stats.unanswered_at_end += call.intended_ns >= warm_end_ns_ ? 1 : 0;
  }
  for (Connection& c : connections_) Close(c);
  close(epoll_);
  done = true;
}

}  // namespace

void ObserveWindow(uint64_t warm_end_ns, uint64_t end_ns, const LoadObserver& observer, const LiveProgress& progress) {
  auto sleep_until = [&](uint64_t t) {
    while (NowNanos() < t && !progress.all_done()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  };
  sleep_until(warm_end_ns);
  if (observer.on_window_start) observer.on_window_start();
  LiveLatency::Counts previous{};
  for (uint64_t tick = warm_end_ns + 1000000000ull; !progress.all_done(); tick += 1000000000ull) {
    sleep_until(std::min(tick, end_ns));
    if (NowNanos() >= end_ns || progress.all_done()) break;
    uint64_t ok = 0, failed = 0;
    progress.counts(&ok, &failed);
    LiveLatency::Counts now{};
    if (progress.latency) progress.latency(&now);
    LiveLatency::Counts recent{};
    for (size_t i = 0; i < recent.size(); ++i) recent[i] = now[i] - previous[i];
    previous = now;
    if (observer.on_tick) {
      observer.on_tick(static_cast<double>(NowNanos() - warm_end_ns) / 1e9, ok, failed,
                       LiveLatency::Percentile(recent, 99));
    }
  }
  sleep_until(end_ns);
  if (observer.on_window_end) observer.on_window_end();
}

Status LoadRunner::Run(const LoadObserver& observer, LoadResult* result) {
  const LoadOptions& o = options_;
  if (o.threads < 1 || o.connections < o.threads) {
    return Status::InvalidArgument("need at least one connection per thread (-c >= -t)");
  }
  if (o.request == nullptr) return Status::InvalidArgument("no request");
  const uint64_t start = NowNanos() + 20000000;  // 20 ms to start the threads and open the connections
  const uint64_t warm_end = start + static_cast<uint64_t>(o.warmup_seconds * 1e9);
  const uint64_t end = o.total_calls > 0 ? UINT64_MAX : warm_end + static_cast<uint64_t>(o.duration_seconds * 1e9);

  std::vector<std::unique_ptr<Worker>> workers;
  for (int i = 0; i < o.threads; ++i) {
    const int connections = o.connections / o.threads + (i < o.connections % o.threads ? 1 : 0);
    const uint64_t quota = o.total_calls / static_cast<uint64_t>(o.threads) +
                           (static_cast<uint64_t>(i) < o.total_calls % static_cast<uint64_t>(o.threads) ? 1 : 0);
    workers.push_back(std::make_unique<Worker>(o, i, connections, quota, start, warm_end, end, o.rate / o.threads));
  }
  std::vector<std::thread> threads;
  for (auto& w : workers) threads.emplace_back([&w] { w->Run(); });

  ObserveWindow(warm_end, end, observer, ProgressOf(workers));
  for (std::thread& t : threads) t.join();

  LoadResult merged;
  uint64_t last_end = warm_end;
  for (const auto& w : workers) {
    if (!w->setup_error.empty() && w->stats.calls_ok() == 0) {
      if (w->setup_error.rfind("cannot connect", 0) == 0) return Status::IOError(w->setup_error);
      return Status::InvalidArgument(w->setup_error);
    }
    merged.total.Merge(w->stats);
    merged.thread_cpu_seconds.push_back(w->stats.cpu_seconds);
    last_end = std::max(last_end, w->finished_ns);
  }
  merged.window_seconds = o.total_calls > 0 ? static_cast<double>(last_end - warm_end) / 1e9 : o.duration_seconds;
  SetSecondLengths(merged.window_seconds, &merged.total.seconds);
  *result = std::move(merged);
  return Status::Ok();
}

}  // namespace lather
