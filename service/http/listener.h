// Listen: opens the listening socket of a HOST:PORT the command line gave. A function; thread-safe.
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

}  // namespace lather
