#include "stress/verdict/verdict.h"

#include <cmath>
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

// "1,234,567" for a non-negative integer.
std::string WithSeparators(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  const size_t first_group = digits.size() % 3 == 0 ? 3 : digits.size() % 3;
  out.append(digits, 0, first_group);
  for (size_t i = first_group; i < digits.size(); i += 3) {
    out += ',';
    out.append(digits, i, 3);
  }
  return out;
}

// printf into a std::string (short results only).
std::string Printf(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

// A non-negative figure: integers with thousands separators from 100 up, else 1 or 2 decimals.
std::string FormatNumber(double value) {
  if (value < 0) value = 0;
  if (value >= 1e18) return Printf("%.3g", value);
  if (value >= 99.5) return WithSeparators(static_cast<uint64_t>(std::llround(value)));
  if (value >= 9.95) return Printf("%.1f", value);
  return Printf("%.2f", value);
}

// An estimate: rounded to 3 significant digits, then FormatNumber ("20,304.6" -> "20,300").
std::string FormatApprox(double value) {
  if (value <= 0) return FormatNumber(value);
  const double magnitude = std::pow(10.0, std::floor(std::log10(value)) - 2);
  return FormatNumber(std::round(value / magnitude) * magnitude);
}

// Cores busy, always with 2 decimals ("1.97").
std::string FormatCores(double cores) { return Printf("%.2f", cores); }

// A core count: "2" when whole, else 2 decimals ("1.50").
// " core" after a count of exactly 1, " cores" otherwise.
std::string CoresWord(double count) { return count == 1 ? " core" : " cores"; }

std::string FormatCoreCount(double cores) {
  return cores == std::floor(cores) ? Printf("%.0f", cores) : Printf("%.2f", cores);
}

// A share 0..1 as a whole percentage; "<1%" for small non-zero shares.
std::string FormatPercent(double share) {
  if (share > 0 && share < 0.005) return "<1%";
  return Printf("%.0f", share * 100) + "%";
}

// A bit rate in bit/s, kbit/s, Mbit/s or Gbit/s as fits: whole from 10 up, else 1 decimal ("2.5 Gbit/s").
std::string FormatBits(double bits_per_second) {
  static const char* const kUnits[] = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"};
  double value = bits_per_second < 0 ? 0 : bits_per_second;
  size_t unit = 0;
  while (value >= 999.5 && unit + 1 < sizeof(kUnits) / sizeof(kUnits[0])) {
    value /= 1000;
    ++unit;
  }
  std::string number = value >= 9.95 ? Printf("%.0f", value) : Printf("%.1f", value);
  if (number.size() > 2 && number.compare(number.size() - 2, 2, ".0") == 0) number.resize(number.size() - 2);
  return number + " " + kUnits[unit];
}

// A duration: "850 us", "1.60 ms" or "2.00 s".
std::string FormatSeconds(double seconds) {
  if (seconds < 1e-3) return Printf("%.0f", seconds * 1e6) + " us";
  if (seconds < 1) return Printf("%.2f", seconds * 1e3) + " ms";
  return Printf("%.2f", seconds) + " s";
}

// "12 calls were" / "1 call was".
std::string CallsWere(uint64_t n) { return WithSeparators(n) + (n == 1 ? " call was" : " calls were"); }

// "a", "a and b", "a, b and c".
std::string JoinAnd(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
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

// "network 32 Mbit/s = 3% of 1 Gbit/s (assumed ...)" without a ceiling.
std::string NetworkUse(const Verdict& v, const RunFigures& f) {
  if (v.network_bits_per_second < 0) return "network use unknown (bytes per call not measured)";
  if (v.network_utilization < 0)
    return "network " + FormatBits(v.network_bits_per_second) + " (link capacity unknown)";
  return "network " + FormatBits(v.network_bits_per_second) + " = " + FormatPercent(v.network_utilization) +
         " of " + LinkText(f);
}

// "client and server share the machine's 2 cores: client 0.90 + server 1.00 = 1.90 of 2 (95%)".
std::string SharedUse(const Verdict& v, const RunFigures& f) {
  return "client and server share the machine's " + FormatCoreCount(f.machine_cores) + " cores: client " +
         FormatCores(v.client_cores_used) + " + server " + FormatCores(v.server_cores_used) + " = " +
         FormatCores(v.client_cores_used + v.server_cores_used) + " of " + FormatCoreCount(f.machine_cores) +
         " (" + FormatPercent(v.shared_utilization) + ")";
}

// One candidate for the limit: a resource and how much of it the run used.
struct Candidate {
  enum class Source { kClient, kServer, kPool, kNetwork };
  Source source;
  Verdict::Limit limit;
  double utilization;
};

// The lowest known ceiling and the resource it belongs to; ceiling < 0 when none is known.
struct LowestCeiling {
  double ceiling = -1;
  std::string name;
};

LowestCeiling FindLowestCeiling(const Verdict& v) {
  LowestCeiling lowest;
  auto consider = [&lowest](double ceiling, const char* name) {
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
    case Verdict::Limit::kNetwork:
      return "network";
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
  v.calls_per_second = calls / f.duration_seconds;

  // Per-side CPU: cores busy, share of the allowed cores, CPU per call and the calls/s at full use.
  v.client_cores_used = Ratio(f.client_cpu_seconds, f.duration_seconds);
  v.client_utilization = Ratio(v.client_cores_used, f.client_cores);
  v.client_cpu_per_call = Ratio(f.client_cpu_seconds, calls);
  v.client_ceiling =
      v.client_cpu_per_call > 0 && f.client_cores > 0 ? Ratio(f.client_cores, v.client_cpu_per_call) : -1;
  v.server_cores_used = Ratio(f.server_cpu_seconds, f.duration_seconds);
  v.server_utilization = Ratio(v.server_cores_used, f.server_cores);
  v.server_cpu_per_call = Ratio(f.server_cpu_seconds, calls);
  v.server_ceiling =
      v.server_cpu_per_call > 0 && f.server_cores > 0 ? Ratio(f.server_cores, v.server_cpu_per_call) : -1;

  // Shared cores: both sides draw from one pool, so each call costs the sum of both sides' CPU.
  const bool pool_known =
      f.shared_cores && f.machine_cores > 0 && v.client_cores_used >= 0 && v.server_cores_used >= 0;
  if (pool_known) {
    v.shared_utilization = Ratio(v.client_cores_used + v.server_cores_used, f.machine_cores);
    const double cpu_per_call = v.client_cpu_per_call + v.server_cpu_per_call;
    v.shared_ceiling = cpu_per_call > 0 ? Ratio(f.machine_cores, cpu_per_call) : -1;
    v.client_ceiling = MinKnown(v.client_ceiling, v.shared_ceiling);
    v.server_ceiling = MinKnown(v.server_ceiling, v.shared_ceiling);
  }

  // Network: bits on the wire per second, share of the link, and the calls/s that would fill the link.
  const double bits_per_call = f.wire_bytes_per_call > 0 ? 8 * f.wire_bytes_per_call : -1;
  v.network_bits_per_second = bits_per_call > 0 ? v.calls_per_second * bits_per_call : -1;
  v.network_utilization = Ratio(v.network_bits_per_second, f.link_bits_per_second);
  v.network_ceiling = f.link_bits_per_second > 0 ? Ratio(f.link_bits_per_second, bits_per_call) : -1;

  // Saturated resources; the most utilized one wins (ties go to the earlier one).
  std::vector<Candidate> saturated;
  using Source = Candidate::Source;
  if (v.client_utilization >= kSaturated) {
    saturated.push_back({Source::kClient, Verdict::Limit::kClientCpu, v.client_utilization});
  }
  if (v.server_utilization >= kSaturated) {
    saturated.push_back({Source::kServer, Verdict::Limit::kServerCpu, v.server_utilization});
  }
  if (v.shared_utilization >= kSaturated) {
    const Verdict::Limit larger =
        v.client_cores_used > v.server_cores_used ? Verdict::Limit::kClientCpu : Verdict::Limit::kServerCpu;
    saturated.push_back({Source::kPool, larger, v.shared_utilization});
  }
  if (v.network_utilization >= kSaturated) {
    saturated.push_back({Source::kNetwork, Verdict::Limit::kNetwork, v.network_utilization});
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
  if (v.network_utilization < 0) unmeasured.push_back("network");

  const bool open_model = f.open_model_rate > 0;
  const bool on_target = open_model && v.calls_per_second >= kOnTarget * f.open_model_rate;
  const std::string now = " at " + FormatNumber(v.calls_per_second) + " calls/s";
  const std::string at_connections =
      f.connections > 0 ? " at " + std::to_string(f.connections) + " connections" : "";
  const std::string latency = f.mean_latency_seconds > 0 ? FormatSeconds(f.mean_latency_seconds) : "unknown";
  const LowestCeiling lowest = FindLowestCeiling(v);
  bool late_said = false;

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
        detail = FormatCores(v.server_cores_used) + " of " + FormatCoreCount(f.server_cores) +
                 CoresWord(f.server_cores) + " = " + FormatPercent(v.server_utilization) + now +
                 CeilingSuffix("server", v.server_ceiling);
        break;
      case Source::kPool:
        detail = SharedUse(v, f) + now + CeilingSuffix("combined CPU", v.shared_ceiling);
        break;
      case Source::kNetwork:
        detail = FormatBits(v.network_bits_per_second) + " = " + FormatPercent(v.network_utilization) +
                 " of " + LinkText(f) + now + CeilingSuffix("network", v.network_ceiling);
        break;
    }
  } else if (on_target) {
    v.limit = Verdict::Limit::kOfferedLoad;
    detail = "open loop at a target of " + FormatNumber(f.open_model_rate) + " calls/s achieved " +
             FormatNumber(v.calls_per_second) +
             " calls/s with nothing saturated: the offered rate, not the system, bounds calls/s";
    if (f.late_calls > 0) {
      detail += "; " + CallsWere(f.late_calls) + " sent later than scheduled";
      late_said = true;
    }
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
        (open_model ? "open loop reached " + FormatNumber(v.calls_per_second) + " of the " +
                          FormatNumber(f.open_model_rate) + " calls/s target"
                    : FormatNumber(v.calls_per_second) + " calls/s") +
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
      if (v.network_utilization >= 0) measured.push_back("network");
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

  // The other resources, each with its ceiling, then the envelope share and late calls.
  const bool pool_is_limit = winner != nullptr && winner->source == Source::kPool;
  std::vector<std::string> others;
  const bool client_is_limit = winner != nullptr && winner->source == Source::kClient;
  const bool server_is_limit = winner != nullptr && winner->source == Source::kServer;
  if (!client_is_limit && !pool_is_limit) {
    others.push_back(v.client_cores_used < 0
                         ? "client CPU unknown (not measured)"
                         : "client used " +
                               CoresUsed(v.client_cores_used, f.client_cores, v.client_utilization) +
                               CeilingSuffix("client", v.client_ceiling));
  }
  if (!server_is_limit && !pool_is_limit) {
    others.push_back(v.server_cores_used < 0
                         ? "server CPU unknown (not measured)"
                         : "server used " +
                               CoresUsed(v.server_cores_used, f.server_cores, v.server_utilization) +
                               CeilingSuffix("server", v.server_ceiling));
  }
  if (f.shared_cores && !pool_is_limit) {
    if (pool_known && v.shared_utilization >= 0) {
      others.push_back(SharedUse(v, f) + CeilingSuffix("combined CPU", v.shared_ceiling));
    } else {
      others.push_back(
          "client and server share cores (pool not measured: machine cores or server CPU unknown)");
    }
  }
  if (winner == nullptr || winner->source != Source::kNetwork) {
    others.push_back(NetworkUse(v, f) + (v.network_bits_per_second < 0
                                             ? std::string()
                                             : CeilingSuffix("network", v.network_ceiling)));
  }
  if (f.envelope_share >= 0 && f.envelope_share <= 1) {
    others.push_back("envelope is " + FormatPercent(f.envelope_share) + " of bytes on the wire");
  }
  if (open_model && f.late_calls > 0 && !late_said) {
    others.push_back(CallsWere(f.late_calls) + " sent later than scheduled");
  }

  v.text = "limit: " + LimitName(v.limit) + " (" + detail + ").";
  for (size_t i = 0; i < others.size(); ++i) v.text += (i == 0 ? " " : "; ") + others[i];
  if (!others.empty()) v.text += ".";
  return v;
}

}  // namespace lather
