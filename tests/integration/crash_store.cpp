#include "tests/integration/crash_store.h"

namespace lather::test {

CrashStore::CrashStore(Kind kind) {
  if (kind == Kind::kPostgres) {
    postgres_ = std::make_unique<PostgresServer>();
    uri_ = postgres_->uri();
  }
}

ServiceProcess* CrashStore::Start(const std::vector<std::string>& flags) {
  services_.push_back(std::make_unique<ServiceProcess>(uri_, flags));
  if (uri_.empty()) uri_ = services_.back()->store_uri();
  return services_.back().get();
}

bool CrashStore::Settle(std::chrono::milliseconds limit) {
  return postgres_ == nullptr || postgres_->WaitForNoTcpClients(limit);
}

}  // namespace lather::test
