#include "service/server_start.h"

#include "service/admin/admin_server.h"
#include "service/classic/classic_server.h"
#include "service/event/event_server.h"

namespace lather {
namespace {

// An engine with its --admin-listen listener beside it (/metrics and /healthz there).
class ServerWithAdmin final : public Server {
 public:
  explicit ServerWithAdmin(std::unique_ptr<Server> engine) : engine_(std::move(engine)) {}
  ~ServerWithAdmin() override { admin_.reset(); }  // its thread renders the engine's metrics: first

  Status StartAdmin(const std::string& listen) {
    return AdminServer::Start(listen, [engine = engine_.get()] { return engine->RenderMetrics(); }, &admin_);
  }
  uint16_t port() const override { return engine_->port(); }
  const std::string& address() const override { return engine_->address(); }
  std::string admin_address() const override { return admin_->address(); }
  std::string RenderMetrics() override { return engine_->RenderMetrics(); }
  int64_t StalledMillis() override { return engine_->StalledMillis(); }
  uint64_t RequestsAnswered() override { return engine_->RequestsAnswered(); }
  void Stop() override { engine_->Stop(); }
  void Wait() override {
    engine_->Wait();
    admin_->Stop();
  }

 private:
  std::unique_ptr<Server> engine_;
  std::unique_ptr<AdminServer> admin_;
};

}  // namespace

Status StartServer(const ServerOptions& options, std::unique_ptr<Server>* server) {
  std::unique_ptr<Server> engine;
  Status s = options.engine == Engine::kClassic ? StartClassicServer(options, &engine) : StartEventServer(options, &engine);
  if (!s.ok() || options.admin_listen.empty()) {
    if (s.ok()) *server = std::move(engine);
    return s;
  }
  auto with_admin = std::make_unique<ServerWithAdmin>(std::move(engine));
  s = with_admin->StartAdmin(options.admin_listen);
  if (!s.ok()) return s;
  *server = std::move(with_admin);
  return Status::Ok();
}

}  // namespace lather
