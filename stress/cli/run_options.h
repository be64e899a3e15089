// The parts of lather-stress's command line that a run, `compare` and `sweep` share: the flags
// (StressOptions, DefineFlags), checking them and building the request (PlanRun), and one measured run
// (ExecuteRun). Not thread-safe: one command line at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/flag_parser.h"
#include "stress/cli/server_side.h"
#include "stress/load/operation_preset.h"
#include "stress/report/report.h"

namespace lather {

constexpr int kExitThreshold = 1;
constexpr int kExitAllFailed = 2;
constexpr int kExitConnect = 3;
constexpr int kExitUsage = 64;

struct StressOptions {
  std::string url;                 // empty: start the embedded service
  int64_t threads = 0;             // 0: one per client core
  int64_t connections = 50;
  std::string duration = "10s";
  bool duration_given = false;
  int64_t total_calls = 0;
  std::string warmup = "2s";
  bool warmup_given = false;
  double rate = 0;
  std::string arrival = "uniform";
  int64_t pipeline = 1;
  bool no_keepalive = false;
  bool ab_keepalive = false;       // -k, accepted for ab's habit (keep-alive is on anyway)
  std::string op = "increment";
  int64_t samples = 100;
  bool soap12 = false;
  std::string counter;
  std::string body_file;
  std::string wsdl;                // --wsdl: build the request for --op from this WSDL
  std::string wsdl_port;           // --port: the WSDL's port (default: its first SOAP 1.1 port)
  std::vector<std::string> sets;   // --set path=value: the operation's fields
  int64_t validate = 0;            // --validate N: one response in N validated against the XSD
  std::vector<std::string> headers;
  std::string expect;
  std::string client = "raw";
  std::string timeout = "10s";
  std::string link;
  bool half_duplex = false;        // the link carries one direction at a time
  bool no_probe = false;           // no 1-connection probe during the warm-up
  bool receive_stamps = false;     // time answers at the kernel's receipt too (LoadOptions::receive_stamps)
  bool no_message_id = false;      // inc-counter without a wsa:MessageID per call
  std::vector<ServerSideValue> server_side;  // --server-pid and --metrics-url, in the order given
  std::string user;
  std::string password;
  int64_t server_threads = 0;
  bool no_pin = false;
  std::string json_file;
  std::string series_file;
  bool quiet = false;
  std::string max_p99;
  double min_rate = -1;
  int64_t max_errors = -1;
  std::string ca_file;             // https: extra trusted CAs
  bool insecure = false;           // https: no certificate checks
  bool help = false;
  // Issue 17: reports people look at, runs from several load hosts.
  std::string html_file;           // --html: the run as one self-contained HTML page
  std::string hgrm_file;           // --hgrm: HdrHistogram's percentile distribution text
  std::string start_at;            // --start-at: wait until then before the warm-up
};

// What a run needs beside its flags: the parsed settings and the request.
struct RunPlan {
  double duration = 0, warmup = 0, timeout = 0, max_p99 = -1, link = 1e9;
  bool embedded = false;  // no URL: the embedded service
  OperationPreset preset;
  std::string placement;  // the embedded service's cores and the client's
  int client_cores = 1;
  int64_t start_at_ns = 0;  // --start-at as Unix nanoseconds; 0: start now
};

// Defines every flag of a run on `f`, writing into `o`.
void DefineFlags(FlagParser* f, StressOptions* o);

// Checks the flags of a run and builds its request (a fresh message-id prefix each time); prints the
// error and returns its exit code on bad usage, 0 otherwise.
int PlanRun(StressOptions* options, RunPlan* plan);

// One measured run of `o` against o.url with `plan`: connects, warms up, measures, and concludes `report`
// (nothing printed but the live progress line and errors). Returns 0, or the exit code of the failure.
int ExecuteRun(StressOptions o, const RunPlan& plan, RunReport* report);

// Prints "lather-stress: MESSAGE" and returns kExitUsage.
int UsageError(const std::string& message);

// `lather-stress compare NAME=URL ...` and `lather-stress sweep URL` (argv[0] is the subcommand).
int CompareMain(int argc, char** argv);
int SweepMain(int argc, char** argv);

}  // namespace lather
