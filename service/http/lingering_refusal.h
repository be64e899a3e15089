// Lingering refusal: how both engines turn away a connection over --max-connections. The canned
// 503 is written, sending is shut down, and what the client still sends is read and dropped until
// it closes (or a short time passes) before the socket is closed: closing a socket with unread data
// makes the kernel send a reset, and a client whose request was already on the wire could lose the
// 503 under it. Lingering costs a descriptor for a while, so only kMaxLingeringRefusals refusals
// linger at once; beyond, the answer is written and the socket closed at once, as before.
// Thread-safe: the counter of lingering refusals is atomic.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

namespace lather {

// Most refused connections lingering at once (each holds a descriptor for at most kRefusalLinger).
inline constexpr int kMaxLingeringRefusals = 64;
// How long a refused connection is drained at most before it is closed.
inline constexpr std::chrono::milliseconds kRefusalLinger{2000};

// Event engine: writes `response` (which must outlive the refusal; the server's canned answer) on
// `socket` and lingers on the socket's executor; `lingering` counts refusals in progress.
void RefuseWithLinger(boost::asio::ip::tcp::socket socket, const std::string& response,
                      const std::shared_ptr<std::atomic<int>>& lingering);

// Classic engine: writes `response` on the connected socket `fd`, then (on a detached thread,
// when fewer than kMaxLingeringRefusals linger) drains it until the client closes or
// kRefusalLinger passes, and closes it. The thread touches nothing but the socket and `lingering`,
// so it may outlive the server. Takes ownership of `fd`.
void RefuseWithLinger(int fd, const std::string& response, const std::shared_ptr<std::atomic<int>>& lingering);

// Reads and drops what arrives on `fd` until the peer closes, `stopping` is set (looked at every
// 200 ms) or `limit` passes; the blocking linger of the classic engine's rejections.
void DrainUntilClosed(int fd, std::chrono::milliseconds limit, const std::atomic<bool>* stopping);

}  // namespace lather
