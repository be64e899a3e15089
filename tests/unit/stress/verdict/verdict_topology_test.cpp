// The verdict on real topologies (issue 14): a link judged per direction, a pegged thread in a process
// with cores to spare, a server that waits or serializes, where the server's CPU goes, and the invariants
// every verdict keeps (no share above 100%, no ceiling below what was achieved).
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "stress/verdict/verdict.h"

using lather::Judge;
using lather::RunFigures;
using lather::Verdict;

namespace {

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A 10 s closed-model run on a 10 Mbit/s link between two hosts: 1,300 calls/s on 50 connections,
// requests of 300 bytes and responses of 900 bytes on the wire, client and server far from their CPU.
RunFigures TwoHostRun() {
  RunFigures f;
  f.duration_seconds = 10;
  f.calls_ok = 13'000;
  f.connections = 50;
  f.mean_latency_seconds = 50.0 / 1300;
  f.client_cpu_seconds = 1;  // 0.1 of 1 core
  f.client_cores = 1;
  f.server_cpu_seconds = 2;  // 0.2 of 1 core
  f.server_cores = 1;
  f.wire_bytes_per_call = 1200;
  f.wire_up_bytes_per_call = 300;
  f.wire_down_bytes_per_call = 900;
  f.link_bits_per_second = 10e6;
  f.link_declared = true;
  return f;
}

// The invariants every verdict keeps.
void CheckInvariants(const Verdict& v) {
  INFO(v.text);
  for (double share : {v.client_utilization, v.server_utilization, v.network_utilization, v.network_up_utilization,
                       v.network_down_utilization, v.shared_utilization, v.client_thread_peak, v.server_thread_peak}) {
    CHECK(share <= 1.0);
  }
  for (double ceiling : {v.client_ceiling, v.server_ceiling, v.network_ceiling, v.shared_ceiling}) {
    if (ceiling >= 0) CHECK(ceiling >= v.calls_per_second * 0.999999);
  }
}

}  // namespace

TEST_CASE("a full-duplex link is judged per direction: the busier one limits", "[stress][verdict][topology]") {
  const Verdict v = Judge(TwoHostRun());
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kNetwork);
  CHECK(v.network_up_utilization == Approx(1300.0 * 300 * 8 / 10e6));    // 31%
  CHECK(v.network_down_utilization == Approx(1300.0 * 900 * 8 / 10e6));  // 94%
  CHECK(v.network_utilization == Approx(v.network_down_utilization));
  CHECK(v.network_ceiling == Approx(10e6 / (900 * 8)));  // 1,389 calls/s: above the 1,300 achieved
  CHECK(Has(v.text, "limit: network (responses, server to client: 9.4 Mbit/s = 94% of 10 Mbit/s each way"));
  CHECK(Has(v.text, "network ceiling ~ 1,390 calls/s"));
  CheckInvariants(v);
}

TEST_CASE("the old sum of both directions would have read 125% of the link, per direction it never passes 100%",
          "[stress][verdict][topology]") {
  RunFigures f = TwoHostRun();
  f.calls_ok = 17'500;  // 1,750 calls/s: 16.8 Mbit/s both ways, 12.6 Mbit/s down on a 10 Mbit/s link
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.network_utilization <= 1.0);
  CHECK(v.network_ceiling >= v.calls_per_second);
  CHECK(Has(v.text, "more went through than the declared 10 Mbit/s can carry: the link is faster than declared"));
  CheckInvariants(v);
}

TEST_CASE("a half-duplex link carries both directions in one capacity", "[stress][verdict][topology]") {
  RunFigures f = TwoHostRun();
  f.half_duplex = true;
  f.calls_ok = 10'000;  // 1,000 calls/s x 9,600 bits = 9.6 Mbit/s
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kNetwork);
  CHECK(v.network_utilization == Approx(0.96));
  CHECK(v.network_utilization == Approx(v.network_up_utilization + v.network_down_utilization));
  CHECK(v.network_ceiling == Approx(10e6 / 9600));
  CHECK(Has(v.text, "half duplex"));
  CheckInvariants(v);
  f.half_duplex = false;  // full duplex, the same traffic leaves the link at 72%
  CHECK(Judge(f).limit != Verdict::Limit::kNetwork);
}

TEST_CASE("a single-threaded server pegged on a 2-core machine is server CPU, not concurrency",
          "[stress][verdict][topology]") {
  RunFigures f;  // the case: one process, one thread at 0.99 of a core, 50 connections
  f.duration_seconds = 10;
  f.calls_ok = 40'000;  // 4,000 calls/s
  f.connections = 50;
  f.mean_latency_seconds = 50.0 / 4000;
  f.client_cpu_seconds = 1.5;
  f.client_cores = 2;
  f.server_cpu_seconds = 9.9;
  f.server_cores = 2;
  f.server_thread_peak_cpu_seconds = 9.9;
  f.server_threads = 1;
  f.wire_up_bytes_per_call = 400;
  f.wire_down_bytes_per_call = 450;
  f.wire_bytes_per_call = 850;
  f.loopback = true;
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kServerCpu);
  CHECK(v.saturated_thread == "server");
  CHECK(v.server_utilization == Approx(0.495));
  CHECK(v.server_thread_peak == Approx(0.99));
  CHECK(v.server_ceiling == Approx(4000 / 0.99));  // the thread's ceiling, not 2 cores' 8,080
  CHECK(Has(v.text, "limit: server CPU (one thread at 99% of a core at 4,000 calls/s while the server uses 0.99 of 2 "
                    "cores (50%): a single-threaded server; more connections will not help"));
  CHECK(v.suggested_connections == 0);
  CheckInvariants(v);

  SECTION("without the per-thread figure it reads as concurrency, which is what the issue saw") {
    f.server_thread_peak_cpu_seconds = -1;
    CHECK(Judge(f).limit == Verdict::Limit::kConcurrency);
  }
}

TEST_CASE("a load thread pegged while the client has cores to spare is client CPU", "[stress][verdict][topology]") {
  RunFigures f = TwoHostRun();
  f.link_bits_per_second = 1e9;  // the link is far from full
  f.client_cores = 2;
  f.client_cpu_seconds = 10.2;  // 1.02 of 2 cores
  f.client_thread_peak_cpu_seconds = 9.7;
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kClientCpu);
  CHECK(v.saturated_thread == "client");
  CHECK(Has(v.text, "one load thread at 97% of a core"));
  CHECK(Has(v.text, "more --threads would help"));
  CheckInvariants(v);
}

TEST_CASE("a server that serializes its calls is server waiting: latency grew N-fold, calls/s stayed flat",
          "[stress][verdict][topology]") {
  RunFigures f;  // 2 ms per call behind one lock, 20 connections: 500 calls/s whatever the connections
  f.duration_seconds = 3;
  f.calls_ok = 1'490;
  f.connections = 20;
  f.mean_latency_seconds = 0.040;
  f.unloaded_latency_seconds = 0.0021;
  f.client_cpu_seconds = 0.05;
  f.client_cores = 1;
  f.server_cpu_seconds = 0.09;  // 3% of a core
  f.server_cores = 1;
  f.server_thread_peak_cpu_seconds = 0.09;
  f.loopback = true;
  f.wire_up_bytes_per_call = f.wire_down_bytes_per_call = 500;
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kServerWaiting);
  CHECK(v.serializing);
  CHECK(Has(v.text, "calls/s did not grow with connections"));
  CHECK(Has(v.text, "the server serializes its calls; more connections will not help"));
  CheckInvariants(v);

  SECTION("with its CPU unmeasured the server is still named, and the verdict says what it cannot tell") {
    f.server_cpu_seconds = -1;
    f.server_thread_peak_cpu_seconds = -1;
    const Verdict unknown = Judge(f);
    INFO(unknown.text);
    CHECK(unknown.limit == Verdict::Limit::kUnknown);
    CHECK(Has(unknown.text, "the server bounds calls/s"));
    CHECK(Has(unknown.text, "whether it computes or waits is unknown"));
  }
  SECTION("a server that sleeps without a lock scales with connections: concurrency") {
    f.connections = 4;
    f.calls_ok = 5'600;  // 1,867 calls/s = 3.9 x the 1-connection rate
    f.mean_latency_seconds = 0.00214;
    const Verdict scaling = Judge(f);
    INFO(scaling.text);
    CHECK(scaling.limit == Verdict::Limit::kConcurrency);
    CHECK_FALSE(scaling.serializing);
  }
}

TEST_CASE("Lather's /metrics tell a server waiting for its store from one computing",
          "[stress][verdict][topology]") {
  RunFigures f;  // IncCounter at 50 connections, the store's commits under 4.1 ms of execution
  f.duration_seconds = 10;
  f.calls_ok = 110'000;
  f.connections = 50;
  f.mean_latency_seconds = 0.0045;
  f.client_cpu_seconds = 2;
  f.client_cores = 1;
  f.server_cpu_seconds = 3.3;  // 30 us per call
  f.server_cores = 1;
  f.server_exec_seconds_per_call = 0.0041;
  f.server_queue_wait_seconds_per_call = 0.0002;
  f.server_xml_seconds_per_call = 6e-6;
  f.store_operation = true;
  f.loopback = true;
  f.wire_up_bytes_per_call = f.wire_down_bytes_per_call = 450;
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kServerWaiting);
  CHECK_FALSE(v.serializing);
  CHECK(Has(v.text, "execution 4.10 ms per call after 200 us in its queue at 30 us of CPU: it waits for the store"));
  CHECK(Has(v.text, "server CPU per call 30 us: XML parse + serialize 6.0 us (20%), HTTP, kernel and the rest 24 us"));
  CheckInvariants(v);

  SECTION("the same server computing (execution about its CPU) is not waiting") {
    f.server_exec_seconds_per_call = 40e-6;
    f.server_queue_wait_seconds_per_call = 0;
    CHECK(Judge(f).limit == Verdict::Limit::kConcurrency);
  }
}

TEST_CASE("on loopback with no link declared there is no wire to saturate", "[stress][verdict][topology]") {
  RunFigures f = TwoHostRun();
  f.loopback = true;
  f.link_declared = false;
  f.link_bits_per_second = 1e9;
  f.calls_ok = 2'000'000;  // 200,000 calls/s x 9,600 bits = 1.9 Gbit/s: past the old assumed 1 Gbit/s
  f.client_cpu_seconds = 5;
  f.server_cpu_seconds = 5;  // both at 50%
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kConcurrency);
  CHECK(Has(v.text, "loopback, no wire (declare --link to judge one)"));
  CheckInvariants(v);
}

TEST_CASE("no share above 100% and no ceiling below the achieved rate, whatever the figures",
          "[stress][verdict][topology]") {
  std::mt19937_64 random(14);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int i = 0; i < 20'000; ++i) {
    RunFigures f;
    f.duration_seconds = 0.5 + 10 * unit(random);
    f.calls_ok = 1 + static_cast<uint64_t>(1e6 * unit(random));
    f.connections = 1 + static_cast<int>(200 * unit(random));
    f.mean_latency_seconds = unit(random) * 0.05;
    f.client_cores = 1 + static_cast<int>(4 * unit(random));
    f.client_cpu_seconds = f.duration_seconds * f.client_cores * 1.1 * unit(random);  // up to 110%: noise
    f.server_cores = static_cast<int>(5 * unit(random));
    f.server_cpu_seconds = unit(random) < 0.2 ? -1 : f.duration_seconds * (f.server_cores + 0.5) * unit(random);
    f.shared_cores = unit(random) < 0.5;
    f.machine_cores = 2;
    f.client_thread_peak_cpu_seconds = f.duration_seconds * 1.05 * unit(random);
    f.server_thread_peak_cpu_seconds = unit(random) < 0.3 ? -1 : f.duration_seconds * 1.05 * unit(random);
    f.wire_up_bytes_per_call = unit(random) < 0.1 ? -1 : 5000 * unit(random);
    f.wire_down_bytes_per_call = 5000 * unit(random);
    f.wire_bytes_per_call = 10000 * unit(random);
    f.link_bits_per_second = unit(random) < 0.1 ? 0 : 1e10 * unit(random);
    f.link_declared = unit(random) < 0.5;
    f.half_duplex = unit(random) < 0.3;
    f.loopback = unit(random) < 0.3;
    f.unloaded_latency_seconds = unit(random) < 0.5 ? -1 : 0.01 * unit(random);
    f.server_exec_seconds_per_call = unit(random) < 0.5 ? -1 : 0.01 * unit(random);
    f.server_xml_seconds_per_call = unit(random) < 0.5 ? -1 : 1e-4 * unit(random);
    f.open_model_rate = unit(random) < 0.3 ? 1e5 * unit(random) : 0;
    const Verdict v = Judge(f);
    bool ok = true;
    for (double share : {v.client_utilization, v.server_utilization, v.network_utilization,
                         v.network_up_utilization, v.network_down_utilization, v.shared_utilization,
                         v.client_thread_peak, v.server_thread_peak}) {
      ok = ok && share <= 1.0;
    }
    for (double ceiling : {v.client_ceiling, v.server_ceiling, v.network_ceiling, v.shared_ceiling}) {
      ok = ok && (ceiling < 0 || ceiling >= v.calls_per_second * 0.999999);
    }
    if (!ok) {
      INFO("case " << i << ": " << v.text);
      CheckInvariants(v);
      break;
    }
  }
}
