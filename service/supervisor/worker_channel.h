// The pipe from a --workers worker to its supervisor, and how a worker finds what the supervisor handed
// it: fixed-size messages (ready, then a heartbeat every 100 ms), each written whole in one write() (they
// are far below PIPE_BUF, so they never interleave or split). Functions and a reader; a reader is used by
// one thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lather {

// The environment a supervisor sets for each worker it starts.
inline constexpr char kWorkerFdEnv[] = "LATHER_WORKER_FD";      // the write end of the worker's pipe
inline constexpr char kListenFdEnv[] = "LATHER_LISTEN_FD";      // the listening socket to accept from
inline constexpr char kWorkerIndexEnv[] = "LATHER_WORKER_INDEX";  // 0 .. N-1, for the log

struct WorkerMessage {
  enum Kind : uint8_t { kReady = 'R', kBeat = 'B' };
  uint8_t kind = kBeat;
  uint16_t admin_port = 0;   // kReady: the worker's private /metrics listener on 127.0.0.1
  uint32_t stalled_ms = 0;   // kBeat: Server::StalledMillis()
  uint64_t answered = 0;     // kBeat: Server::RequestsAnswered()
};

// Writes `message` to `fd` in one write(); false if the pipe is gone or full (the supervisor reads it
// every 20 ms, so a full pipe means a supervisor that stopped reading).
bool WriteWorkerMessage(int fd, const WorkerMessage& message);

// Reads whatever messages `fd` (non-blocking) holds into *messages; false once the worker's end is closed.
class WorkerMessageReader {
 public:
  bool Read(int fd, std::vector<WorkerMessage>* messages);

 private:
  std::string partial_;
};

// The value of environment variable `name` as a non-negative integer, -1 if unset or malformed.
int EnvInt(const char* name);

}  // namespace lather
