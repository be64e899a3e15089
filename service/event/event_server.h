// EventServer: the "event" engine (the default). A few event-loop threads (Boost.Thread, one
// Boost.Asio io_context each) serve many keep-alive connections; each loop owns a gSOAP context
// (SoapEngine), so a quick request runs start to finish on one thread without locks. Calls that
// wait for the store or run long go to the bounded blocking pool. Thread-safe as Server says.
#pragma once

#include <memory>

#include "service/dispatch/server.h"

namespace lather {

// Starts an EventServer (see StartServer for the errors).
Status StartEventServer(const ServerOptions& options, std::unique_ptr<Server>* server);

}  // namespace lather
