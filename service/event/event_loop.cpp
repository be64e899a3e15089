#include "service/event/event_loop.h"

#include <exception>
#include <vector>

#include "common/clock.h"
#include "common/log.h"
#include "service/event/connection.h"

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
  router_.set_max_decoded_bytes(options.http.max_body_bytes);
  router_.set_fault_injection(options.fault_injection);
  last_tick_ns_.store(MonotonicNanos(), std::memory_order_relaxed);
}

void EventLoop::Tick() {
  last_tick_ns_.store(MonotonicNanos(), std::memory_order_relaxed);
  if (stopping_) return;
  tick_.expires_after(std::chrono::milliseconds(100));
  tick_.async_wait([this](const boost::system::error_code& error) {
    if (!error) Tick();
  });
}

void EventLoop::Run() {
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

void EventLoop::Add(const std::shared_ptr<Connection>& connection) { connections_.insert(connection); }

void EventLoop::Remove(const std::shared_ptr<Connection>& connection) { connections_.erase(connection); }

}  // namespace lather
