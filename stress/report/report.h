// Report: turns a finished run into what the user reads: the summary (calls/s, latency
// percentiles, bytes per call with the envelope share, bandwidth, CPU, the verdict), the
// ApacheBench-style block, a versioned JSON document and the per-second CSV series.
#pragma once

#include <Poco/JSON/Object.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "stress/load/load_runner.h"
#include "stress/measure/resource_sampler.h"
#include "stress/report/run_context.h"
#include "stress/verdict/verdict.h"

namespace lather {

// 2: the full latency histograms, the per-second series, the verdict's inputs and the run context
// (stress/report/run_json.h).
inline constexpr char kReportSchema[] = "lather-stress/2";

// What was asked for, as the report shows it.
struct StressSettings {
  std::string url;
  std::string op;                 // increment, hello, inc-counter, echo, or "body FILE"
  std::string client = "raw";
  int soap_version = 1;
  size_t samples = 0;
  int threads = 1;
  int connections = 1;
  int pipeline = 1;
  double duration_seconds = 0;
  uint64_t total_calls = 0;
  double warmup_seconds = 0;
  double rate = 0;                // 0: closed model
  bool poisson = false;
  bool keep_alive = true;
  bool embedded = false;          // the harness started the service itself
  std::string placement;          // e.g. "server on cpu 0, client on cpu 1"
};

struct RunReport {
  StressSettings settings;
  LoadResult load;
  ResourceSnapshot before, after;
  std::string interface_name;
  std::string server_cpu_source;  // "" when unknown
  double client_cores = 1;
  double server_cores = 0;
  double link_bits_per_second = 1e9;
  bool link_declared = false;
  bool half_duplex = false;       // --half-duplex: both directions share the link
  ServerDetail server_before, server_after;  // the server's threads and Lather timings at the window's ends
  double unloaded_latency_seconds = -1;      // mean latency of the 1-connection probe; < 0 when not probed
  bool shared_cores = false;      // client and server draw from the same cores
  // A farm (--server-pid / --metrics-url NAME=...): the sampler's instances, each one's budget in cores
  // (its cgroup quota or affinity; 0 unknown) and the serving component's name; instances empty for one
  // server.
  std::vector<WatchedInstance> instances;
  std::vector<double> instance_budget_cores;
  std::string serving;
  RunFigures figures;
  Verdict verdict;
  std::vector<std::pair<double, double>> cpu_per_second;  // (client cores, server cores) per second
  RunContext context;             // where and when it ran, its name, what a merge was made of (run_context.h)

  // Derived figures.
  uint64_t calls() const { return load.total.calls_ok() + load.total.failures(); }
  double calls_per_second() const;
  double samples_per_second() const;         // echo: top-level samples echoed per second (ok calls), else 0
  double socket_megabytes_per_second() const;  // bytes both ways at the sockets per second, in 10^6 bytes
  double wire_bytes_per_call() const;  // from the interface counters, or the socket bytes
  // The same per direction: client -> server (up) and server -> client (down). On a real interface its
  // transmit and receive counters; on loopback, which counts each packet once, the socket bytes of each
  // direction plus half the TCP/IP bytes.
  double wire_up_bytes_per_call() const;
  double wire_down_bytes_per_call() const;
  double envelope_share() const;
};

// Fills figures and verdict from the rest.
void Conclude(RunReport* report);

void PrintReport(const RunReport& report, std::FILE* out);
void PrintApacheBenchBlock(const RunReport& report, std::FILE* out);
std::string ReportJson(const RunReport& report);
// The same document as a Poco object, for documents that hold runs (compare's, sweep's).
Poco::JSON::Object ReportObject(const RunReport& report);
Status WriteSeriesCsv(const RunReport& report, const std::string& path);

}  // namespace lather
