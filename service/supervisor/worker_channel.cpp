#include "service/supervisor/worker_channel.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace lather {
namespace {

constexpr size_t kWire = 1 + 2 + 4 + 8;  // kind, admin_port, stalled_ms, answered (little-endian)

void Put(uint64_t value, size_t bytes, char* out) {
  for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

uint64_t Get(const char* in, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i) value |= static_cast<uint64_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  return value;
}

}  // namespace

bool WriteWorkerMessage(int fd, const WorkerMessage& message) {
  char wire[kWire];
  wire[0] = static_cast<char>(message.kind);
  Put(message.admin_port, 2, wire + 1);
  Put(message.stalled_ms, 4, wire + 3);
  Put(message.answered, 8, wire + 7);
  ssize_t n;
  do {
    n = ::write(fd, wire, sizeof wire);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof wire);
}

bool WorkerMessageReader::Read(int fd, std::vector<WorkerMessage>* messages) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    partial_.append(buffer, static_cast<size_t>(n));
    size_t at = 0;
    for (; partial_.size() - at >= kWire; at += kWire) {
      const char* m = partial_.data() + at;
      WorkerMessage message;
      message.kind = static_cast<uint8_t>(m[0]);
      message.admin_port = static_cast<uint16_t>(Get(m + 1, 2));
      message.stalled_ms = static_cast<uint32_t>(Get(m + 3, 4));
      message.answered = Get(m + 7, 8);
      messages->push_back(message);
    }
    partial_.erase(0, at);
  }
}

int EnvInt(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return *end == '\0' && value >= 0 && value <= 1 << 30 ? static_cast<int>(value) : -1;
}

}  // namespace lather
