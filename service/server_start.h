// StartServer: lather-service's entry point, the top of the service's layers. It picks the engine
// (service/event/ or service/classic/) and puts the --admin-listen listener (service/admin/) beside
// it. A function; call it from one thread, then use the Server as service/dispatch/server.h says.
#pragma once

#include <memory>

#include "common/status.h"
#include "service/dispatch/server.h"
#include "service/dispatch/server_options.h"

namespace lather {

// Opens the stores, binds the listening socket and starts serving with options.engine. Returns
// IOError for an address in use or an unwritable store, InvalidArgument for a malformed --listen.
Status StartServer(const ServerOptions& options, std::unique_ptr<Server>* server);

}  // namespace lather
