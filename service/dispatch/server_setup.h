// Server setup shared by both engines: the counter store's writer and blocking pool, and the
// canned answer for one connection too many. The listening socket: service/http/listener.h.
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "service/dispatch/blocking_pool.h"
#include "service/dispatch/server_options.h"
#include "service/store/group_commit.h"

namespace lather {

// Opens the store's writer connection (the group committer) and the blocking pool's workers.
// IOError/InvalidArgument as CounterStore::Open.
Status StartStore(const ServerOptions& options, std::unique_ptr<GroupCommitter>* committer,
                  std::unique_ptr<BlockingPool>* pool);

// The whole HTTP response (503, Retry-After, SOAP 1.1 Fault) for a connection over `max_connections`.
std::string BusyResponse(int max_connections);

}  // namespace lather
