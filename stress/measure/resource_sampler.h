// ResourceSampler: reads what the harness measures outside its own sockets: client CPU
// (getrusage), the CPU of each watched server-side process (/proc/PID/stat with its descendants, or the
// server's /metrics process_cpu_seconds_total), and the interface's byte and packet counters
// (/proc/net/dev) and TCP retransmissions (/proc/net/snmp). The server side is a list of instances, each
// belonging to a named component (one "server", or a farm's nodes, its load balancer and its database);
// one component is "serving": its sum is the server the verdict judges. Snapshots are cheap; take one at
// each end of the window and subtract. Not thread-safe: use one sampler from one thread.
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
  double host_busy_seconds = -1;   // CPU time of every process on the machine (/proc/stat), < 0 unknown
  // Per watched instance, in the sampler's order: CPU seconds so far (< 0 unknown) and the cores its
  // /metrics declares (lather_cpu_cores; 0 unknown).
  std::vector<double> instance_cpu_seconds;
  std::vector<double> instance_metrics_cores;
  // Per watched instance with a PID: its cgroup's CFS bandwidth periods so far and those it was throttled in
  // (CgroupCpuThrottling; -1 without a quota).
  std::vector<double> instance_periods;
  std::vector<double> instance_throttled_periods;
};

// One process or /metrics endpoint the harness watches on the server side.
struct WatchedInstance {
  std::string component = "server";  // instances with one name are one component (e.g. "node")
  pid_t pid = 0;                     // 0: none (the CPU comes from /metrics, or stays unknown)
  std::string metrics_host;          // numeric IPv4 address of its /metrics; "" for none
  int metrics_port = 0;
  bool metrics_tls = false;          // read /metrics over https with the sampler's TLS context
};

// What is read of the server only at the ends of the window: its threads' CPU (with a server PID) and
// Lather's request timings (when its /metrics answers).
struct ServerDetail {
  std::vector<ThreadCpu> threads;  // empty: unknown (the threads of every serving instance with a PID)
  LatherTimings metrics;           // metrics.known false: unknown (summed over the serving instances)
};

class ResourceSampler {
 public:
  // `instances` on the server side; those of component `serving` make the server of the verdict. An
  // instance without a PID has its CPU from /metrics (or unknown); with a PID, /metrics (if served there)
  // still gives Lather's timings.
  ResourceSampler(std::vector<WatchedInstance> instances, std::string serving, std::string interface_name);

  // https /metrics are read over TLS with `tls` (not owned; it must outlive the sampler).
  void set_metrics_tls(const TlsContext* tls) { metrics_tls_ = tls; }

  const std::vector<WatchedInstance>& instances() const { return instances_; }
  const std::string& serving() const { return serving_; }

  ResourceSnapshot Take() const;
  // Per-thread CPU and Lather's timings; dearer than Take() (a /proc read per thread), so taken once at
  // each end of the window.
  ServerDetail TakeServerDetail() const;

  const std::string& interface_name() const { return interface_; }
  // Where the serving component's CPU comes from: "/proc/PID/stat" (a process and its descendants),
  // "/proc" (several), "/metrics", or "" (unknown).
  std::string server_cpu_source() const;
  // True when every instance of `component` has its CPU from /proc (it runs on this machine).
  bool FromProc(const std::string& component) const;

 private:
  double InstanceCpu(size_t i, double* metrics_cores) const;

  std::vector<WatchedInstance> instances_;
  std::string serving_;
  std::string interface_;
  mutable std::vector<char> metrics_work_;         // per instance: /metrics served process_cpu_seconds_total
  mutable std::vector<char> lather_metrics_work_;  // per instance: /metrics served Lather's timings
  const TlsContext* metrics_tls_ = nullptr;
};

// CPU seconds the whole machine has been busy (all cores: user, nice, system, irq, softirq, steal) from
// /proc/stat; -1 if unreadable.
double HostBusySeconds();
// CPU seconds (user + system) of this process so far.
double ProcessCpuSeconds();
// CPU seconds of process `pid` from /proc/PID/stat; -1 if unreadable.
double ProcCpuSeconds(pid_t pid);
// Cores `pid` may run on (0 = this process), from its affinity mask.
int AllowedCores(pid_t pid);
// Sums the readings of several servers' /metrics (known when any is).
void AddTimings(const LatherTimings& more, LatherTimings* sum);
// The network interface that carries traffic to `address` ("lo" for loopback), "" if unknown.
std::string InterfaceFor(const sockaddr_storage& address, socklen_t length);

}  // namespace lather
