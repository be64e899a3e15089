// ResourceSampler: reads what the harness measures outside its own sockets: client CPU
// (getrusage), server CPU (/proc/PID/stat, or the server's /metrics process_cpu_seconds_total),
// and the interface's byte and packet counters (/proc/net/dev) and TCP retransmissions
// (/proc/net/snmp). Snapshots are cheap; take one at each end of the window and subtract.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "stress/measure/metrics_scrape.h"
#include "stress/measure/thread_cpu.h"

namespace lather {

class TlsContext;

struct ResourceSnapshot {
  uint64_t at_ns = 0;
  double client_cpu_seconds = 0;
  double server_cpu_seconds = -1;  // < 0: unknown
  double server_cores = 0;         // from /metrics' lather_cpu_cores; 0: unknown
  bool interface_known = false;
  uint64_t rx_bytes = 0, tx_bytes = 0, rx_packets = 0, tx_packets = 0;
  uint64_t tcp_retransmits = 0;
};

// What is read of the server only at the ends of the window: its threads' CPU (with a server PID) and
// Lather's request timings (when its /metrics answers).
struct ServerDetail {
  std::vector<ThreadCpu> threads;  // empty: unknown
  LatherTimings metrics;           // metrics.known false: unknown
};

class ResourceSampler {
 public:
  // `server_pid` 0: the server's CPU comes from /metrics at `metrics_host` ("" for none) or stays unknown;
  // with a PID, /metrics (if served there) still gives Lather's timings.
  ResourceSampler(pid_t server_pid, std::string metrics_host, int metrics_port, std::string interface_name);

  // https targets: /metrics is read over TLS with `tls` (not owned; it must outlive the sampler).
  void set_metrics_tls(const TlsContext* tls) { metrics_tls_ = tls; }

  ResourceSnapshot Take() const;
  // Per-thread CPU and Lather's timings; dearer than Take() (a /proc read per thread), so taken once at
  // each end of the window.
  ServerDetail TakeServerDetail() const;

  const std::string& interface_name() const { return interface_; }
  // Where the server CPU figure comes from: "/proc/PID/stat", "/metrics" or "" (unknown).
  std::string server_cpu_source() const;

 private:
  pid_t server_pid_;
  std::string metrics_host_;
  int metrics_port_;
  std::string interface_;
  mutable bool metrics_work_ = true;         // /metrics served process_cpu_seconds_total
  mutable bool lather_metrics_work_ = true;  // /metrics served Lather's timings
  const TlsContext* metrics_tls_ = nullptr;
};

// CPU seconds (user + system) of this process so far.
double ProcessCpuSeconds();
// CPU seconds of process `pid` from /proc/PID/stat; -1 if unreadable.
double ProcCpuSeconds(pid_t pid);
// Cores `pid` may run on (0 = this process), from its affinity mask.
int AllowedCores(pid_t pid);
// The network interface that carries traffic to `address` ("lo" for loopback), "" if unknown.
std::string InterfaceFor(const sockaddr_storage& address, socklen_t length);

}  // namespace lather
