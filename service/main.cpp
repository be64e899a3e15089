// lather-service: serves the Lather SOAP contract (wsdl/lather.wsdl) over HTTP on /soap.

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "LatherSoap.nsmap"
#include "common/log.h"
#include "common/tls.h"
#include "service/auth/authenticator.h"
#include "service/memory/memory_return.h"
#include "service/server_start.h"
#include "service/service_flags.h"
#include "service/supervisor/start_priority.h"
#include "service/supervisor/supervisor.h"
#include "service/supervisor/worker_channel.h"
#include "service/supervisor/worker_heartbeat.h"

namespace {

// Exit codes: 0 after a clean stop, 1 runtime failure (address in use, store), 64 bad usage.
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 64;

// `lather-service reload --pid-file FILE`: SIGHUP to the supervisor named in FILE.
int Reload(int argc, char** argv) {
  std::string pid_file;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--pid-file" && i + 1 < argc) {
      pid_file = argv[++i];
    } else if (arg.rfind("--pid-file=", 0) == 0) {
      pid_file = arg.substr(11);
    } else {
      std::fprintf(stderr, "lather-service reload: unexpected argument '%s' (usage: lather-service reload --pid-file FILE)\n",
                   arg.c_str());
      return kExitUsage;
    }
  }
  if (pid_file.empty()) {
    std::fprintf(stderr, "lather-service reload: --pid-file FILE is required\n");
    return kExitUsage;
  }
  FILE* f = std::fopen(pid_file.c_str(), "r");
  int pid = 0;
  const bool read = f != nullptr && std::fscanf(f, "%d", &pid) == 1 && pid > 1;
  if (f != nullptr) std::fclose(f);
  if (!read) {
    std::fprintf(stderr, "lather-service reload: cannot read a PID from %s\n", pid_file.c_str());
    return kExitFailure;
  }
  if (::kill(pid, SIGHUP) != 0) {
    std::fprintf(stderr, "lather-service reload: cannot signal PID %d: %s\n", pid, std::strerror(errno));
    return kExitFailure;
  }
  std::printf("sent SIGHUP to the supervisor (PID %d): new workers start from the binary on disk\n", pid);
  return 0;
}

// The socket systemd handed over (LISTEN_FDS, sd_listen_fds(3)), -1 without one.
int SystemdListenFd() {
  const char* pid = std::getenv("LISTEN_PID");
  const char* fds = std::getenv("LISTEN_FDS");
  if (pid == nullptr || fds == nullptr || std::atoi(pid) != ::getpid() || std::atoi(fds) < 1) return -1;
  ::unsetenv("LISTEN_PID");
  ::unsetenv("LISTEN_FDS");
  ::unsetenv("LISTEN_FDNAMES");
  return 3;  // SD_LISTEN_FDS_START
}

// The port of "host:port".
uint16_t PortOf(const std::string& address) {
  const size_t colon = address.rfind(':');
  return colon == std::string::npos ? 0 : static_cast<uint16_t>(std::atoi(address.c_str() + colon + 1));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "reload") return Reload(argc, argv);
  const int worker_fd = lather::EnvInt(lather::kWorkerFdEnv);  // started by a --workers supervisor
  const int worker_index = lather::EnvInt(lather::kWorkerIndexEnv);
  lather::SetLogProgramName(worker_fd >= 0 ? "lather-service[worker " + std::to_string(worker_index) + "]"
                                           : "lather-service");
  lather::ServiceFlags flags;
  lather::Status s = lather::ParseServiceFlags(argc, argv, &flags);
  if (flags.help) {
    std::fputs(flags.usage.c_str(), stdout);
    return 0;
  }
  if (!s.ok()) {
    std::fprintf(stderr, "lather-service: %s\n", s.message().c_str());
    return kExitUsage;
  }
  lather::ServerOptions& options = flags.server;
  const std::string& port_file = flags.port_file;
  const std::string& auth_file = flags.auth_file;
  const std::string& tls_cert = flags.tls_cert;
  const std::string& tls_key = flags.tls_key;
  const int systemd_fd = SystemdListenFd();

  if (flags.workers > 0 && worker_fd < 0) {
    lather::SupervisorOptions supervisor;
    supervisor.workers = flags.workers;
    supervisor.listen = options.listen;
    supervisor.listen_fd = systemd_fd;
    supervisor.receive_buffer = options.receive_buffer;
    supervisor.admin_listen = options.admin_listen;
    supervisor.port_file = port_file;
    supervisor.pid_file = flags.pid_file;
    supervisor.hang_timeout = flags.hang_timeout;
    supervisor.shutdown_grace = options.shutdown_grace;
    char binary[4096];
    const ssize_t n = ::readlink("/proc/self/exe", binary, sizeof binary - 1);
    if (n <= 0) {
      std::fprintf(stderr, "lather-service: cannot find its own binary (/proc/self/exe)\n");
      return kExitFailure;
    }
    // The path, not the inode: a new build written there is what the next worker runs. "(deleted)" is
    // what /proc shows once the file was replaced.
    supervisor.binary.assign(binary, static_cast<size_t>(n));
    const std::string deleted = " (deleted)";
    if (supervisor.binary.size() > deleted.size() &&
        supervisor.binary.compare(supervisor.binary.size() - deleted.size(), deleted.size(), deleted) == 0) {
      supervisor.binary.resize(supervisor.binary.size() - deleted.size());
    }
    supervisor.worker_args = lather::WorkerArguments(argc, argv);
    supervisor.supervisor_argv.assign(argv, argv + argc);
    return lather::RunSupervisor(supervisor);
  }
  if (worker_fd >= 0) {
    options.listen_fd = lather::EnvInt(lather::kListenFdEnv);
    if (!flags.drain_idle_given) options.drain_idle = std::chrono::milliseconds(1000);
  } else if (systemd_fd >= 0) {
    options.listen_fd = systemd_fd;
  }
  std::unique_ptr<lather::Authenticator> authenticator;
  if (!auth_file.empty()) {
    s = lather::Authenticator::Load(auth_file, &authenticator);
    if (!s.ok()) {
      std::fprintf(stderr, "lather-service: %s\n", s.message().c_str());
      return s.kind() == lather::Status::Kind::kInvalidArgument ? kExitUsage : kExitFailure;
    }
    options.soap.authenticator = authenticator.get();
    lather::LogLine("authentication: " + std::to_string(authenticator->user_count()) + " user(s) from " + auth_file +
                    "; required for " + (options.soap.auth_scope == lather::AuthScope::kAll ? "every operation" : "IncCounter"));
    if (tls_cert.empty()) {
      lather::LogLine("warning: --auth-file without TLS: passwords cross the network in clear text (HTTP Basic, "
                      "UsernameToken PasswordText); serve over TLS (--tls-cert) or behind a TLS-terminating proxy");
    }
  }

  if (!tls_cert.empty()) {
    std::unique_ptr<lather::TlsContext> tls;
    s = lather::TlsContext::ForServer(tls_cert, tls_key, &tls);
    if (!s.ok()) {
      lather::LogLine("cannot start: " + s.message());
      return kExitFailure;
    }
    options.tls = std::move(tls);
  }

  // SIGINT/SIGTERM are taken by sigwait() below; every thread started later inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  // Large buffers and echo objects stay in a few shared arenas between requests and go back to the
  // system once large requests stop (service/memory/memory_return.h).
  lather::ConfigureAllocator();

  std::unique_ptr<lather::Server> server;
  s = lather::StartServer(options, &server);
  if (!s.ok()) {
    lather::LogLine("cannot start: " + s.message());
    return s.kind() == lather::Status::Kind::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  // A worker started at a lower priority beside the serving ones (service/supervisor/start_priority.h).
  lather::TakeNormalPriority();
  lather::LogLine(std::string("listening on ") + (options.tls ? "https://" : "http://") + server->address() + "/soap (engine " +
                  (options.engine == lather::Engine::kClassic ? "classic" : "event") + ", store " + options.store + ")");
  if (!server->admin_address().empty()) {
    lather::LogLine("admin listener on http://" + server->admin_address() + " (/metrics, /healthz)");
  }
  std::unique_ptr<lather::WorkerHeartbeat> heartbeat;
  if (worker_fd >= 0) {
    lather::Server* raw = server.get();
    heartbeat = std::make_unique<lather::WorkerHeartbeat>(
        worker_fd, PortOf(server->admin_address()), [raw] { return raw->StalledMillis(); },
        [raw] { return raw->RequestsAnswered(); });
  }
  if (!port_file.empty()) {
    FILE* f = std::fopen(port_file.c_str(), "w");
    if (f == nullptr || std::fprintf(f, "%u\n", server->port()) < 0 || std::fclose(f) != 0) {
      lather::LogLine("cannot write --port-file " + port_file);
      return kExitFailure;
    }
  }

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  lather::LogLine(std::string("stopping on ") + (signal_number == SIGINT ? "SIGINT" : "SIGTERM"));
  server->Stop();
  server->Wait();
  heartbeat.reset();
  lather::LogLine("stopped");
  return 0;
}
