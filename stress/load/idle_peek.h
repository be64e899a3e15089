// PeekIdle: whether an idle keep-alive connection may take the next request as it is, or has something to be
// read first - the server's close (a FIN or a reset) or bytes it sent unasked. One recv(MSG_PEEK | MSG_DONTWAIT)
// of one byte; nothing is consumed. The load runner asks before it reuses a connection that has been idle a
// while: a server may close an idle connection at any time (RFC 9112 9.6; a draining worker at a hot swap, an
// idle timeout), and a request written in the moment between the close and the client's next look at its
// sockets would fail with no answer. Real clients check the same way (curl before each reuse, Apache
// HttpClient's validateAfterInactivity). A function; thread-safe.
#pragma once

namespace lather {

enum class IdlePeek {
  kOpen,             // nothing waiting: the connection takes the request
  kSomethingToRead,  // end of stream, a reset or unasked bytes: read the socket before using it
};

IdlePeek PeekIdle(int fd);

}  // namespace lather
