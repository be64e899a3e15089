// The verdict on a farm (issue 16): components named on the command line (nodes, the load balancer, the
// database), each judged against its own budget (a cgroup quota counts as its cores), the saturated one
// named in the text, the machine's shared cores, and the invariants (no share above 100%, no ceiling below
// what was achieved).
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "stress/verdict/component_judge.h"
#include "stress/verdict/verdict.h"

using lather::ComponentFigures;
using lather::ComponentLabel;
using lather::ComponentVerdict;
using lather::Judge;
using lather::RunFigures;
using lather::Verdict;

namespace {

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

ComponentFigures Component(const std::string& name, bool serving, std::vector<double> cpu, std::vector<double> cores) {
  ComponentFigures c;
  c.name = name;
  c.serving = serving;
  c.cpu_seconds = std::move(cpu);
  c.cores = std::move(cores);
  return c;
}

// A 10 s closed-model run through a balancer to `nodes` nodes of a quarter core each, each node at
// `node_share` of its quota, the balancer using `proxy_cores` of its 2 cores and the database
// `db_cores` of 2; the client at 0.2 of 1 core. 400 calls/s per node at full use.
RunFigures FarmRun(int nodes, double node_share, double proxy_cores, double db_cores) {
  RunFigures f;
  f.duration_seconds = 10;
  const double rate = 400.0 * nodes * node_share;
  f.calls_ok = static_cast<uint64_t>(rate * 10);
  f.connections = 64;
  f.mean_latency_seconds = 64 / rate;
  f.client_cpu_seconds = 2;
  f.client_cores = 1;
  f.loopback = true;
  f.machine_cores = 8;
  std::vector<double> cpu, cores;
  for (int i = 0; i < nodes; ++i) {
    cpu.push_back(10 * 0.25 * node_share);
    cores.push_back(0.25);
  }
  f.components.push_back(Component("node", true, cpu, cores));
  f.components.push_back(Component("haproxy", false, {10 * proxy_cores}, {2}));
  f.components.push_back(Component("postgres", false, {10 * db_cores}, {2}));
  f.server_cpu_seconds = 10 * 0.25 * node_share * nodes;
  f.server_cores = 0.25 * nodes;
  f.components_on_machine = true;
  return f;
}

void CheckInvariants(const Verdict& v) {
  INFO(v.text);
  for (double share : {v.client_utilization, v.server_utilization, v.machine_utilization}) CHECK(share <= 1.0);
  for (const ComponentVerdict& c : v.components) {
    CHECK(c.utilization <= 1.0);
    CHECK(c.max_instance_utilization <= 1.0);
    if (c.ceiling >= 0) CHECK(c.ceiling >= v.calls_per_second * 0.999999);
  }
  for (double ceiling : {v.client_ceiling, v.server_ceiling, v.network_ceiling}) {
    if (ceiling >= 0) CHECK(ceiling >= v.calls_per_second * 0.999999);
  }
  CHECK(!Has(v.text, "nan"));
  CHECK(!Has(v.text, "inf"));
}

}  // namespace

TEST_CASE("components are called by what they do, from their names", "[stress][verdict][farm]") {
  CHECK(ComponentLabel("node", 4) == "nodes");
  CHECK(ComponentLabel("node", 1) == "the node");
  CHECK(ComponentLabel("server", 1) == "the server");
  CHECK(ComponentLabel("haproxy", 1) == "the load balancer");
  CHECK(ComponentLabel("nginx", 1) == "the load balancer");
  CHECK(ComponentLabel("postgres", 1) == "the database");
  CHECK(ComponentLabel("db-1", 1) == "the database");
  CHECK(ComponentLabel("cache", 1) == "cache");
}

TEST_CASE("saturated quarter-core nodes are named with their count, budget and use", "[stress][verdict][farm]") {
  const Verdict v = Judge(FarmRun(4, 0.97, 0.3, 0.2));
  INFO(v.text);
  CheckInvariants(v);
  CHECK(v.limit == Verdict::Limit::kServerCpu);
  CHECK(v.component == "nodes");
  CHECK(Has(v.text, "limit: nodes (4 x 0.25 core, each at 97%)"));
  REQUIRE(v.components.size() == 3);
  CHECK(v.components[0].cores == Approx(1.0));
  CHECK(v.components[0].utilization == Approx(0.97));
  CHECK(v.server_utilization == Approx(0.97));
  // The nodes' ceiling is their quota's: 4 x 400 calls/s.
  CHECK(v.server_ceiling == Approx(1600).epsilon(0.01));
  // The other components follow, each with its use and ceiling.
  CHECK(Has(v.text, "the load balancer (haproxy) used 0.30 cores of 2 cores (at 15%)"));
  CHECK(Has(v.text, "the database (postgres) used 0.20 cores of 2 cores"));
}

TEST_CASE("a balancer at its budget is the limit even with the nodes below theirs", "[stress][verdict][farm]") {
  RunFigures f = FarmRun(4, 0.6, 0.0, 0.2);
  f.components[1].cores = {1};
  f.components[1].cpu_seconds = {9.9};  // 99% of its one core
  const Verdict v = Judge(f);
  INFO(v.text);
  CheckInvariants(v);
  CHECK(v.limit == Verdict::Limit::kComponentCpu);
  CHECK(v.component == "the load balancer");
  CHECK(Has(v.text, "limit: the load balancer (haproxy at 99% of a core)"));
  CHECK(Has(v.text, "nodes used 0.60 cores of 4 x 0.25 core (each at 60%)"));
  CHECK(Verdict::Limit::kComponentCpu != Verdict::Limit::kServerCpu);
}

TEST_CASE("a database at its budget is named as the database", "[stress][verdict][farm]") {
  RunFigures f = FarmRun(2, 0.5, 0.1, 0.0);
  f.components[2].cores = {0.5};
  f.components[2].cpu_seconds = {4.8};  // 96% of half a core
  const Verdict v = Judge(f);
  INFO(v.text);
  CheckInvariants(v);
  CHECK(v.component == "the database");
  CHECK(Has(v.text, "limit: the database (postgres at 96% of 0.50 core)"));
}

TEST_CASE("nodes unevenly loaded show their range, not one figure", "[stress][verdict][farm]") {
  RunFigures f = FarmRun(2, 0.9, 0.1, 0.1);
  f.components[0].cpu_seconds = {10 * 0.25 * 0.99, 10 * 0.25 * 0.81};
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.components[0].min_instance_utilization == Approx(0.81));
  CHECK(v.components[0].max_instance_utilization == Approx(0.99));
  CHECK(Has(v.text, "at 81-99%"));
}

TEST_CASE("the machine's cores shared by the harness and the farm can be the limit", "[stress][verdict][farm]") {
  // Two cores: the client 0.9 + four nodes at 60% of a quarter (0.6) + haproxy 0.45 + postgres 0.05 = 2.0.
  RunFigures f = FarmRun(4, 0.6, 0.45, 0.05);
  f.machine_cores = 2;
  f.client_cpu_seconds = 9;
  const Verdict v = Judge(f);
  INFO(v.text);
  CheckInvariants(v);
  CHECK(v.limit == Verdict::Limit::kComponentCpu);
  CHECK(v.component == "the machine's cores");
  CHECK(v.machine_utilization == Approx(1.0));
  CHECK(Has(v.text, "the harness and the farm share them"));
  // Off the machine (the components measured elsewhere), the same figures are not a shared pool.
  f.components_on_machine = false;
  const Verdict apart = Judge(f);
  CHECK(apart.machine_utilization < 0);
  CHECK(apart.component != "the machine's cores");
}

TEST_CASE("a saturated link into a balancer is said to be that link", "[stress][verdict][farm]") {
  RunFigures f = FarmRun(4, 0.5, 0.1, 0.1);
  f.loopback = false;
  f.link_declared = true;
  f.link_bits_per_second = 100e6;
  f.wire_up_bytes_per_call = 700;
  f.wire_down_bytes_per_call = 15000;  // 800 calls/s x 15 KB x 8 = 96 Mbit/s down
  f.wire_bytes_per_call = 15700;
  const Verdict v = Judge(f);
  INFO(v.text);
  CheckInvariants(v);
  CHECK(v.limit == Verdict::Limit::kNetwork);
  CHECK(v.component.empty());
  CHECK(Has(v.text, "limit: network (the link into the load balancer: responses"));
}

TEST_CASE("a component whose CPU is unknown keeps the verdict from calling it concurrency", "[stress][verdict][farm]") {
  RunFigures f = FarmRun(2, 0.3, 0.1, 0.1);
  f.components[2].cpu_seconds = {-1};
  f.components_on_machine = false;
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kUnknown);
  CHECK(Has(v.text, "postgres CPU"));
  CHECK(Has(v.text, "the database (postgres) CPU unknown (not measured)"));
}

TEST_CASE("farm verdicts keep their invariants on random figures", "[stress][verdict][farm]") {
  std::mt19937 random(16);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int i = 0; i < 2000; ++i) {
    RunFigures f = FarmRun(1 + static_cast<int>(4 * unit(random)), 1.2 * unit(random), 2.5 * unit(random),
                           2.5 * unit(random));
    if (unit(random) < 0.2) f.components[1].cores = {unit(random) < 0.5 ? 0 : unit(random)};
    if (unit(random) < 0.2) f.components[2].cpu_seconds = {unit(random) < 0.5 ? -1 : 40 * unit(random)};
    if (unit(random) < 0.1) f.calls_ok = 0;
    if (unit(random) < 0.3) f.machine_cores = 2;
    f.components_on_machine = unit(random) < 0.5;
    const Verdict v = Judge(f);
    CheckInvariants(v);
    CHECK(!v.text.empty());
  }
}

TEST_CASE("a node its quota throttled in most periods is the limit though its measured use reads lower, "
          "and one that was rarely throttled is not",
          "[stress][verdict][farm]") {
  // One node under a quarter core, its CPU read at 70% of it (the window's edges, a busy machine's
  // accounting), but the kernel stopped it for having used its quota in 90 of 100 periods.
  RunFigures f = FarmRun(1, 0.7, 0.1, 0.1);
  f.components[0].periods = {100};
  f.components[0].throttled_periods = {90};
  const Verdict held = Judge(f);
  INFO(held.text);
  CheckInvariants(held);
  REQUIRE(held.components[0].throttled_share == Approx(0.9));
  CHECK(held.limit == Verdict::Limit::kServerCpu);
  CHECK(held.component == "the node");
  CHECK(Has(held.text, "limit: the node (at 70% of 0.25 core, throttled by its quota in 90% of its periods)"));
  // Throttled in 10 of 100 periods: it had CPU to spare, so it is not named for its quota.
  f.components[0].throttled_periods = {10};
  const Verdict spare = Judge(f);
  INFO(spare.text);
  CHECK(spare.components[0].throttled_share == Approx(0.1));
  CHECK(spare.limit != Verdict::Limit::kServerCpu);
  CHECK_FALSE(Has(spare.text, "throttled"));
  // A balancer throttled by its quota is the limit the same way.
  RunFigures proxy = FarmRun(2, 0.5, 0.0, 0.1);
  proxy.components[1].cores = {0.5};
  proxy.components[1].cpu_seconds = {3.5};  // 70% of half a core
  proxy.components[1].periods = {100};
  proxy.components[1].throttled_periods = {80};
  const Verdict balancer = Judge(proxy);
  INFO(balancer.text);
  CHECK(balancer.limit == Verdict::Limit::kComponentCpu);
  CHECK(balancer.component == "the load balancer");
}
