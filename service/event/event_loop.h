// EventLoop: one thread's share of the server: an io_context, the gSOAP engine and counter-store
// connection it owns, and the connections it serves. Everything in a loop is touched only by that
// loop's thread (other threads post to io()).
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "service/dispatch/blocking_pool.h"
#include "service/dispatch/request_router.h"
#include "service/dispatch/server_options.h"
#include "service/event/deadline_lanes.h"
#include "service/http/read_buffer.h"
#include "service/soap/operations.h"
#include "service/soap/soap_engine.h"
#include "service/store/group_commit.h"

namespace lather {

class Connection;

class EventLoop {
 public:
  EventLoop(const ServerOptions& options, BlockingPool* pool);
  ~EventLoop();

  boost::asio::io_context& io() { return io_; }
  const ServerOptions& options() const { return options_; }
  RequestRouter& router() { return router_; }
  LoopMetrics& metrics() { return metrics_; }
  BlockingPool& pool() { return *pool_; }
  SoapEngine& engine() { return engine_; }
  // The store's writer: IncCounter calls are queued to it from the loop and answered back on the loop
  // (no pool thread in between). Null: they go to the pool like the other store calls. Set before Run().
  void set_writer(GroupCommitter* writer) {
    writer_ = writer;
    engine_.set_increments_to_writer(writer != nullptr);
  }
  GroupCommitter* writer() { return writer_; }
  // An IncCounter for the writer. The calls of one turn of the loop are handed over together, after the
  // I/O that is ready (one lock, one wake-up of the writer, one post back per turn instead of one each);
  // each connection's FinishIncrement() gets its answer on the loop. Needs writer().
  void QueueIncrement(std::shared_ptr<Connection> connection, SoapEngine::PendingIncrement* pending,
                      int64_t arrival_ns);
  bool stopping() const { return stopping_; }
  // Whether idle plain connections wait with EdgeSocket's read (no epoll re-arm per request): yes, unless
  // LATHER_EDGE_READS=0 is in the environment (the wait that re-arms, kept as the fallback).
  bool edge_reads() const { return edge_reads_; }

  // Runs the loop until it has no work left after BeginStop(). Catches and logs anything thrown.
  void Run();

  // When the loop last ran its 100 ms tick (MonotonicNanos): a loop stuck in one request stops ticking.
  // Thread-safe.
  int64_t last_tick_ns() const { return last_tick_ns_.load(std::memory_order_relaxed); }

  // Called on the loop's thread: no new work is kept alive, idle connections are closed (or, with
  // options().drain_idle, kept that long for one last request) and busy ones close after their current
  // response.
  void BeginStop();

  // The server-wide count of open connections (decremented here when one closes).
  void set_connection_count(std::atomic<int>* count) { connection_count_ = count; }
  void ConnectionEnded() {
    if (connection_count_ != nullptr) connection_count_->fetch_sub(1, std::memory_order_relaxed);
  }

  void Add(const std::shared_ptr<Connection>& connection);
  void Remove(const std::shared_ptr<Connection>& connection);

  // A connection's deadline (header, body, idle...): `entry` expires `after` from now, on this loop. One
  // timer for every connection: no timer operation per phase change (see DeadlineLanes).
  void ArmDeadline(DeadlineLanes::Entry* entry, std::chrono::milliseconds after);
  void DisarmDeadline(DeadlineLanes::Entry* entry);

  // Spare answer buffers. An idle connection gives back the memory of the strings it wrote its last answer in
  // (ReturnString) and a connection about to answer takes one (BorrowString): idle connections keep no
  // kilobyte of answers they sent, and no call allocates for them. One pool per kind of string, so that a
  // response body gets a body's room back, not a head's (a smaller one would be grown again). At most
  // kSpareStrings of a kind are kept; past that a returned string's memory is freed. Strings of more than
  // kMaxSpareBytes are never kept.
  enum class Spare { kHead, kBody, kOut };
  static constexpr size_t kSpareStrings = 256;
  static constexpr size_t kMaxSpareBytes = 64 * 1024;
  static constexpr size_t kInlineCapacity = 15;  // libstdc++'s room inside a std::string: no heap memory
  void ReturnString(Spare kind, std::string* s) {
    if (s->capacity() <= kInlineCapacity) return;
    std::vector<std::string>& spares = spare_strings_[static_cast<size_t>(kind)];
    s->clear();
    if (spares.size() < kSpareStrings && s->capacity() <= kMaxSpareBytes) {
      spares.push_back(std::move(*s));  // the heap memory moves; *s is left empty, in its own room
      s->clear();
    } else {
      std::string().swap(*s);  // too many spares, or too large: freed
    }
  }
  // Gives *s a spare's memory when it has none of its own.
  void BorrowString(Spare kind, std::string* s) {
    std::vector<std::string>& spares = spare_strings_[static_cast<size_t>(kind)];
    if (s->capacity() > kInlineCapacity || spares.empty()) return;
    *s = std::move(spares.back());
    spares.pop_back();
  }

  // Spare read buffers. A request's first read takes kReadChunk; when its connection goes idle that buffer comes
  // back here (ReturnReadBuffer) and the next request on any connection takes it (BorrowReadBuffer): an ordinary
  // call allocates nothing to read into. A 16 KiB malloc takes a lock of an arena that the pool's threads share,
  // and a SCHED_IDLE echo job preempted while holding it kept a loop waiting 5-90 ms (2026-12-06). At most
  // kSpareReadBuffers are kept; other sizes are freed.
  static constexpr size_t kReadChunk = 16 * 1024;
  static constexpr size_t kSpareReadBuffers = 64;
  void ReturnReadBuffer(ReadBuffer* buffer) {
    if (!buffer->empty() || buffer->capacity() != kReadChunk || spare_reads_.size() >= kSpareReadBuffers) {
      return buffer->Release();
    }
    spare_reads_.emplace_back();  // reserved: no allocation
    spare_reads_.back().Swap(*buffer);
  }
  // Gives *buffer a spare's memory when it has none of its own.
  void BorrowReadBuffer(ReadBuffer* buffer) {
    if (buffer->capacity() > 0 || spare_reads_.empty()) return;
    buffer->Swap(spare_reads_.back());
    spare_reads_.pop_back();
  }

  // The read buffer of the last large request (Connection's, over 1 MiB), kept for the next one: a fresh buffer is
  // faulted in and zeroed on the loop as it is read into (30 MB for a 50,000-sample echo). KeepLargeReadBuffer
  // keeps the larger of *buffer (when empty) and the one kept, leaving the other in *buffer for the caller to free;
  // BorrowLargeReadBuffer moves *buffer's bytes into the kept one when it holds `total` bytes and *buffer does not.
  // The kept buffer is freed (on the pool) once no large request has used it for kQuietPeriod.
  void KeepLargeReadBuffer(ReadBuffer* buffer);
  void BorrowLargeReadBuffer(ReadBuffer* buffer, size_t total);
  // Frees a large buffer on the pool (munmap of tens of megabytes takes milliseconds), or here if it is full.
  void FreeOffLoop(Bytes storage);

  // The most deadlines one turn of the loop expires before other connections' work runs again.
  static constexpr size_t kExpiriesPerTurn = 16;

 private:
  const ServerOptions& options_;
  // One thread runs it, and every socket operation on it starts there (the acceptor's peer sockets are only
  // registered from loop 0, under the reactor's registration lock, then posted here): the sockets' own locks go
  // (three lock/unlock pairs per call); posting from other threads stays locked.
  boost::asio::io_context io_{BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO};
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  BlockingPool* pool_;
  GroupCommitter* writer_ = nullptr;
  // This turn's IncCounter calls, not yet handed to the writer (null: none).
  struct Increments;
  std::unique_ptr<Increments> increments_;
  void HandOverIncrements();
  std::array<std::vector<std::string>, 3> spare_strings_;  // by Spare
  std::vector<ReadBuffer> spare_reads_;
  ReadBuffer large_read_;  // see KeepLargeReadBuffer
  int64_t large_read_used_ns_ = 0;
  LoopMetrics metrics_;
  Operations operations_;
  SoapEngine engine_;
  RequestRouter router_;
  std::unordered_set<std::shared_ptr<Connection>> connections_;
  bool stopping_ = false;
  bool edge_reads_ = true;  // not LATHER_EDGE_READS=0, read once at construction
  std::atomic<int>* connection_count_ = nullptr;
  boost::asio::steady_timer tick_{io_};
  std::atomic<int64_t> last_tick_ns_{0};
  void Tick();
  // Declared after connections_: a connection's entry is never destroyed after its lanes are.
  DeadlineLanes deadlines_;
  boost::asio::steady_timer deadline_timer_{io_};
  int64_t deadline_timer_due_ns_ = DeadlineLanes::kNever;  // when it fires (kNever: not set)
  void SetDeadlineTimer(int64_t due_ns);
  void CancelDeadlineTimer();
  // The timer fired (or a turn's budget ran out): expires what is due, then sleeps until the next.
  void ExpireDeadlines();
};

}  // namespace lather
