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
#include "stress/measure/process_tree.h"
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

double HostBusySeconds() {
  std::ifstream in("/proc/stat");
  std::string label;
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(in >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) || label != "cpu") return -1;
  return static_cast<double>(user + nice + system + irq + softirq + steal) / static_cast<double>(sysconf(_SC_CLK_TCK));
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
  // A destination that is an address of this machine (a bridge's, say) is reached over loopback, whatever
  // interface holds the address.
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != address.ss_family) continue;
    const bool same =
        address.ss_family == AF_INET
            ? reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr.s_addr ==
                  reinterpret_cast<const sockaddr_in*>(&address)->sin_addr.s_addr
            : address.ss_family == AF_INET6 &&
                  std::memcmp(&reinterpret_cast<const sockaddr_in6*>(a->ifa_addr)->sin6_addr,
                              &reinterpret_cast<const sockaddr_in6*>(&address)->sin6_addr, sizeof(in6_addr)) == 0;
    if (!same) continue;
    for (ifaddrs* l = list; l != nullptr; l = l->ifa_next) {
      if ((l->ifa_flags & IFF_LOOPBACK) != 0) {
        const std::string loopback = l->ifa_name;
        freeifaddrs(list);
        return loopback;
      }
    }
  }
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

ResourceSampler::ResourceSampler(std::vector<WatchedInstance> instances, std::string serving,
                                 std::string interface_name)
    : instances_(std::move(instances)), serving_(std::move(serving)), interface_(std::move(interface_name)),
      metrics_work_(instances_.size(), 1), lather_metrics_work_(instances_.size(), 1) {}

bool ResourceSampler::FromProc(const std::string& component) const {
  bool any = false;
  for (const WatchedInstance& w : instances_) {
    if (w.component != component) continue;
    if (w.pid <= 0) return false;
    any = true;
  }
  return any;
}

std::string ResourceSampler::server_cpu_source() const {
  std::string source;
  int serving = 0;
  for (size_t i = 0; i < instances_.size(); ++i) {
    const WatchedInstance& w = instances_[i];
    if (w.component != serving_) continue;
    ++serving;
    if (w.pid > 0) {
      source = "/proc/" + std::to_string(w.pid) + "/stat";
    } else if (!w.metrics_host.empty() && metrics_work_[i]) {
      source = "/metrics";
    } else {
      return "";
    }
  }
  if (serving > 1 && FromProc(serving_)) return "/proc";
  return source;
}

double ResourceSampler::InstanceCpu(size_t i, double* metrics_cores) const {
  const WatchedInstance& w = instances_[i];
  if (w.pid > 0) return ProcessTreeCpuSeconds(w.pid);
  if (w.metrics_host.empty() || !metrics_work_[i]) return -1;
  const double cpu = MetricsCpuSeconds(w.metrics_host, w.metrics_port, w.metrics_tls ? metrics_tls_ : nullptr,
                                       metrics_cores);
  if (cpu < 0) metrics_work_[i] = 0;  // ask once; no process_cpu_seconds_total there
  return cpu;
}

ResourceSnapshot ResourceSampler::Take() const {
  ResourceSnapshot s;
  s.at_ns = NowNanos();
  s.client_cpu_seconds = ProcessCpuSeconds();
  s.instance_cpu_seconds.resize(instances_.size(), -1);
  s.instance_metrics_cores.resize(instances_.size(), 0);
  s.instance_periods.resize(instances_.size(), -1);
  s.instance_throttled_periods.resize(instances_.size(), -1);
  bool serving_known = false, serving_unknown = false;
  double serving_cpu = 0, serving_cores = 0;
  for (size_t i = 0; i < instances_.size(); ++i) {
    s.instance_cpu_seconds[i] = InstanceCpu(i, &s.instance_metrics_cores[i]);
    if (instances_[i].pid > 0) {
      const CgroupThrottling throttling = CgroupCpuThrottling(instances_[i].pid);
      s.instance_periods[i] = throttling.periods;
      s.instance_throttled_periods[i] = throttling.throttled_periods;
    }
    if (instances_[i].component != serving_) continue;
    if (s.instance_cpu_seconds[i] < 0) {
      serving_unknown = true;
    } else {
      serving_known = true;
      serving_cpu += s.instance_cpu_seconds[i];
      serving_cores += s.instance_metrics_cores[i];
    }
  }
  if (serving_known && !serving_unknown) {
    s.server_cpu_seconds = serving_cpu;
    s.server_cores = serving_cores;
  }
  if (!interface_.empty()) s.interface_known = ReadInterface(interface_, &s);
  s.tcp_retransmits = ReadTcpRetransmits();
  s.host_busy_seconds = HostBusySeconds();
  return s;
}

ServerDetail ResourceSampler::TakeServerDetail() const {
  ServerDetail d;
  for (size_t i = 0; i < instances_.size(); ++i) {
    const WatchedInstance& w = instances_[i];
    if (w.component != serving_) continue;
    if (w.pid > 0) {
      const std::vector<ThreadCpu> threads = ReadThreadCpu(w.pid);
      d.threads.insert(d.threads.end(), threads.begin(), threads.end());
    }
    if (!w.metrics_host.empty() && lather_metrics_work_[i]) {
      const LatherTimings t =
          ReadLatherTimings(FetchMetrics(w.metrics_host, w.metrics_port, w.metrics_tls ? metrics_tls_ : nullptr));
      if (!t.known) lather_metrics_work_[i] = 0;  // ask once; not a Lather service
      AddTimings(t, &d.metrics);
    }
  }
  return d;
}

void AddTimings(const LatherTimings& more, LatherTimings* sum) {
  if (!more.known) return;
  sum->known = true;
  sum->exec_sum += more.exec_sum;
  sum->exec_count += more.exec_count;
  sum->wait_sum += more.wait_sum;
  sum->wait_count += more.wait_count;
  sum->parse_sum += more.parse_sum;
  sum->serialize_sum += more.serialize_sum;
}

}  // namespace lather
