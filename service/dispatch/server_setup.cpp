#include "service/dispatch/server_setup.h"

#include "service/http/http_response.h"
#include "service/soap/fault_envelope.h"

namespace lather {

Status StartStore(const ServerOptions& options, std::unique_ptr<GroupCommitter>* committer,
                  std::unique_ptr<BlockingPool>* pool) {
  std::unique_ptr<CounterStore> writer_store;
  Status s = CounterStore::Open(options.store, &writer_store);
  if (!s.ok()) return s;
  writer_store->set_idempotency_window(options.idempotency_window);
  // The writer's commits then never wait for a checkpoint of SQLite's log (service/store/sqlite_checkpointer.h).
  if (options.background_checkpoints) {
    s = writer_store->CheckpointInBackground();
    if (!s.ok()) return s;
  }
  *committer = std::make_unique<GroupCommitter>(std::move(writer_store));
  return BlockingPool::Start(options, committer->get(), pool);
}

std::string BusyResponse(int max_connections) {
  std::string body, response;
  AppendFaultEnvelope(1, false, "the server is busy: it has " + std::to_string(max_connections) +
                                    " connections open; retry later", &body);
  AppendResponseHead(503, kSoap11ContentType, body.size(), false, "Retry-After: 1\r\n", &response);
  return response + body;
}

}  // namespace lather
