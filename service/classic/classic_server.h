// ClassicServer: the "classic" engine, the textbook gSOAP hosting model (accept loop, one thread
// per connection, each with its own gSOAP context) kept beside the event engine so that one build
// can compare both. Each connection thread runs a BlockingConnection. Thread-safe as Server says.
#pragma once

#include <memory>

#include "service/dispatch/server.h"

namespace lather {

// Starts a ClassicServer (see StartServer for the errors).
Status StartClassicServer(const ServerOptions& options, std::unique_ptr<Server>* server);

}  // namespace lather
