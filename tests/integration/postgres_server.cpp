#include "tests/integration/postgres_server.h"

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "tests/integration/service_process.h"

namespace lather::test {
namespace {

int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

}  // namespace

PostgresServer::PostgresServer() {
  if (!std::filesystem::exists(bin_ + "/initdb")) {
    throw std::runtime_error("PostgreSQL 15 is not installed (" + bin_ + "/initdb); scripts/bootstrap installs it");
  }
  char pattern[] = "/tmp/lather-pg-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  as_postgres_ = ::geteuid() == 0;
  if (as_postgres_) {
    const passwd* user = ::getpwnam("postgres");
    if (user == nullptr) throw std::runtime_error("no 'postgres' user to run PostgreSQL as");
    if (::chown(dir_.c_str(), user->pw_uid, user->pw_gid) != 0) throw std::runtime_error("cannot chown " + dir_);
  }
  port_ = FreePort();
  Run(bin_ + "/initdb -D " + dir_ + "/data -U lather --auth=trust --no-sync -E UTF8 >" + dir_ + "/initdb.log 2>&1");
  Start();
}

PostgresServer::~PostgresServer() {
  try {
    Stop();
  } catch (...) {
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string PostgresServer::uri() const {
  return "postgresql://lather@127.0.0.1:" + std::to_string(port_) + "/postgres";
}

std::string PostgresServer::Run(const std::string& command) const {
  // From /: the postgres user may not enter the test's working folder (a checkout in a 0700 folder).
  const std::string full = as_postgres_ ? "runuser -u postgres -- sh -c 'cd / && " + command + "'" : command;
  const CommandResult r = RunCommand(full, 60);
  if (r.exit_code != 0) throw std::runtime_error("'" + command + "' failed (" + std::to_string(r.exit_code) + "): " + r.output);
  return r.output;
}

void PostgresServer::Start() {
  if (running_) return;
  Run(bin_ + "/pg_ctl -D " + dir_ + "/data -w -t 30 -l " + dir_ + "/server.log -o \"-p " + std::to_string(port_) +
      " -k " + dir_ + " -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on\" start >/dev/null");
  running_ = true;
}

void PostgresServer::Stop() {
  if (!running_) return;
  Run(bin_ + "/pg_ctl -D " + dir_ + "/data -w -t 30 -m fast stop >/dev/null");
  running_ = false;
}

int PostgresServer::TcpClients() const {
  // client_addr is null for Unix-socket connections (this query's own) and for the server's own processes.
  const std::string out = Run(bin_ + "/psql -X -At -h " + dir_ + " -p " + std::to_string(port_) +
                              " -U lather -d postgres -c \"SELECT count(*) FROM pg_stat_activity WHERE client_addr "
                              "IS NOT NULL\"");
  // The count is the last line (stderr is in the output too).
  const size_t end = out.find_last_not_of("\n");
  const size_t start = out.find_last_of('\n', end);
  return std::stoi(out.substr(start == std::string::npos ? 0 : start + 1));
}

bool PostgresServer::WaitForNoTcpClients(std::chrono::milliseconds limit) const {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (TcpClients() > 0) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace lather::test
