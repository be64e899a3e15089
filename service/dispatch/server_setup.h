// Server setup shared by both engines: the listening socket, the counter store's writer and
// blocking pool, and the canned answer for one connection too many.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "service/dispatch/blocking_pool.h"
#include "service/store/group_commit.h"
#include "service/dispatch/server_options.h"

namespace lather {

// Opens the store's writer connection (the group committer) and the blocking pool's workers.
// IOError/InvalidArgument as CounterStore::Open.
Status StartStore(const ServerOptions& options, std::unique_ptr<GroupCommitter>* committer,
                  std::unique_ptr<BlockingPool>* pool);

// Opens, binds and listens on options.listen ("HOST:PORT", "[V6]:PORT"). Sets *port to the bound
// port and *address to "host:port" as URLs spell it. InvalidArgument for a malformed address,
// IOError when it cannot be bound.
Status Listen(const std::string& listen, boost::asio::ip::tcp::acceptor* acceptor, uint16_t* port,
              std::string* address);

// The whole HTTP response (503, Retry-After, SOAP 1.1 Fault) for a connection over `max_connections`.
std::string BusyResponse(int max_connections);

}  // namespace lather
