// WorkerHeartbeat: the worker's side of --workers: once the worker serves it says so (with the port of its
// private /metrics listener), then every 100 ms it sends the supervisor a heartbeat carrying how stalled
// the engine is and how many requests it has answered. A thread of its own; the callbacks must be
// thread-safe. The supervisor kills a worker whose heartbeats stop or report a stall past --hang-timeout.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>

namespace lather {

class WorkerHeartbeat {
 public:
  // Starts sending on `fd` (the pipe's write end, owned from now on).
  WorkerHeartbeat(int fd, uint16_t admin_port, std::function<int64_t()> stalled_ms,
                  std::function<uint64_t()> answered);
  ~WorkerHeartbeat();  // stops and joins
  WorkerHeartbeat(const WorkerHeartbeat&) = delete;
  WorkerHeartbeat& operator=(const WorkerHeartbeat&) = delete;

 private:
  void Run(uint16_t admin_port);

  int fd_;
  std::function<int64_t()> stalled_ms_;
  std::function<uint64_t()> answered_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace lather
