#include "stress/cli/embedded_service.h"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "common/log.h"
#include "service/server_start.h"

namespace lather {
namespace {

[[noreturn]] void RunChild(int port_pipe, const std::string& folder, const std::vector<int>& cpus, int threads) {
  if (!cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : cpus) CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
  }
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  SetLogProgramName("lather-stress (embedded service)");
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.store = "sqlite:" + folder + "/counters.db";
  options.threads = threads;
  options.shutdown_grace = std::chrono::milliseconds(2000);
  std::unique_ptr<Server> server;
  Status s = StartServer(options, &server);
  int port = s.ok() ? server->port() : 0;
  if (!s.ok()) LogLine("cannot start: " + s.message());
  if (write(port_pipe, &port, sizeof port) != sizeof port || !s.ok()) _exit(1);
  close(port_pipe);
  int signal_number = 0;
  sigwait(&stop, &signal_number);
  server->Stop();
  server->Wait();
  server.reset();
  _exit(0);
}

}  // namespace

EmbeddedService::~EmbeddedService() {
  Stop();
  if (!folder_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(folder_, ignored);
  }
}

Status EmbeddedService::Start(const std::vector<int>& server_cpus, int threads) {
  char pattern[] = "/tmp/lather-stress-XXXXXX";
  if (mkdtemp(pattern) == nullptr) return Status::IOError("cannot make a temporary folder");
  folder_ = pattern;
  int fds[2];
  if (pipe(fds) != 0) return Status::IOError("pipe failed");
  std::fflush(nullptr);
  pid_ = fork();
  if (pid_ < 0) return Status::IOError("fork failed");
  if (pid_ == 0) {
    close(fds[0]);
    RunChild(fds[1], folder_, server_cpus, threads);
  }
  close(fds[1]);
  pollfd p{fds[0], POLLIN, 0};
  int port = 0;
  const bool got = poll(&p, 1, 10000) == 1 && read(fds[0], &port, sizeof port) == sizeof port && port > 0;
  close(fds[0]);
  if (!got) {
    Stop();
    return Status::IOError("the embedded service did not start");
  }
  port_ = port;
  return Status::Ok();
}

int EmbeddedService::Stop() {
  if (pid_ <= 0) return 0;
  kill(pid_, SIGTERM);
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace lather
