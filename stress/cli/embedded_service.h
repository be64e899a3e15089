// EmbeddedService: the lather service lather-stress starts when no URL is given: a child process
// forked from the harness (so its CPU is measured apart, from /proc/PID/stat) serving on a free
// loopback port with a throwaway SQLite store, pinned to its own cores when the machine has two
// or more. Start() must run before the harness starts any thread (it forks).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/status.h"

namespace lather {

class EmbeddedService {
 public:
  EmbeddedService() = default;
  ~EmbeddedService();  // stops the child if still running
  EmbeddedService(const EmbeddedService&) = delete;
  EmbeddedService& operator=(const EmbeddedService&) = delete;

  // Forks the service onto `server_cpus` (empty: no pinning) with `threads` loops. IOError if the
  // child cannot start within 10 s.
  Status Start(const std::vector<int>& server_cpus, int threads);

  // SIGTERM, then wait (10 s at most, then SIGKILL). Returns the child's exit code.
  int Stop();

  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/soap"; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string folder_;
};

}  // namespace lather
