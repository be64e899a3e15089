#include "stress/verdict/verdict.h"

#include "stress/verdict/component_judge.h"
#include "stress/verdict/verdict_format.h"

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace lather {
namespace {

// Returns `value` if it is finite, otherwise `unknown`.
double FiniteOr(double value, double unknown) { return std::isfinite(value) ? value : unknown; }

// Figures with every NaN or inf replaced by the field's "unknown" value.
RunFigures Sanitized(const RunFigures& in) {
  RunFigures f = in;
  f.duration_seconds = FiniteOr(f.duration_seconds, 0);
  f.mean_latency_seconds = FiniteOr(f.mean_latency_seconds, 0);
  f.client_cpu_seconds = FiniteOr(f.client_cpu_seconds, -1);
  f.client_cores = FiniteOr(f.client_cores, 0);
  f.server_cpu_seconds = FiniteOr(f.server_cpu_seconds, -1);
  f.server_cores = FiniteOr(f.server_cores, 0);
  f.machine_cores = FiniteOr(f.machine_cores, 0);
  f.wire_bytes_per_call = FiniteOr(f.wire_bytes_per_call, 0);
  f.link_bits_per_second = FiniteOr(f.link_bits_per_second, 0);
  f.envelope_share = FiniteOr(f.envelope_share, -1);
  f.open_model_rate = FiniteOr(f.open_model_rate, 0);
  f.wire_up_bytes_per_call = FiniteOr(f.wire_up_bytes_per_call, -1);
  f.wire_down_bytes_per_call = FiniteOr(f.wire_down_bytes_per_call, -1);
  f.client_thread_peak_cpu_seconds = FiniteOr(f.client_thread_peak_cpu_seconds, -1);
  f.server_thread_peak_cpu_seconds = FiniteOr(f.server_thread_peak_cpu_seconds, -1);
  f.unloaded_latency_seconds = FiniteOr(f.unloaded_latency_seconds, -1);
  f.server_exec_seconds_per_call = FiniteOr(f.server_exec_seconds_per_call, -1);
  f.server_queue_wait_seconds_per_call = FiniteOr(f.server_queue_wait_seconds_per_call, -1);
  f.server_xml_seconds_per_call = FiniteOr(f.server_xml_seconds_per_call, -1);
  f.other_cpu_seconds = FiniteOr(f.other_cpu_seconds, -1);
  return f;
}

// a / b when both are known (a >= 0, b > 0) and the quotient is finite; -1 otherwise.
double Ratio(double a, double b) {
  if (a < 0 || b <= 0) return -1;
  const double q = a / b;
  return std::isfinite(q) ? q : -1;
}

// The smaller of two figures where < 0 means unknown; -1 when both are unknown.
double MinKnown(double a, double b) {
  if (a < 0) return b;
  if (b < 0) return a;
  return a < b ? a : b;
}

// " -> client ceiling ~ 20,300 calls/s", or " -> client ceiling unknown".
std::string CeilingSuffix(const char* name, double ceiling) {
  if (ceiling < 0) return std::string(" -> ") + name + " ceiling unknown";
  return std::string(" -> ") + name + " ceiling ~ " + FormatApprox(ceiling) + " calls/s";
}

// "1.20 of 4 cores (30%)", or "1.20 cores (cores available unknown)".
std::string CoresUsed(double used, double available, double utilization) {
  if (utilization < 0) return FormatCores(used) + " cores (cores available unknown)";
  return FormatCores(used) + " of " + FormatCoreCount(available) + CoresWord(available) + " (" + FormatPercent(utilization) +
         ")";
}

// The link as shown in the text, with a note when it was assumed rather than declared.
std::string LinkText(const RunFigures& f) {
  std::string link = FormatBits(f.link_bits_per_second);
  if (!f.link_declared) link += " (assumed " + FormatBits(f.link_bits_per_second) + "; declare with --link)";
  return link;
}

// True when the bytes of each direction are known (the verdict then judges the link per direction).
bool DirectionsKnown(const RunFigures& f) { return f.wire_up_bytes_per_call >= 0 && f.wire_down_bytes_per_call >= 0; }

// True when there is no wire to judge: loopback with no link declared.
bool NoWire(const RunFigures& f) { return f.loopback && !f.link_declared; }

// "network 32 Mbit/s = 3% of 1 Gbit/s (assumed ...)" or, per direction, "network up 1.2 Mbit/s = 12% and
// down 9.8 Mbit/s = 98% of 10 Mbit/s each way", without a ceiling.
std::string NetworkUse(const Verdict& v, const RunFigures& f) {
  if (NoWire(f)) return "loopback, no wire (declare --link to judge one)";
  if (v.network_bits_per_second < 0) return "network use unknown (bytes per call not measured)";
  if (v.network_utilization < 0)
    return "network " + FormatBits(v.network_bits_per_second) + " (link capacity unknown)";
  if (!DirectionsKnown(f)) {
    return "network " + FormatBits(v.network_bits_per_second) + " = " + FormatPercent(v.network_utilization) +
           " of " + LinkText(f);
  }
  const double up = v.calls_per_second * 8 * f.wire_up_bytes_per_call;
  const double down = v.calls_per_second * 8 * f.wire_down_bytes_per_call;
  if (f.half_duplex) {
    return "network " + FormatBits(up + down) + " (up " + FormatBits(up) + " + down " + FormatBits(down) + ") = " +
           FormatPercent(v.network_utilization) + " of " + LinkText(f) + " half duplex";
  }
  return "network up " + FormatBits(up) + " = " + FormatPercent(v.network_up_utilization) + " and down " +
         FormatBits(down) + " = " + FormatPercent(v.network_down_utilization) + " of " + LinkText(f) + " each way";
}

// "client and server share the machine's 2 cores: client 0.90 + server 1.00 = 1.90 of 2 (95%)".
std::string SharedUse(const Verdict& v, const RunFigures& f) {
  return "client and server share the machine's " + FormatCoreCount(f.machine_cores) + " cores: client " +
         FormatCores(v.client_cores_used) + " + server " + FormatCores(v.server_cores_used) + " = " +
         FormatCores(v.client_cores_used + v.server_cores_used) + " of " + FormatCoreCount(f.machine_cores) +
         " (" + FormatPercent(v.shared_utilization) + ")";
}

// True when one of a farm's components is a load balancer.
bool HasBalancer(const Verdict& v) {
  for (const ComponentVerdict& c : v.components) {
    if (RoleOf(c.name) == ComponentRole::kBalancer) return true;
  }
  return false;
}

// "the machine's 2 cores: client 0.90 + nodes 0.98 + haproxy 0.60 = 2.48 of 2 (100%)" (a farm on this
// machine; shares above 1 are capped, the sum as measured).
std::string MachineUse(const Verdict& v, const RunFigures& f, double used) {
  std::string text = "the machine's " + FormatCoreCount(f.machine_cores) + " cores: client " + FormatCores(v.client_cores_used);
  for (const ComponentVerdict& c : v.components) text += " + " + c.name + " " + FormatCores(c.cores_used);
  return text + " = " + FormatCores(used) + " of " + FormatCoreCount(f.machine_cores) + " (" +
         FormatPercent(v.machine_utilization) + ")";
}

// One candidate for the limit: a resource and how much of it the run used.
struct Candidate {
  enum class Source { kClient, kServer, kClientThread, kServerThread, kPool, kNetwork, kComponent, kMachine };
  Source source;
  Verdict::Limit limit;
  double utilization;
  size_t component = 0;  // kComponent: its index in Verdict::components
};

// At most 1; the figure is a share measured in one window, where noise can carry it a little past 1.
double CappedShare(double share) { return share > 1 ? 1 : share; }

// A ceiling is never below what was achieved (a share that read above 1 would make it so).
double AtLeast(double ceiling, double achieved) { return ceiling >= 0 && ceiling < achieved ? achieved : ceiling; }

// The lowest known ceiling and the resource it belongs to; ceiling < 0 when none is known.
struct LowestCeiling {
  double ceiling = -1;
  std::string name;
};

LowestCeiling FindLowestCeiling(const Verdict& v, double machine_ceiling) {
  LowestCeiling lowest;
  auto consider = [&lowest](double ceiling, const std::string& name) {
    if (ceiling >= 0 && (lowest.ceiling < 0 || ceiling < lowest.ceiling)) {
      lowest.ceiling = ceiling;
      lowest.name = name;
    }
  };
  consider(v.client_ceiling, "client CPU");
  consider(v.server_ceiling, "server CPU");
  if (v.shared_ceiling >= 0 && v.shared_ceiling <= lowest.ceiling)
    lowest.name = "shared CPU (client + server)";
  consider(v.network_ceiling, "network");
  for (const ComponentVerdict& c : v.components) {
    if (!c.serving) consider(c.ceiling, c.label == c.name ? c.name : c.label + " (" + c.name + ")");
  }
  consider(machine_ceiling, "the machine's cores");
  return lowest;
}

// Little's law N = X x R, rounded up (tolerating rounding noise such as 64.000000001); -1 when unknown.
double LittleConnections(double rate, double latency_seconds) {
  if (rate <= 0 || latency_seconds <= 0) return -1;
  const double n = rate * latency_seconds;
  if (!std::isfinite(n)) return -1;
  const double rounded = std::ceil(n - 1e-9 * (n > 1 ? n : 1));
  return rounded < 1 ? 1 : rounded;
}

// Text for a run that cannot be judged at all, with every figure unknown.
Verdict UnknownVerdict(const std::string& why) {
  Verdict v;
  v.limit = Verdict::Limit::kUnknown;
  v.calls_per_second = 0;
  v.client_cores_used = v.server_cores_used = -1;
  v.client_utilization = v.server_utilization = -1;
  v.network_bits_per_second = v.network_utilization = -1;
  v.client_ceiling = v.server_ceiling = v.network_ceiling = -1;
  v.suggested_connections = 0;
  v.text = "limit: " + LimitName(v.limit) + " (" + why + ")";
  return v;
}

}  // namespace

std::string LimitName(Verdict::Limit limit) {
  switch (limit) {
    case Verdict::Limit::kClientCpu:
      return "client CPU";
    case Verdict::Limit::kServerCpu:
      return "server CPU";
    case Verdict::Limit::kComponentCpu:
      return "component CPU";
    case Verdict::Limit::kNetwork:
      return "network";
    case Verdict::Limit::kServerWaiting:
      return "server waiting";
    case Verdict::Limit::kConcurrency:
      return "concurrency";
    case Verdict::Limit::kOfferedLoad:
      return "offered load";
    case Verdict::Limit::kUnknown:
      break;
  }
  return "unknown";
}

Verdict Judge(const RunFigures& figures) {
  const RunFigures f = Sanitized(figures);
  if (f.duration_seconds <= 0) {
    return UnknownVerdict("the measured window is empty, so there is no rate to judge");
  }
  if (f.calls_ok == 0) {
    return UnknownVerdict(
        "no successful calls in the measured window, so there are no per-call costs to judge");
  }

  Verdict v = UnknownVerdict("");
  const double calls = static_cast<double>(f.calls_ok);
  const double rate = calls / f.duration_seconds;
  v.calls_per_second = rate;

  // Per-side CPU: cores busy, share of the allowed cores, CPU per call and the calls/s at full use.
  v.client_cores_used = Ratio(f.client_cpu_seconds, f.duration_seconds);
  v.client_utilization = CappedShare(Ratio(v.client_cores_used, f.client_cores));
  v.client_cpu_per_call = Ratio(f.client_cpu_seconds, calls);
  v.client_ceiling =
      v.client_cpu_per_call > 0 && f.client_cores > 0 ? Ratio(f.client_cores, v.client_cpu_per_call) : -1;
  v.server_cores_used = Ratio(f.server_cpu_seconds, f.duration_seconds);
  v.server_utilization = CappedShare(Ratio(v.server_cores_used, f.server_cores));
  v.server_cpu_per_call = Ratio(f.server_cpu_seconds, calls);
  v.server_ceiling =
      v.server_cpu_per_call > 0 && f.server_cores > 0 ? Ratio(f.server_cores, v.server_cpu_per_call) : -1;

  // Threads: the busiest one's share of a core. A thread at full use caps the calls/s it takes part in at
  // calls/s / share, whatever the rest of the process has to spare.
  v.client_thread_peak = CappedShare(Ratio(f.client_thread_peak_cpu_seconds, f.duration_seconds));
  v.server_thread_peak = CappedShare(Ratio(f.server_thread_peak_cpu_seconds, f.duration_seconds));
  if (v.client_thread_peak > 0) v.client_ceiling = MinKnown(v.client_ceiling, rate / v.client_thread_peak);
  if (v.server_thread_peak > 0) v.server_ceiling = MinKnown(v.server_ceiling, rate / v.server_thread_peak);

  // A farm: each component against its own budget; the serving one is the server above.
  const ComponentVerdict* serving = nullptr;
  for (const ComponentFigures& c : f.components) v.components.push_back(JudgeComponent(c, f.duration_seconds, calls));
  for (const ComponentVerdict& c : v.components) {
    if (c.serving) serving = &c;
  }
  // A farm on this machine: the client and every component draw from the machine's cores.
  double machine_used = -1, machine_ceiling = -1, components_used = 0;
  if (!f.components.empty()) {
    bool known = f.components_on_machine && f.machine_cores > 0 && v.client_cores_used >= 0;
    double cpu_per_call = v.client_cpu_per_call;
    machine_used = v.client_cores_used;
    for (const ComponentVerdict& c : v.components) {
      known = known && c.cores_used >= 0 && c.cpu_per_call >= 0;
      machine_used += c.cores_used;
      cpu_per_call += c.cpu_per_call;
      if (!c.serving && c.cores_used > 0) components_used += c.cores_used;
    }
    if (known) {
      v.machine_utilization = CappedShare(Ratio(machine_used, f.machine_cores));
      machine_ceiling = AtLeast(cpu_per_call > 0 ? Ratio(f.machine_cores, cpu_per_call) : -1, rate);
    } else {
      machine_used = -1;
    }
  }

  // Shared cores: both sides draw from one pool, so each call costs the sum of both sides' CPU (in a farm,
  // the machine's cores above take this place).
  const bool pool_known = f.components.empty() && f.shared_cores && f.machine_cores > 0 &&
                          v.client_cores_used >= 0 && v.server_cores_used >= 0;
  if (pool_known) {
    v.shared_utilization = CappedShare(Ratio(v.client_cores_used + v.server_cores_used, f.machine_cores));
    const double cpu_per_call = v.client_cpu_per_call + v.server_cpu_per_call;
    v.shared_ceiling = AtLeast(cpu_per_call > 0 ? Ratio(f.machine_cores, cpu_per_call) : -1, rate);
    v.client_ceiling = MinKnown(v.client_ceiling, v.shared_ceiling);
    v.server_ceiling = MinKnown(v.server_ceiling, v.shared_ceiling);
  }
  v.client_ceiling = AtLeast(v.client_ceiling, rate);
  v.server_ceiling = AtLeast(v.server_ceiling, rate);

  // Network: a link carries its capacity each way (full duplex), so each direction is judged on its own and
  // the busier one limits; half duplex, both share it. Bytes whose direction is unknown count as one way.
  const bool directions = DirectionsKnown(f);
  const double up_bits = directions ? 8 * f.wire_up_bytes_per_call : (f.wire_bytes_per_call > 0 ? 8 * f.wire_bytes_per_call : -1);
  const double down_bits = directions ? 8 * f.wire_down_bytes_per_call : 0;
  const double total_bits = up_bits >= 0 ? up_bits + down_bits : -1;
  const double judged_bits = f.half_duplex || !directions ? total_bits : std::max(up_bits, down_bits);
  bool over_declared = false;  // more went through than the declared link can carry
  v.network_bits_per_second = total_bits > 0 ? rate * total_bits : -1;
  if (NoWire(f)) {  // not judged: no share, no ceiling (and not "unmeasured" either)
    v.network_utilization = v.network_up_utilization = v.network_down_utilization = -1;
    v.network_ceiling = -1;
  } else if (judged_bits > 0 && f.link_bits_per_second > 0) {
    const double share = rate * judged_bits / f.link_bits_per_second;
    over_declared = share > 1.02;
    v.network_utilization = CappedShare(share);
    if (directions) {
      v.network_up_utilization = CappedShare(rate * up_bits / f.link_bits_per_second);
      v.network_down_utilization = CappedShare(rate * down_bits / f.link_bits_per_second);
    }
    v.network_ceiling = AtLeast(f.link_bits_per_second / judged_bits, rate);
  } else {
    v.network_utilization = -1;
    v.network_ceiling = -1;
  }

  // Saturated resources; the most utilized one wins (ties go to the earlier one). A side counts once: as
  // its process when that is saturated, else as its busiest thread.
  std::vector<Candidate> saturated;
  using Source = Candidate::Source;
  if (v.client_utilization >= kSaturated) {
    saturated.push_back({Source::kClient, Verdict::Limit::kClientCpu, v.client_utilization});
  } else if (v.client_thread_peak >= kSaturated) {
    saturated.push_back({Source::kClientThread, Verdict::Limit::kClientCpu, v.client_thread_peak});
  }
  // A serving component held to its quota by the kernel is saturated whatever its measured use reads.
  const bool server_throttled = serving != nullptr && serving->throttled_share >= kThrottled;
  if (v.server_utilization >= kSaturated || server_throttled) {
    saturated.push_back({Source::kServer, Verdict::Limit::kServerCpu, std::max(v.server_utilization, kSaturated)});
  } else if (v.server_thread_peak >= kSaturated) {
    saturated.push_back({Source::kServerThread, Verdict::Limit::kServerCpu, v.server_thread_peak});
  }
  if (v.shared_utilization >= kSaturated) {
    const Verdict::Limit larger =
        v.client_cores_used > v.server_cores_used ? Verdict::Limit::kClientCpu : Verdict::Limit::kServerCpu;
    saturated.push_back({Source::kPool, larger, v.shared_utilization});
  }
  if (v.network_utilization >= kSaturated) {
    saturated.push_back({Source::kNetwork, Verdict::Limit::kNetwork, v.network_utilization});
  }
  for (size_t i = 0; i < v.components.size(); ++i) {
    const ComponentVerdict& c = v.components[i];
    if (!c.serving && (c.utilization >= kSaturated || c.throttled_share >= kThrottled)) {
      saturated.push_back({Source::kComponent, Verdict::Limit::kComponentCpu, std::max(c.utilization, kSaturated), i});
    }
  }
  if (v.machine_utilization >= kSaturated) {
    saturated.push_back({Source::kMachine, Verdict::Limit::kComponentCpu, v.machine_utilization});
  }
  const Candidate* winner = nullptr;
  for (const Candidate& candidate : saturated) {
    if (winner == nullptr || candidate.utilization > winner->utilization) winner = &candidate;
  }

  // Resources that could not be judged (one of them might be the limit when nothing known is saturated).
  std::vector<std::string> unmeasured;
  if (v.client_utilization < 0) unmeasured.push_back("client CPU");
  if (v.server_utilization < 0 && !(pool_known && v.shared_utilization >= 0))
    unmeasured.push_back("server CPU");
  if (v.network_utilization < 0 && !NoWire(f)) unmeasured.push_back("network");
  for (const ComponentVerdict& c : v.components) {
    if (!c.serving && c.utilization < 0) unmeasured.push_back(c.name + " CPU");
  }

  const bool open_model = f.open_model_rate > 0;
  const bool on_target = open_model && rate >= kOnTarget * f.open_model_rate;
  const std::string now = " at " + FormatNumber(rate) + " calls/s";
  const std::string at_connections =
      f.connections > 0 ? " at " + std::to_string(f.connections) + (f.connections == 1 ? " connection" : " connections")
                        : "";
  const std::string latency = f.mean_latency_seconds > 0 ? FormatSeconds(f.mean_latency_seconds) : "unknown";
  const LowestCeiling lowest = FindLowestCeiling(v, machine_ceiling);
  bool late_said = false;

  // A server that is slow without using CPU: calls/s did not grow with connections (the 1-connection probe
  // gives the unloaded latency R1; at N connections a server that serializes answers N x R1 late, so
  // calls/s stays near 1/R1), or Lather's /metrics show its calls waiting rather than computing.
  const double speedup = f.unloaded_latency_seconds > 0 ? rate * f.unloaded_latency_seconds : -1;
  v.serializing = winner == nullptr && !open_model && f.connections >= 3 && speedup > 0 && speedup <= 1.5;
  const double server_time = f.server_exec_seconds_per_call < 0
                                 ? -1
                                 : f.server_exec_seconds_per_call + std::max(0.0, f.server_queue_wait_seconds_per_call);
  const bool waits = winner == nullptr && f.server_exec_seconds_per_call > 0 && v.server_cpu_per_call >= 0 &&
                     f.mean_latency_seconds > 0 && server_time >= 0.5 * f.mean_latency_seconds &&
                     f.server_exec_seconds_per_call >= 2 * v.server_cpu_per_call;
  if (v.serializing) {  // what one connection's rate allows is the server's real ceiling
    v.server_ceiling = AtLeast(MinKnown(v.server_ceiling, 1 / f.unloaded_latency_seconds), rate);
  }
  // Other work on the machine: with nothing of ours saturated but every core busy, a server starved of CPU
  // looks like one that waits or serializes; the figures cannot tell them apart.
  v.other_cores_used = Ratio(f.other_cpu_seconds, f.duration_seconds);
  const double busy_share =
      v.other_cores_used >= 0 && f.machine_cores > 0
          ? (v.other_cores_used + std::max(0.0, v.client_cores_used) + std::max(0.0, v.server_cores_used) +
             components_used) / f.machine_cores
          : -1;
  const bool starved = winner == nullptr && !on_target && v.other_cores_used >= 0.25 && busy_share >= kSaturated;
  std::string waiting;  // the evidence, for the text
  if (v.serializing) {
    waiting = "calls/s did not grow with connections: " + FormatNumber(rate) + " calls/s" + at_connections +
              " against " + FormatNumber(1 / f.unloaded_latency_seconds) + " at one (unloaded latency " +
              FormatSeconds(f.unloaded_latency_seconds) + ", now " + latency + "): the server serializes its calls";
  }
  if (waits) {
    waiting += std::string(waiting.empty() ? "" : "; ") + "execution " +
               FormatSeconds(f.server_exec_seconds_per_call) + " per call" +
               (f.server_queue_wait_seconds_per_call > 0
                    ? " after " + FormatSeconds(f.server_queue_wait_seconds_per_call) + " in its queue"
                    : "") +
               " at " + FormatSeconds(v.server_cpu_per_call) + " of CPU: it waits for " +
               (f.store_operation ? "the store" : "something other than its CPU (a lock, a backend, the disk)");
  }

  std::string detail;  // the parenthesis after "limit: <name>"
  if (winner != nullptr) {
    v.limit = winner->limit;
    switch (winner->source) {
      case Source::kClient:
        detail = FormatCores(v.client_cores_used) + " of " + FormatCoreCount(f.client_cores) +
                 CoresWord(f.client_cores) + " = " + FormatPercent(v.client_utilization) + now +
                 CeilingSuffix("client", v.client_ceiling);
        break;
      case Source::kServer:
        if (serving != nullptr) {
          v.component = serving->label;
          detail = DescribeComponent(*serving) + now + CeilingSuffix(serving->name.c_str(), v.server_ceiling);
          break;
        }
        detail = FormatCores(v.server_cores_used) + " of " + FormatCoreCount(f.server_cores) +
                 CoresWord(f.server_cores) + " = " + FormatPercent(v.server_utilization) + now +
                 CeilingSuffix("server", v.server_ceiling);
        break;
      case Source::kComponent: {
        const ComponentVerdict& c = v.components[winner->component];
        v.component = c.label;
        detail = DescribeComponent(c) + now + CeilingSuffix(c.name.c_str(), c.ceiling);
        break;
      }
      case Source::kMachine:
        v.component = "the machine's cores";
        detail = MachineUse(v, f, machine_used) + ": the harness and the farm share them" + now +
                 CeilingSuffix("machine", machine_ceiling);
        break;
      case Source::kClientThread:
        v.saturated_thread = "client";
        detail = "one load thread at " + FormatPercent(v.client_thread_peak) + " of a core" + now +
                 " while the client uses " + CoresUsed(v.client_cores_used, f.client_cores, v.client_utilization) +
                 ": the harness's thread is the limit; more --threads would help" +
                 CeilingSuffix("client", v.client_ceiling);
        break;
      case Source::kServerThread:
        v.saturated_thread = "server";
        detail = "one thread at " + FormatPercent(v.server_thread_peak) + " of a core" + now + " while the server uses " +
                 CoresUsed(v.server_cores_used, f.server_cores, v.server_utilization) +
                 (f.server_threads == 1 ? ": a single-threaded server" : ": one thread of the server is its bottleneck") +
                 "; more connections will not help" + CeilingSuffix("server", v.server_ceiling);
        break;
      case Source::kPool:
        detail = SharedUse(v, f) + now + CeilingSuffix("combined CPU", v.shared_ceiling);
        break;
      case Source::kNetwork:
        if (HasBalancer(v)) detail = "the link into the load balancer: ";
        if (directions && !f.half_duplex) {
          const bool up_busier = v.network_up_utilization >= v.network_down_utilization;
          detail += std::string(up_busier ? "requests, client to server: " : "responses, server to client: ") +
                   FormatBits(rate * (up_busier ? up_bits : down_bits)) + " = " +
                   FormatPercent(v.network_utilization) + " of " + LinkText(f) + " each way" + now +
                   CeilingSuffix("network", v.network_ceiling);
        } else {
          detail += FormatBits(rate * judged_bits) + " = " + FormatPercent(v.network_utilization) + " of " +
                   LinkText(f) + (f.half_duplex ? " half duplex" : "") + now +
                   CeilingSuffix("network", v.network_ceiling);
        }
        break;
    }
  } else if (on_target) {
    v.limit = Verdict::Limit::kOfferedLoad;
    detail = "open loop at a target of " + FormatNumber(f.open_model_rate) + " calls/s achieved " +
             FormatNumber(rate) + " calls/s with nothing saturated: the offered rate, not the system, bounds calls/s";
    if (f.late_calls > 0) {
      detail += "; " + CallsWere(f.late_calls) + " sent later than scheduled";
      late_said = true;
    }
  } else if (starved) {
    v.limit = Verdict::Limit::kUnknown;
    detail = "the machine's cores were busy with other work: client " + FormatCores(std::max(0.0, v.client_cores_used)) +
             " + server " + FormatCores(std::max(0.0, v.server_cores_used)) + " + other processes " +
             FormatCores(v.other_cores_used) + " of " + FormatCoreCount(f.machine_cores) +
             " cores; a server starved of CPU looks like one that waits, so what limits this run cannot be told "
             "(rerun on a quiet machine, or pin the server and the client to cores of their own)";
  } else if ((v.serializing || waits) && v.server_utilization >= 0) {
    v.limit = Verdict::Limit::kServerWaiting;
    const double n = LittleConnections(lowest.ceiling, f.mean_latency_seconds);
    detail = "the server is not using its CPU (" +
             CoresUsed(v.server_cores_used, f.server_cores, v.server_utilization) + "): " + waiting +
             (v.serializing ? "; more connections will not help"
                            : n > 0 ? "; its waits overlap, so more connections may help: by Little's law (N = X x R) " +
                                          WithSeparators(static_cast<uint64_t>(n)) + " would reach the lowest ceiling, " +
                                          lowest.name + " ~ " + FormatApprox(lowest.ceiling) + " calls/s"
                                    : "");
  } else if (v.serializing) {
    v.limit = Verdict::Limit::kUnknown;
    detail = "the server bounds calls/s: " + waiting +
             "; its CPU was not measured, so whether it computes or waits is unknown (give --server-pid)";
  } else {
    // Nothing known is saturated: calls in flight bound the rate. Little's law N = X x R sizes the pool
    // for the rate wanted (the lowest ceiling; in open loop, the target if that is lower).
    double wanted = lowest.ceiling;
    std::string wanted_text;
    if (open_model && (wanted < 0 || f.open_model_rate < wanted)) {
      wanted = f.open_model_rate;
      wanted_text = "the " + FormatNumber(wanted) + " calls/s target";
    } else if (wanted >= 0) {
      wanted_text = std::string(unmeasured.empty() ? "the lowest ceiling, " : "the lowest known ceiling, ") +
                    lowest.name + " ~ " + FormatApprox(wanted) + " calls/s";
    }
    const double n = LittleConnections(wanted, f.mean_latency_seconds);
    std::string little;
    if (n > 0) {
      v.suggested_connections = n;
      little = "by Little's law (N = X x R) at least " + WithSeparators(static_cast<uint64_t>(n)) +
               " connections would reach " + wanted_text;
    } else if (wanted < 0) {
      little = "no ceiling is known, so Little's law (N = X x R) cannot size the connection pool";
    } else {
      little = "the mean latency is unknown, so Little's law (N = X x R) cannot size the connection pool";
    }
    const std::string state =
        (open_model ? "open loop reached " + FormatNumber(rate) + " of the " +
                          FormatNumber(f.open_model_rate) + " calls/s target"
                    : FormatNumber(rate) + " calls/s") +
        at_connections + " with mean latency " + latency;
    if (unmeasured.empty()) {
      v.limit = Verdict::Limit::kConcurrency;
      detail = "nothing is saturated: " + state + "; " + little;
    } else {
      v.limit = Verdict::Limit::kUnknown;
      std::vector<std::string> measured;
      if (v.client_utilization >= 0) measured.push_back("client CPU");
      if (v.server_utilization >= 0 || (pool_known && v.shared_utilization >= 0))
        measured.push_back("server CPU");
      if (v.network_utilization >= 0 || NoWire(f)) measured.push_back("network");
      const std::string many = unmeasured.size() > 1 ? "were" : "was";
      if (measured.empty()) {
        detail =
            JoinAnd(unmeasured) + " " + many + " not measured, so nothing can be judged saturated: " + state;
      } else {
        detail = JoinAnd(measured) + (measured.size() > 1 ? " are" : " is") + " not saturated but " +
                 JoinAnd(unmeasured) + " " + many + " not measured: " + state + ", bounded either by " +
                 JoinAnd(unmeasured) + " or by too few connections";
        if (n > 0) {
          detail += "; if it is the connections, " + little;
        } else {
          detail += "; " + little;
        }
      }
    }
  }

  // The other resources, each with its ceiling, then where the server's CPU goes, the envelope share and
  // late calls.
  const bool pool_is_limit = winner != nullptr && winner->source == Source::kPool;
  std::vector<std::string> others;
  const bool client_is_limit =
      winner != nullptr && (winner->source == Source::kClient || winner->source == Source::kClientThread);
  const bool server_is_limit =
      winner != nullptr && (winner->source == Source::kServer || winner->source == Source::kServerThread);
  if (!client_is_limit && !pool_is_limit) {
    others.push_back(v.client_cores_used < 0
                         ? "client CPU unknown (not measured)"
                         : "client used " +
                               CoresUsed(v.client_cores_used, f.client_cores, v.client_utilization) +
                               CeilingSuffix("client", v.client_ceiling));
  }
  const bool component_is_limit = winner != nullptr && winner->source == Source::kComponent;
  for (size_t i = 0; i < v.components.size(); ++i) {
    const ComponentVerdict& c = v.components[i];
    if (c.serving ? server_is_limit : component_is_limit && winner->component == i) continue;
    others.push_back(ComponentUse(c));
  }
  if (machine_used >= 0 && !(winner != nullptr && winner->source == Source::kMachine)) {
    others.push_back(MachineUse(v, f, machine_used) + CeilingSuffix("machine", machine_ceiling));
  }
  if (!server_is_limit && !pool_is_limit && serving == nullptr) {
    others.push_back(v.server_cores_used < 0
                         ? "server CPU unknown (not measured)"
                         : "server used " +
                               CoresUsed(v.server_cores_used, f.server_cores, v.server_utilization) +
                               CeilingSuffix("server", v.server_ceiling));
  }
  if (v.server_thread_peak >= 0 && !(winner != nullptr && winner->source == Source::kServerThread)) {
    others.push_back("busiest server thread " + FormatPercent(v.server_thread_peak) + " of a core" +
                     (f.server_threads > 0 ? " (" + std::to_string(f.server_threads) +
                                                 (f.server_threads == 1 ? " thread)" : " threads)")
                                           : ""));
  }
  if (f.shared_cores && !pool_is_limit && f.components.empty()) {
    if (pool_known && v.shared_utilization >= 0) {
      others.push_back(SharedUse(v, f) + CeilingSuffix("combined CPU", v.shared_ceiling));
    } else {
      others.push_back(
          "client and server share cores (pool not measured: machine cores or server CPU unknown)");
    }
  }
  if (winner == nullptr || winner->source != Source::kNetwork) {
    std::string use = NetworkUse(v, f);
    if (!NoWire(f) && v.network_bits_per_second >= 0) use += CeilingSuffix("network", v.network_ceiling);
    others.push_back(use);
  }
  if (over_declared) {
    others.push_back("more went through than the declared " + FormatBits(f.link_bits_per_second) +
                     " can carry: the link is faster than declared (check --link)");
  }
  if (v.server_cpu_per_call > 0 && f.server_xml_seconds_per_call >= 0) {
    // The service times XML parse + serialize by the clock, not by CPU: preempted, it can read more.
    const double xml = f.server_xml_seconds_per_call;
    if (xml <= v.server_cpu_per_call) {
      others.push_back("server CPU per call " + FormatSeconds(v.server_cpu_per_call) + ": XML parse + serialize " +
                       FormatSeconds(xml) + " (" + FormatPercent(xml / v.server_cpu_per_call) +
                       "), HTTP, kernel and the rest " + FormatSeconds(v.server_cpu_per_call - xml));
    } else {
      others.push_back("server CPU per call " + FormatSeconds(v.server_cpu_per_call) + "; XML parse + serialize took " +
                       FormatSeconds(xml) + " of wall time per call, more than the CPU: the service was preempted, "
                       "so the split is unknown");
    }
  } else if (v.server_cpu_per_call > 0) {
    others.push_back("where the server's CPU goes is unknown (it serves no Lather /metrics)");
  }
  if (f.envelope_share >= 0 && f.envelope_share <= 1) {
    // The split of the report's payload line: of the HTTP messages the sockets carried (heads, and bodies
    // that are SOAP envelopes around the payload); the TCP/IP bytes on the wire are not in it.
    others.push_back("SOAP envelope and HTTP are " + FormatPercent(f.envelope_share) + " of the bytes at the sockets (payload " +
                     FormatPercent(1 - f.envelope_share) + "; TCP/IP not counted)");
  }
  if (open_model && f.late_calls > 0 && !late_said) {
    others.push_back(CallsWere(f.late_calls) + " sent later than scheduled");
  }

  // A component of a farm is named as such ("limit: nodes (4 x 0.25 core, each at 97%) at ...").
  v.text = v.component.empty() ? "limit: " + LimitName(v.limit) + " (" + detail + ")." : "limit: " + detail + ".";
  for (size_t i = 0; i < others.size(); ++i) v.text += (i == 0 ? " " : "; ") + others[i];
  if (!others.empty()) v.text += ".";
  return v;
}

}  // namespace lather
