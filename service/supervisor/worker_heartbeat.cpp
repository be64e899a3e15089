#include "service/supervisor/worker_heartbeat.h"

#include <unistd.h>

#include <chrono>

#include "service/supervisor/worker_channel.h"

namespace lather {

WorkerHeartbeat::WorkerHeartbeat(int fd, uint16_t admin_port, std::function<int64_t()> stalled_ms,
                                 std::function<uint64_t()> answered)
    : fd_(fd), stalled_ms_(std::move(stalled_ms)), answered_(std::move(answered)) {
  thread_ = std::thread([this, admin_port] { Run(admin_port); });
}

WorkerHeartbeat::~WorkerHeartbeat() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  ::close(fd_);
}

void WorkerHeartbeat::Run(uint16_t admin_port) {
  WorkerMessage ready;
  ready.kind = WorkerMessage::kReady;
  ready.admin_port = admin_port;
  WriteWorkerMessage(fd_, ready);
  while (!stop_.load()) {
    WorkerMessage beat;
    beat.kind = WorkerMessage::kBeat;
    const int64_t stalled = stalled_ms_();
    beat.stalled_ms = static_cast<uint32_t>(stalled < 0 ? 0 : stalled > 0xffffffffLL ? 0xffffffffLL : stalled);
    beat.answered = answered_();
    if (!WriteWorkerMessage(fd_, beat)) return;  // the supervisor is gone (the pipe is closed)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace lather
