#include "service/server.h"

#include "service/classic_server.h"
#include "service/event_server.h"

namespace lather {

Status Server::Start(const ServerOptions& options, std::unique_ptr<Server>* server) {
  return options.engine == Engine::kClassic ? StartClassicServer(options, server) : StartEventServer(options, server);
}

}  // namespace lather
