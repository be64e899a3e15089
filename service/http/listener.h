// Listen: opens the listening socket of a HOST:PORT the command line gave, or takes over one inherited
// from a parent process. Functions; thread-safe.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <cstdint>
#include <string>

#include "common/status.h"

namespace lather {

// Opens, binds and listens on options.listen ("HOST:PORT", "[V6]:PORT"). Sets *port to the bound
// port and *address to "host:port" as URLs spell it. InvalidArgument for a malformed address,
// IOError when it cannot be bound.
Status Listen(const std::string& listen, boost::asio::ip::tcp::acceptor* acceptor, uint16_t* port,
              std::string* address);

// Takes over `fd`, a socket already bound and listening (inherited from the supervisor of --workers, or
// from systemd's LISTEN_FDS), into *acceptor; sets *port and *address as Listen does. IOError if `fd` is
// not a socket.
Status AdoptListener(int fd, boost::asio::ip::tcp::acceptor* acceptor, uint16_t* port, std::string* address);

// Sets the kernel's receive buffer (SO_RCVBUF) of the listening socket to `bytes`; the connections it
// accepts from then on inherit it (fixed: the kernel no longer autotunes theirs). Asks with SO_RCVBUFFORCE
// when net.core.rmem_max is lower and the process may (CAP_NET_ADMIN), as rsyslog does. InvalidArgument
// naming net.core.rmem_max when the kernel grants less than asked.
Status SetReceiveBuffer(boost::asio::ip::tcp::acceptor* acceptor, int bytes);

}  // namespace lather
