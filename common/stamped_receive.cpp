#include "common/stamped_receive.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <ctime>

namespace lather {

namespace {
bool SetStampOption(int fd) {
  const int one = 1;
  return ::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) == 0;
}

// The socket that keeps the machine-wide switch on while this process lives (never closed; a UDP
// socket costs a descriptor and no buffers).
void HoldStampingOn() {
  static const int keeper = [] {
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd >= 0) SetStampOption(fd);
    return fd;
  }();
  (void)keeper;
}
}  // namespace

bool EnableArrivalStamps(int fd) {
  HoldStampingOn();
  return SetStampOption(fd);
}

int64_t RealtimeNanos() {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

double SecondsSince(int64_t arrival_ns) {
  const int64_t waited = RealtimeNanos() - arrival_ns;
  return waited > 0 ? static_cast<double>(waited) / 1e9 : 0.0;
}

ssize_t ReceiveStamped(int fd, char* buffer, size_t length, int64_t* arrival_ns) {
  const ssize_t n = ReceiveWithKernelStamp(fd, buffer, length, arrival_ns);
  if (n > 0 && *arrival_ns == 0) *arrival_ns = RealtimeNanos();
  return n;
}

ssize_t ReceiveWithKernelStamp(int fd, char* buffer, size_t length, int64_t* arrival_ns) {
  iovec data{buffer, length};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  const ssize_t n = ::recvmsg(fd, &message, 0);
  if (n <= 0) return n;
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
      const auto* stamp = reinterpret_cast<const timespec*>(CMSG_DATA(c));
      *arrival_ns = static_cast<int64_t>(stamp->tv_sec) * 1000000000 + stamp->tv_nsec;
      return n;
    }
  }
  *arrival_ns = 0;
  return n;
}

}  // namespace lather
