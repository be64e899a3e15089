// The command line of lather-service: every flag into ServiceFlags (the ServerOptions of the service,
// and what main and the --workers supervisor need besides), and the flags a supervisor hands its workers.
// Functions; thread-safe.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/status.h"
#include "service/dispatch/server_options.h"

namespace lather {

struct ServiceFlags {
  ServerOptions server;
  bool help = false;
  std::string usage;      // the --help text
  std::string port_file;  // write the bound port here once serving
  std::string auth_file;
  std::string tls_cert, tls_key;
  int workers = 0;        // --workers: 0 is one process
  std::chrono::milliseconds hang_timeout{10000};
  std::string pid_file;   // --workers: the supervisor's PID
  bool drain_idle_given = false;  // --drain-idle was on the command line (else workers drain 1 s)
};

// Parses argv into *out (defaults for what is absent). InvalidArgument with a one-line reason for bad
// usage; *out->usage is set either way.
Status ParseServiceFlags(int argc, char** argv, ServiceFlags* out);

// argv[1..] without the supervisor's own flags (--workers, --hang-timeout, --pid-file, --port-file,
// --admin-listen), plus --admin-listen 127.0.0.1:0: what each worker is started with.
std::vector<std::string> WorkerArguments(int argc, char** argv);

}  // namespace lather
