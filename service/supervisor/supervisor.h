// Supervisor: lather-service --workers N. It owns the listening socket (and the admin listener) and
// nothing else; N worker processes, each today's whole service (its loops, pool, store connection and
// caches warm between calls), accept from the inherited socket. It replaces a worker that dies (any
// signal, any exit; consecutive failures at start back off exponentially, capped at 10 s) or hangs (its
// heartbeat stops or reports a stall past --hang-timeout: SIGTERM, SIGKILL after 1 s), swaps in the binary
// on disk on SIGHUP or POST /reload (new workers first; the old ones drain only once the new serve; a new
// binary that fails to start leaves the old workers serving) and re-executes itself on SIGUSR2 with the
// sockets and workers inherited. SIGTERM/SIGINT drain every worker, then it exits. docs/operations.md.
//
// Single-threaded: Run() owns all state; the admin listener's thread reads a snapshot under a mutex.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace lather {

struct SupervisorOptions {
  int workers = 2;                   // worker processes
  std::string listen = "127.0.0.1:8080";
  int listen_fd = -1;                // a listening socket to use instead of binding `listen` (systemd)
  int receive_buffer = 0;            // SO_RCVBUF of the listening socket (--receive-buffer); 0: kernel default
  std::string admin_listen;          // the supervisor's /metrics (summed), /healthz, POST /reload; "" none
  std::string port_file;             // the bound port, written once the first workers serve
  std::string pid_file;              // the supervisor's PID, for `lather-service reload --pid-file`
  std::chrono::milliseconds hang_timeout{10000};
  std::chrono::milliseconds shutdown_grace{10000};  // a draining worker's time before SIGKILL (plus 2 s)
  std::string binary;                // the program each worker runs (read from disk at every start)
  std::vector<std::string> worker_args;  // argv[1..] of every worker (flags of the service)
  std::vector<std::string> supervisor_argv;  // the supervisor's own argv, for re-executing it (SIGUSR2)
};

// Runs the supervisor until SIGTERM/SIGINT and its workers have drained. Returns the exit code: 0 after a
// clean stop, 1 if the socket cannot be bound or the first workers never start.
int RunSupervisor(const SupervisorOptions& options);

}  // namespace lather
