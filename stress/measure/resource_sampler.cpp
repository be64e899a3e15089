#include "stress/measure/resource_sampler.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "stress/measure/clock.h"
#include "stress/measure/metrics_scrape.h"
#include "stress/measure/thread_cpu.h"

namespace lather {

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double ProcCpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return -1;
  return StatCpuSeconds(line);
}

int AllowedCores(pid_t pid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(pid, sizeof set, &set) != 0) return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  return CPU_COUNT(&set);
}

std::string InterfaceFor(const sockaddr_storage& address, socklen_t length) {
  // Let the kernel pick the route: a connected UDP socket sends nothing.
  const int fd = socket(address.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  sockaddr_storage local{};
  socklen_t local_length = sizeof local;
  const bool ok = connect(fd, reinterpret_cast<const sockaddr*>(&address), length) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_length) == 0;
  close(fd);
  if (!ok) return "";
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string name;
  for (ifaddrs* a = list; a != nullptr && name.empty(); a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != local.ss_family) continue;
    if (local.ss_family == AF_INET) {
      const auto* x = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
      const auto* y = reinterpret_cast<const sockaddr_in*>(&local);
      if (x->sin_addr.s_addr == y->sin_addr.s_addr) name = a->ifa_name;
    } else if (local.ss_family == AF_INET6) {
      const auto* x = reinterpret_cast<const sockaddr_in6*>(a->ifa_addr);
      const auto* y = reinterpret_cast<const sockaddr_in6*>(&local);
      if (std::memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr) == 0) name = a->ifa_name;
    }
  }
  freeifaddrs(list);
  return name;
}

namespace {

bool ReadInterface(const std::string& name, ResourceSnapshot* s) {
  std::ifstream in("/proc/net/dev");
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string iface = line.substr(0, colon);
    iface.erase(0, iface.find_first_not_of(' '));
    if (iface != name) continue;
    std::istringstream fields(line.substr(colon + 1));
    unsigned long long v[16] = {};
    for (auto& x : v) fields >> x;
    s->rx_bytes = v[0];
    s->rx_packets = v[1];
    s->tx_bytes = v[8];
    s->tx_packets = v[9];
    return true;
  }
  return false;
}

uint64_t ReadTcpRetransmits() {
  std::ifstream in("/proc/net/snmp");
  std::string names, values;
  while (std::getline(in, names)) {
    if (names.rfind("Tcp:", 0) != 0 || !std::getline(in, values)) continue;
    std::istringstream n(names), v(values);
    std::string name, value;
    while (n >> name && v >> value) {
      if (name == "RetransSegs") return std::stoull(value);
    }
  }
  return 0;
}

// process_cpu_seconds_total (and lather_cpu_cores into *cores, if served) from the server's /metrics
// (Prometheus text); -1 if unavailable.
double MetricsCpuSeconds(const std::string& host, int port, const TlsContext* tls, double* cores) {
  const std::string text = FetchMetrics(host, port, tls);
  const double cpu = MetricValue(text, "process_cpu_seconds_total");
  const double served_cores = MetricValue(text, "lather_cpu_cores");
  if (served_cores >= 0) *cores = served_cores;
  return cpu;
}

}  // namespace

ResourceSampler::ResourceSampler(pid_t server_pid, std::string metrics_host, int metrics_port,
                                 std::string interface_name)
    : server_pid_(server_pid), metrics_host_(std::move(metrics_host)), metrics_port_(metrics_port),
      interface_(std::move(interface_name)) {}

std::string ResourceSampler::server_cpu_source() const {
  if (server_pid_ > 0) return "/proc/" + std::to_string(server_pid_) + "/stat";
  if (!metrics_host_.empty() && metrics_work_) return "/metrics";
  return "";
}

ResourceSnapshot ResourceSampler::Take() const {
  ResourceSnapshot s;
  s.at_ns = NowNanos();
  s.client_cpu_seconds = ProcessCpuSeconds();
  if (server_pid_ > 0) {
    s.server_cpu_seconds = ProcCpuSeconds(server_pid_);
  } else if (!metrics_host_.empty() && metrics_work_) {
    s.server_cpu_seconds = MetricsCpuSeconds(metrics_host_, metrics_port_, metrics_tls_, &s.server_cores);
    if (s.server_cpu_seconds < 0) metrics_work_ = false;  // ask once; no /metrics there
  }
  if (!interface_.empty()) s.interface_known = ReadInterface(interface_, &s);
  s.tcp_retransmits = ReadTcpRetransmits();
  return s;
}

ServerDetail ResourceSampler::TakeServerDetail() const {
  ServerDetail d;
  if (server_pid_ > 0) d.threads = ReadThreadCpu(server_pid_);
  if (!metrics_host_.empty() && lather_metrics_work_) {
    d.metrics = ReadLatherTimings(FetchMetrics(metrics_host_, metrics_port_, metrics_tls_));
    if (!d.metrics.known) lather_metrics_work_ = false;  // ask once; not a Lather service
  }
  return d;
}

}  // namespace lather
