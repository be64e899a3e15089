#include "service/event/event_loop.h"

#include <boost/asio/post.hpp>

#include <pthread.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/log.h"
#include "service/event/connection.h"
#include "service/memory/memory_return.h"

namespace lather {

EventLoop::EventLoop(const ServerOptions& options, BlockingPool* pool)
    : options_(options),
      work_(boost::asio::make_work_guard(io_)),
      pool_(pool),
      operations_(nullptr),  // the loop never touches the store: those calls are deferred to the pool
      engine_(&operations_, options.soap, true),
      router_(&engine_, &metrics_, "", options.long_body_bytes) {  // the address is set once bound
  router_.set_max_queue_wait(std::chrono::duration<double>(options.max_queue_wait).count());
  router_.set_https(options.tls != nullptr);
  const char* edge = std::getenv("LATHER_EDGE_READS");
  edge_reads_ = edge == nullptr || std::string_view(edge) != "0";
  router_.set_max_decoded_bytes(options.http.max_body_bytes);
  router_.set_fault_injection(options.fault_injection);
  last_tick_ns_.store(MonotonicNanos(), std::memory_order_relaxed);
  for (auto& spares : spare_strings_) spares.reserve(kSpareStrings);  // returning a string never allocates
  spare_reads_.reserve(kSpareReadBuffers);
}

EventLoop::~EventLoop() = default;

void EventLoop::Tick() {
  const int64_t now = MonotonicNanos();
  last_tick_ns_.store(now, std::memory_order_relaxed);
  if (pool_ != nullptr) pool_->EndLongYields(now);  // a large echo starved past its budget runs again
  if (large_read_.capacity() > 0 &&
      now - large_read_used_ns_ > std::chrono::duration_cast<std::chrono::nanoseconds>(kQuietPeriod).count()) {
    FreeOffLoop(large_read_.TakeStorage());  // large requests have stopped: the memory goes back
  }
  if (stopping_) return;
  tick_.expires_after(std::chrono::milliseconds(100));
  tick_.async_wait([this](const boost::system::error_code& error) {
    if (!error) Tick();
  });
}

void EventLoop::KeepLargeReadBuffer(ReadBuffer* buffer) {
  if (!buffer->empty() || buffer->capacity() <= large_read_.capacity()) return;
  large_read_.Swap(*buffer);
  large_read_used_ns_ = MonotonicNanos();
}

void EventLoop::BorrowLargeReadBuffer(ReadBuffer* buffer, size_t total) {
  if (buffer->capacity() >= total || large_read_.capacity() < total) return;
  const std::string_view held = buffer->data();
  std::memcpy(large_read_.Reserve(held.size(), held.size()), held.data(), held.size());  // fits: no growth
  large_read_.Commit(held.size());
  buffer->Swap(large_read_);  // *buffer: the large memory with its bytes; large_read_: the one it had
  large_read_.Consume(large_read_.size());
  if (large_read_.capacity() > kReadChunk) {
    FreeOffLoop(large_read_.TakeStorage());  // a smaller large one (pipelined requests): not freed on the loop
  } else {
    ReturnReadBuffer(&large_read_);  // to the small spares (or freed)
  }
  large_read_used_ns_ = MonotonicNanos();
}

void EventLoop::FreeOffLoop(Bytes storage) {
  if (storage == nullptr) return;
  std::shared_ptr<char[]> shared = std::move(storage);  // with its deleter: delete[] or munmap
  if (pool_ != nullptr && pool_->Submit([shared](SoapEngine&) mutable {
        shared.reset();
        NoteLargeFree();
      })) {
    return;
  }
  shared.reset();
  NoteLargeFree();
}

void EventLoop::Run() {
  pthread_setname_np(pthread_self(), "lather-loop");  // named in top -H, /proc/PID/task/*/comm
  Tick();
  for (;;) {
    try {
      io_.run();
      return;
    } catch (const std::exception& e) {
      LogLine(std::string("event loop: unexpected exception: ") + e.what());
    } catch (...) {
      LogLine("event loop: unexpected exception");
    }
  }
}

void EventLoop::BeginStop() {
  stopping_ = true;
  work_.reset();
  boost::system::error_code ignored;
  tick_.cancel(ignored);
  if (deadlines_.armed_count() == 0) CancelDeadlineTimer();  // nothing to wait for: lets io_.run() return
  // Copy: closing a connection removes it from the set.
  const std::vector<std::shared_ptr<Connection>> connections(connections_.begin(), connections_.end());
  for (const auto& connection : connections) {
    if (options_.drain_idle.count() > 0) {
      connection->DrainIfIdle(options_.drain_idle);
    } else {
      connection->CloseIfIdle();
    }
  }
}

void EventLoop::ArmDeadline(DeadlineLanes::Entry* entry, std::chrono::milliseconds after) {
  deadlines_.Arm(entry, after, MonotonicNanos());
  // The timer is only ever moved earlier here: a deadline whose entry moved on leaves it set, and it then
  // fires once for nothing (about once per timeout length) instead of being re-set on every phase change.
  if (entry->due_ns() < deadline_timer_due_ns_) SetDeadlineTimer(entry->due_ns());
}

void EventLoop::DisarmDeadline(DeadlineLanes::Entry* entry) {
  deadlines_.Disarm(entry);
  if (stopping_ && deadlines_.armed_count() == 0) CancelDeadlineTimer();  // let the stopping loop end
}

void EventLoop::CancelDeadlineTimer() {
  boost::system::error_code ignored;
  deadline_timer_.cancel(ignored);
  deadline_timer_due_ns_ = DeadlineLanes::kNever;
}

void EventLoop::SetDeadlineTimer(int64_t due_ns) {
  deadline_timer_due_ns_ = due_ns;
  deadline_timer_.expires_at(std::chrono::steady_clock::time_point(std::chrono::nanoseconds(due_ns)));
  deadline_timer_.async_wait([this](const boost::system::error_code& error) {
    if (!error) ExpireDeadlines();
  });
}

void EventLoop::ExpireDeadlines() {
  const int64_t now = MonotonicNanos();
  deadline_timer_due_ns_ = now;  // running now: no Arm() moves the timer meanwhile
  if (deadlines_.Expire(now, kExpiriesPerTurn) == kExpiriesPerTurn) {
    // More may be due: go on after the I/O that is ready (a post runs behind the reactor's next pass), so
    // that a wave of cut-offs does not hold up the other connections' requests.
    boost::asio::post(io_, [this] { ExpireDeadlines(); });
    return;
  }
  deadline_timer_due_ns_ = DeadlineLanes::kNever;
  const int64_t next = deadlines_.next_due_ns();
  if (next != DeadlineLanes::kNever) SetDeadlineTimer(next);
}

// A turn's IncCounter calls: the writer's group, with the connections its answers go to. The work guard keeps
// the loop running until the answers are posted back.
struct EventLoop::Increments : GroupCommitter::Group {
  std::vector<std::shared_ptr<Connection>> connections;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;
};

void EventLoop::QueueIncrement(std::shared_ptr<Connection> connection, SoapEngine::PendingIncrement* pending,
                               int64_t arrival_ns) {
  if (increments_ == nullptr) {
    increments_ = std::make_unique<Increments>();
    // Posted: runs behind the reactor's next pass, so the calls that arrive meanwhile join this group.
    boost::asio::post(io_, [this] { HandOverIncrements(); });
  }
  GroupCommitter::Group::Item& item = increments_->items.emplace_back();
  // The call's own copy moves (the engine's is overwritten by the next request this loop reads).
  item.name = std::move(pending->name);
  item.message_id = std::move(pending->message_id);
  item.arrival_ns = arrival_ns;
  increments_->connections.push_back(std::move(connection));
  metrics_.RequestStarted();
}

void EventLoop::HandOverIncrements() {
  std::unique_ptr<Increments> group = std::move(increments_);
  // No wait limit at the writer: the requests passed --max-queue-wait when the loop read them, and once
  // queued for the store they wait for their commit, as a pool thread blocked in a commit did (a slow commit
  // - another process holding SQLite's lock during a swap - is not a reason to refuse them).
  group->limit_seconds = 0;
  group->work.emplace(io_.get_executor());
  // On the writer's thread (or this one when nothing was queued): the answers go back to the loop in one post,
  // and the group (with its connections) is destroyed there, never on the writer.
  group->done = [this](std::unique_ptr<GroupCommitter::Group> answered) {
    boost::asio::post(io_, [answered = std::move(answered)] {
      auto& increments = static_cast<Increments&>(*answered);
      for (size_t i = 0; i < increments.items.size(); ++i) {
        increments.connections[i]->FinishIncrement(increments.items[i].answer);
      }
    });
  };
  writer_->SubmitGroup(std::move(group));
}

void EventLoop::Add(const std::shared_ptr<Connection>& connection) { connections_.insert(connection); }

void EventLoop::Remove(const std::shared_ptr<Connection>& connection) { connections_.erase(connection); }

}  // namespace lather
