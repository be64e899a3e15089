#include "stress/report/run_merge.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "stress/report/units.h"

namespace lather {
namespace {

std::string Num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

// What makes `b` another experiment than `a`, or "" when the two can be merged.
std::string Difference(const RunReport& a, const RunReport& b) {
  const StressSettings& x = a.settings;
  const StressSettings& y = b.settings;
  auto differs = [](const std::string& what, const std::string& p, const std::string& q) {
    return p == q ? std::string() : what + " " + q + " vs " + p;
  };
  for (const std::string& d :
       {differs("target", x.url, y.url), differs("operation", x.op, y.op), differs("client", x.client, y.client),
        differs("SOAP version", "1." + std::to_string(x.soap_version), "1." + std::to_string(y.soap_version)),
        differs("samples", std::to_string(x.samples), std::to_string(y.samples)),
        differs("load model", x.rate > 0 ? "open" : "closed", y.rate > 0 ? "open" : "closed"),
        differs("arrival", x.poisson ? "poisson" : "uniform", y.poisson ? "poisson" : "uniform"),
        differs("pipeline", std::to_string(x.pipeline), std::to_string(y.pipeline)),
        differs("keep-alive", x.keep_alive ? "on" : "off", y.keep_alive ? "on" : "off"),
        differs("duration", Num(x.duration_seconds) + " s", Num(y.duration_seconds) + " s"),
        differs("call count (-n)", std::to_string(x.total_calls), std::to_string(y.total_calls)),
        differs("link (--link)", Num(a.link_bits_per_second) + (a.link_declared ? " bit/s" : " bit/s assumed"),
                Num(b.link_bits_per_second) + (b.link_declared ? " bit/s" : " bit/s assumed")),
        differs("duplex", a.half_duplex ? "half" : "full", b.half_duplex ? "half" : "full")}) {
    if (!d.empty()) return d;
  }
  return "";
}

// True when the measured windows of both are known and overlap for less than half of the shorter one.
bool Apart(const RunContext& a, const RunContext& b, double* seconds_apart) {
  if (a.window_start_unix_ns <= 0 || b.window_start_unix_ns <= 0 || a.window_end_unix_ns <= 0 ||
      b.window_end_unix_ns <= 0) {
    return false;
  }
  const double overlap =
      static_cast<double>(std::min(a.window_end_unix_ns, b.window_end_unix_ns) -
                          std::max(a.window_start_unix_ns, b.window_start_unix_ns)) / 1e9;
  const double shorter = static_cast<double>(std::min(a.window_end_unix_ns - a.window_start_unix_ns,
                                                      b.window_end_unix_ns - b.window_start_unix_ns)) / 1e9;
  *seconds_apart = std::fabs(static_cast<double>(a.window_start_unix_ns - b.window_start_unix_ns)) / 1e9;
  return overlap < 0.5 * shorter;
}

// The load host a run came from: its host name (each run is a host of its own when the name is unknown).
std::string HostKey(const RunReport& r, size_t i) {
  return r.context.machine.hostname.empty() ? "#" + std::to_string(i) : r.context.machine.hostname;
}

}  // namespace

Status MergeRuns(const std::vector<RunReport>& runs, RunReport* merged) {
  if (runs.size() < 2) return Status::InvalidArgument("merge needs two or more runs");
  const RunReport& first = runs.front();
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunReport& r = runs[i];
    if (r.settings.embedded) {
      return Status::InvalidArgument("cannot merge " + r.context.name +
                                     ": it ran against its own embedded service, not a target shared with the others");
    }
    for (size_t k = 0; k < i; ++k) {
      const RunContext& c = runs[k].context;
      if (c.window_start_unix_ns == r.context.window_start_unix_ns && c.machine.hostname == r.context.machine.hostname &&
          runs[k].load.total.latency == r.load.total.latency) {
        return Status::InvalidArgument("cannot merge " + r.context.name + " with " + c.name + ": they are the same run");
      }
    }
    if (i == 0) continue;
    const std::string difference = Difference(first, r);
    if (!difference.empty()) {
      return Status::InvalidArgument("cannot merge " + r.context.name + " with " + first.context.name + ": different " +
                                     difference);
    }
    double apart = 0;
    if (Apart(first.context, r.context, &apart)) {
      return Status::InvalidArgument("cannot merge " + r.context.name + " with " + first.context.name +
                                     ": their windows did not overlap (they began " + Num(std::round(apart * 10) / 10) +
                                     " s apart); merge is for runs at the same time from several load hosts "
                                     "(start them together with --start-at)");
    }
  }

  RunReport m;
  m.settings = first.settings;
  m.settings.threads = m.settings.connections = 0;
  m.settings.rate = 0;
  m.settings.placement.clear();
  m.interface_name = first.interface_name;
  m.server_cpu_source = "";
  m.link_bits_per_second = first.link_bits_per_second;
  m.link_declared = first.link_declared;
  m.half_duplex = first.half_duplex;
  m.context.name = "merged";
  m.context.machine = first.context.machine;
  m.context.window_start_unix_ns = INT64_MAX;
  m.before = ResourceSnapshot{};
  m.after = ResourceSnapshot{};
  m.before.interface_known = m.after.interface_known = true;

  // Per load host: the most cores any of its runs could use, and the largest interface counts any of them
  // saw (runs on one host see the same interface, each with the others' traffic in it).
  struct Host {
    double cores = 0;
    ResourceSnapshot interface;
  };
  std::map<std::string, Host> hosts;
  double rate_sum = 0, client_cores_used = 0, server_cores_sum = 0, client_peak = -1, server_peak = -1;
  double exec_calls = 0, exec_sum = 0, wait_sum = 0, xml_sum = 0, unloaded = -1;
  int server_known = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunReport& r = runs[i];
    const RunFigures& f = r.figures;
    const double w = r.load.window_seconds;
    m.settings.threads += r.settings.threads;
    m.settings.connections += r.settings.connections;
    m.settings.rate += r.settings.rate;
    m.load.total.Merge(r.load.total);
    m.load.thread_cpu_seconds.insert(m.load.thread_cpu_seconds.end(), r.load.thread_cpu_seconds.begin(),
                                     r.load.thread_cpu_seconds.end());
    if (w > 0) rate_sum += static_cast<double>(r.load.total.calls_ok()) / w;
    m.load.window_seconds = std::max(m.load.window_seconds, w);
    if (r.interface_name != m.interface_name) m.interface_name = "several";

    Host& host = hosts[HostKey(r, i)];
    host.cores = std::max(host.cores, r.client_cores);
    const bool known = r.before.interface_known && r.after.interface_known;
    m.before.interface_known = m.after.interface_known = m.after.interface_known && known;
    host.interface.rx_bytes = std::max(host.interface.rx_bytes, r.after.rx_bytes - r.before.rx_bytes);
    host.interface.tx_bytes = std::max(host.interface.tx_bytes, r.after.tx_bytes - r.before.tx_bytes);
    host.interface.rx_packets = std::max(host.interface.rx_packets, r.after.rx_packets - r.before.rx_packets);
    host.interface.tx_packets = std::max(host.interface.tx_packets, r.after.tx_packets - r.before.tx_packets);
    host.interface.tcp_retransmits =
        std::max(host.interface.tcp_retransmits, r.after.tcp_retransmits - r.before.tcp_retransmits);

    // Cores busy are rates: they add up across load hosts; the server is one and the same, seen by each run.
    if (w > 0 && f.client_cpu_seconds >= 0) client_cores_used += f.client_cpu_seconds / w;
    if (w > 0 && f.client_thread_peak_cpu_seconds >= 0) client_peak = std::max(client_peak, f.client_thread_peak_cpu_seconds / w);
    if (w > 0 && f.server_cpu_seconds >= 0) {
      server_cores_sum += f.server_cpu_seconds / w;
      ++server_known;
      m.server_cores = std::max(m.server_cores, r.server_cores);
      if (m.server_cpu_source.empty()) m.server_cpu_source = r.server_cpu_source;
    }
    if (w > 0 && f.server_thread_peak_cpu_seconds >= 0) server_peak = std::max(server_peak, f.server_thread_peak_cpu_seconds / w);
    m.figures.server_threads = std::max(m.figures.server_threads, f.server_threads);
    if (f.server_exec_seconds_per_call >= 0) {
      const double n = static_cast<double>(f.calls_ok);
      exec_calls += n;
      exec_sum += n * f.server_exec_seconds_per_call;
      wait_sum += n * std::max(0.0, f.server_queue_wait_seconds_per_call);
      xml_sum += n * std::max(0.0, f.server_xml_seconds_per_call);
    }
    if (f.unloaded_latency_seconds > 0) unloaded = unloaded < 0 ? f.unloaded_latency_seconds : std::min(unloaded, f.unloaded_latency_seconds);
    m.context.window_start_unix_ns = std::min(m.context.window_start_unix_ns, r.context.window_start_unix_ns);
    m.context.window_end_unix_ns = std::max(m.context.window_end_unix_ns, r.context.window_end_unix_ns);
    m.context.merged_from.push_back(r.context.name);
    m.context.load_hosts.push_back(r.context.machine);
    // Per second: calls and bytes added by ThreadStats::Merge; client cores add up, the server's are averaged.
    if (m.cpu_per_second.size() < r.cpu_per_second.size()) m.cpu_per_second.resize(r.cpu_per_second.size(), {0, 0});
  }
  if (m.context.window_start_unix_ns == INT64_MAX) m.context.window_start_unix_ns = 0;
  for (size_t s = 0; s < m.cpu_per_second.size(); ++s) {
    double client = 0, server = 0;
    int servers = 0;
    for (const RunReport& r : runs) {
      if (s >= r.cpu_per_second.size()) continue;
      client += std::max(0.0, r.cpu_per_second[s].first);
      if (r.cpu_per_second[s].second >= 0) {
        server += r.cpu_per_second[s].second;
        ++servers;
      }
    }
    m.cpu_per_second[s] = {client, servers > 0 ? server / servers : -1};
  }

  // The merged window: the one over which the summed calls give the summed rates (the windows' length,
  // weighted by their calls, when they differ a little).
  const double ok = static_cast<double>(m.load.total.calls_ok());
  if (ok > 0 && rate_sum > 0) m.load.window_seconds = ok / rate_sum;
  const double w = m.load.window_seconds;
  m.client_cores = 0;
  for (const auto& [key, host] : hosts) {
    m.client_cores += host.cores;
    m.after.rx_bytes += host.interface.rx_bytes;
    m.after.tx_bytes += host.interface.tx_bytes;
    m.after.rx_packets += host.interface.rx_packets;
    m.after.tx_packets += host.interface.tx_packets;
    m.after.tcp_retransmits += host.interface.tcp_retransmits;
  }
  if (server_known > 1) m.server_cpu_source += ", the mean of " + std::to_string(server_known) + " runs";
  m.unloaded_latency_seconds = unloaded;
  m.shared_cores = hosts.size() == 1 && first.shared_cores;

  RunFigures& f = m.figures;
  f.duration_seconds = w;
  f.calls_ok = m.load.total.calls_ok();
  f.connections = m.settings.connections * m.settings.pipeline;
  f.mean_latency_seconds = m.load.total.service_time.Mean() / 1e9;
  f.client_cpu_seconds = client_cores_used * w;
  f.client_cores = m.client_cores;
  f.server_cpu_seconds = server_known > 0 ? server_cores_sum / server_known * w : -1;
  f.server_cores = server_known > 0 ? m.server_cores : 0;
  f.shared_cores = m.shared_cores;
  f.machine_cores = m.shared_cores ? first.figures.machine_cores : 0;
  f.wire_bytes_per_call = m.wire_bytes_per_call();
  f.wire_up_bytes_per_call = m.wire_up_bytes_per_call();
  f.wire_down_bytes_per_call = m.wire_down_bytes_per_call();
  f.link_bits_per_second = m.link_bits_per_second;
  f.link_declared = m.link_declared;
  f.half_duplex = m.half_duplex;
  f.loopback = std::all_of(runs.begin(), runs.end(), [](const RunReport& r) { return r.figures.loopback; });
  f.client_thread_peak_cpu_seconds = client_peak >= 0 ? client_peak * w : -1;
  f.server_thread_peak_cpu_seconds = server_peak >= 0 ? server_peak * w : -1;
  f.unloaded_latency_seconds = unloaded;
  if (exec_calls > 0) {
    f.server_exec_seconds_per_call = exec_sum / exec_calls;
    f.server_queue_wait_seconds_per_call = wait_sum / exec_calls;
    f.server_xml_seconds_per_call = xml_sum / exec_calls;
  }
  f.store_operation = first.figures.store_operation;
  f.other_cpu_seconds = -1;  // each host's "other" work holds the other harnesses: unknown for the whole
  f.envelope_share = m.envelope_share();
  f.open_model_rate = m.settings.rate;
  f.late_calls = m.load.total.late_calls;
  m.verdict = Judge(f);
  *merged = std::move(m);
  return Status::Ok();
}

void PrintMergedFrom(const std::vector<RunReport>& runs, std::FILE* out) {
  std::fprintf(out, "  merged from  %zu runs:\n", runs.size());
  for (const RunReport& r : runs) {
    const LatencyHistogram& h = r.load.total.latency;
    std::fprintf(out, "    %-20s host %s: %s calls/s, p99 %s, %d connections, limit %s\n", r.context.name.c_str(),
                 r.context.machine.hostname.empty() ? "?" : r.context.machine.hostname.c_str(),
                 WithThousands(r.calls_per_second()).c_str(),
                 h.count() > 0 ? FormatNanos(static_cast<double>(h.ValueAtPercentile(99))).c_str() : "-",
                 r.settings.connections, LimitName(r.verdict.limit).c_str());
  }
}

}  // namespace lather
