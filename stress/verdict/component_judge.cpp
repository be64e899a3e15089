#include "stress/verdict/component_judge.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "stress/verdict/verdict_format.h"

namespace lather {
namespace {

// The name in lower case, without a trailing instance number or separator ("node-2" -> "node").
std::string BaseName(const std::string& name) {
  std::string base;
  for (char c : name) base += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!base.empty() && (std::isdigit(static_cast<unsigned char>(base.back())) || base.back() == '-' ||
                           base.back() == '_' || base.back() == '.')) {
    base.pop_back();
  }
  return base;
}

bool OneOf(const std::string& s, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (s == n) return true;
  }
  return false;
}

double Share(double used, double budget) {
  if (used < 0 || budget <= 0) return -1;
  const double share = used / budget;
  return std::isfinite(share) ? std::min(share, 1.0) : -1;
}

// "0.25 core", "1 core", "2 cores".
std::string Cores(double cores) { return FormatCoreCount(cores) + (cores <= 1 ? " core" : " cores"); }

// Percent without its sign ("81"), for ranges.
std::string Bare(double share) {
  std::string p = FormatPercent(share);
  if (!p.empty() && p.back() == '%') p.pop_back();
  return p;
}

// The name beside the label, unless it says nothing more ("nodes" of "node").
bool NameAddsToLabel(const ComponentVerdict& c) { return c.label != c.name && RoleOf(c.name) != ComponentRole::kNode; }

// "at 97%" when the instances are within 5 points of each other, else "at 80-99%".
std::string InstancesAt(const ComponentVerdict& c) {
  if (c.min_instance_utilization < 0 || c.max_instance_utilization < 0) {
    return c.utilization >= 0 ? "at " + FormatPercent(c.utilization) + " in all" : "use unknown";
  }
  if (c.max_instance_utilization - c.min_instance_utilization <= 0.05) {
    return std::string(c.instances > 1 ? "each " : "") + "at " + FormatPercent(c.utilization);
  }
  return "at " + Bare(c.min_instance_utilization) + "-" + FormatPercent(c.max_instance_utilization);
}

}  // namespace

ComponentRole RoleOf(const std::string& name) {
  const std::string base = BaseName(name);
  if (OneOf(base, {"node", "nodes", "server", "servers", "service", "services", "worker", "workers", "lather",
                   "lather-service", "backend", "backends", "app"})) {
    return ComponentRole::kNode;
  }
  if (OneOf(base, {"haproxy", "nginx", "envoy", "traefik", "proxy", "balancer", "load-balancer", "loadbalancer",
                   "lb", "frontend"})) {
    return ComponentRole::kBalancer;
  }
  if (OneOf(base, {"postgres", "postgresql", "pg", "postmaster", "database", "db", "mysql", "mariadb", "store"})) {
    return ComponentRole::kDatabase;
  }
  return ComponentRole::kOther;
}

std::string ComponentLabel(const std::string& name, int instances) {
  switch (RoleOf(name)) {
    case ComponentRole::kNode:
      if (instances > 1) return "nodes";
      return BaseName(name).rfind("server", 0) == 0 || BaseName(name).rfind("service", 0) == 0 ? "the server"
                                                                                                 : "the node";
    case ComponentRole::kBalancer:
      return "the load balancer";
    case ComponentRole::kDatabase:
      return "the database";
    case ComponentRole::kOther:
      break;
  }
  return name;
}

ComponentVerdict JudgeComponent(const ComponentFigures& f, double duration_seconds, double calls) {
  ComponentVerdict c;
  c.name = f.name;
  c.serving = f.serving;
  c.instances = static_cast<int>(std::max(f.cpu_seconds.size(), f.cores.size()));
  c.label = ComponentLabel(f.name, c.instances);
  if (duration_seconds <= 0 || !std::isfinite(duration_seconds) || c.instances == 0) return c;
  double cpu = 0, cores = 0, lowest = 2, highest = -1;
  bool cpu_known = true, cores_known = true;
  for (int i = 0; i < c.instances; ++i) {
    const size_t at = static_cast<size_t>(i);
    const double seconds = at < f.cpu_seconds.size() ? f.cpu_seconds[at] : -1;
    const double budget = at < f.cores.size() ? f.cores[at] : 0;
    const bool seconds_known = seconds >= 0 && std::isfinite(seconds);
    const bool budget_known = budget > 0 && std::isfinite(budget);
    cpu_known = cpu_known && seconds_known;
    cores_known = cores_known && budget_known;
    if (seconds_known) cpu += seconds;
    if (budget_known) cores += budget;
    if (!seconds_known || !budget_known) continue;
    const double u = Share(seconds / duration_seconds, budget);
    lowest = std::min(lowest, u);
    highest = std::max(highest, u);
  }
  if (cpu_known && cores_known && highest >= 0) {
    c.min_instance_utilization = lowest;
    c.max_instance_utilization = highest;
  }
  if (cores_known) c.cores = cores;
  double periods = 0, throttled = 0;
  bool throttling_known = !f.periods.empty() && f.periods.size() == f.throttled_periods.size();
  for (size_t i = 0; throttling_known && i < f.periods.size(); ++i) {
    throttling_known = f.periods[i] >= 0 && f.throttled_periods[i] >= 0;
    periods += f.periods[i];
    throttled += f.throttled_periods[i];
  }
  if (throttling_known && periods > 0) c.throttled_share = std::min(1.0, throttled / periods);
  if (!cpu_known) return c;
  c.cores_used = cpu / duration_seconds;
  c.utilization = cores_known ? Share(c.cores_used, cores) : -1;
  if (calls > 0) {
    c.cpu_per_call = cpu / calls;
    if (c.cpu_per_call > 0 && cores_known) {
      c.ceiling = cores / c.cpu_per_call;
      const double rate = calls / duration_seconds;
      if (c.ceiling < rate) c.ceiling = rate;  // never below what was achieved
    }
  }
  return c;
}

std::string DescribeComponent(const ComponentVerdict& c) {
  std::string budget;
  if (c.cores > 0 && c.instances > 1) {
    budget = std::to_string(c.instances) + " x " + Cores(c.cores / c.instances);
  } else if (c.cores > 0) {
    budget = Cores(c.cores);
  }
  if (c.instances > 1) {
    return c.label + " (" + (NameAddsToLabel(c) ? c.name + ", " : "") + (budget.empty() ? "" : budget + ", ") +
           InstancesAt(c) + ")";
  }
  const std::string who = NameAddsToLabel(c) ? c.name + " " : "";
  if (c.utilization < 0) return c.label + " (" + who + "use unknown)";
  return c.label + " (" + who + "at " + FormatPercent(c.utilization) + " of " +
         (c.cores == 1 ? std::string("a core") : Cores(c.cores)) +
         (c.throttled_share >= kThrottled ? ", throttled by its quota in " + FormatPercent(c.throttled_share) +
                                                " of its periods"
                                          : "") +
         ")";
}

std::string ComponentUse(const ComponentVerdict& c) {
  const std::string who = NameAddsToLabel(c) ? c.label + " (" + c.name + ")" : c.label;
  if (c.cores_used < 0) return who + " CPU unknown (not measured)";
  std::string text = who + " used " + FormatCores(c.cores_used) + " cores";
  if (c.cores > 0) {
    text += " of " + (c.instances > 1 ? std::to_string(c.instances) + " x " + Cores(c.cores / c.instances)
                                      : Cores(c.cores));
    if (c.utilization >= 0) text += " (" + InstancesAt(c) + ")";
  }
  if (c.ceiling >= 0) {
    text += " -> " + c.name + " ceiling ~ " + FormatApprox(c.ceiling) + " calls/s";
  } else {
    text += " -> " + c.name + " ceiling unknown";
  }
  return text;
}

}  // namespace lather
