#include "stress/load/idle_peek.h"

#include <errno.h>
#include <sys/socket.h>

namespace lather {

IdlePeek PeekIdle(int fd) {
  char byte;
  ssize_t n;
  do {
    n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return IdlePeek::kOpen;
  return IdlePeek::kSomethingToRead;  // 0: the peer closed; > 0: it sent something; < 0: a reset or an error
}

}  // namespace lather
