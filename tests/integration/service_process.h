// ServiceProcess: the real lather-service binary run by a test on 127.0.0.1 port 0, in a fresh
// temporary folder (or on a store the test names), stopped with SIGTERM at the end. The engine is
// the default unless LATHER_TEST_ENGINE names one (CTest runs the Foundation suite with both).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace lather::test {

class ServiceProcess {
 public:
  // Starts the service with `store_uri` (default: a new SQLite file in a temp folder) and extra
  // flags; waits (at most 15 s) until it has written its port. With `max_open_files` > 0 the
  // service runs under that descriptor limit (RLIMIT_NOFILE, as `ulimit -n`). Throws
  // std::runtime_error if it cannot start.
  // `binary` replaces the built lather-service (a copy the test may overwrite, for hot swaps).
  explicit ServiceProcess(std::string store_uri = "", std::vector<std::string> extra_args = {},
                          int max_open_files = 0, std::string binary = "");
  // Stops the service if it still runs (SIGTERM, then SIGKILL after 15 s).
  ~ServiceProcess();

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/soap"; }
  const std::string& store_uri() const { return store_uri_; }
  const std::string& folder() const { return folder_; }

  // Sends SIGTERM and waits for the exit; returns the exit status (or -signal if killed).
  int Stop();

  // Everything the service wrote to stderr so far.
  std::string Log() const;

 private:
  std::string folder_;
  std::string store_uri_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// The path of a built executable (lather-service, lather-call, lather-stress), from the build's definitions.
std::string ServiceBinary();
std::string CallBinary();
std::string StressBinary();

// What a command printed (stdout and stderr together) and its exit code (-1 if it did not exit).
struct CommandResult {
  int exit_code = -1;
  std::string output;
};

// Runs `command` through the shell, ended after `timeout_seconds` by timeout(1).
CommandResult RunCommand(const std::string& command, int timeout_seconds = 30);

}  // namespace lather::test
