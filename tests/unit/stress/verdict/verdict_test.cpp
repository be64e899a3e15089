#include "stress/verdict/verdict.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>

using lather::Judge;
using lather::LimitName;
using lather::RunFigures;
using lather::Verdict;

namespace {

// True when `text` contains `part`; keeps the CHECK lines short.
bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The text never shows non-finite numbers.
bool Clean(const std::string& text) { return !Has(text, "nan") && !Has(text, "inf") && !Has(text, "NaN"); }

// A 10 s closed-model run of 200,000 calls (20,000 calls/s) on 16 connections, 0.8 ms mean latency, with a
// client using 1.97 of 2 cores, a server using 1.2 of 4 cores, 200 bytes per call on an assumed 1 Gbit/s
// link.
RunFigures ClientBoundRun() {
  RunFigures f;
  f.duration_seconds = 10;
  f.calls_ok = 200'000;
  f.connections = 16;
  f.mean_latency_seconds = 0.0008;
  f.client_cpu_seconds = 19.7;
  f.client_cores = 2;
  f.server_cpu_seconds = 12;
  f.server_cores = 4;
  f.wire_bytes_per_call = 200;
  f.envelope_share = 0.87;
  return f;
}

// A 10 s closed-model run at 10,000 calls/s on 16 connections with 1.6 ms mean latency (X x R = 16) where
// nothing is saturated: client 0.5 of 2 cores, server 0.8 of 4 cores, 500 bytes per call (40 Mbit/s).
RunFigures UnsaturatedRun() {
  RunFigures f;
  f.duration_seconds = 10;
  f.calls_ok = 100'000;
  f.connections = 16;
  f.mean_latency_seconds = 0.0016;
  f.client_cpu_seconds = 5;
  f.client_cores = 2;
  f.server_cpu_seconds = 8;
  f.server_cores = 4;
  f.wire_bytes_per_call = 500;
  f.link_bits_per_second = 1e9;
  f.link_declared = true;
  return f;
}

}  // namespace

TEST_CASE("a run using 1.97 of 2 client cores is client-bound", "[stress][verdict]") {
  const Verdict v = Judge(ClientBoundRun());
  CHECK(v.limit == Verdict::Limit::kClientCpu);
  CHECK(v.calls_per_second == Approx(20'000));
  CHECK(v.client_cores_used == Approx(1.97));
  CHECK(v.client_utilization == Approx(0.985));
  CHECK(v.client_ceiling == Approx(2 / (19.7 / 200'000)));  // cores / CPU per call = 20,304.6
  CHECK(v.server_cores_used == Approx(1.2));
  CHECK(v.server_utilization == Approx(0.3));
  CHECK(v.server_ceiling == Approx(4 / (12.0 / 200'000)));       // 66,666.7
  CHECK(v.network_bits_per_second == Approx(20'000 * 200 * 8));  // 32 Mbit/s
  CHECK(v.network_utilization == Approx(0.032));
  CHECK(v.network_ceiling == Approx(1e9 / 1600));  // 625,000
  CHECK(v.suggested_connections == 0);
  CHECK(v.text.rfind("limit: client CPU (1.97 of 2 cores", 0) == 0);
}

TEST_CASE("the text names the limit first, then each other resource with its ceiling, then the envelope",
          "[stress][verdict]") {
  const std::string text = Judge(ClientBoundRun()).text;
  INFO(text);
  CHECK(text ==
        "limit: client CPU (1.97 of 2 cores = 98% at 20,000 calls/s -> client ceiling ~ 20,300 calls/s). "
        "server used 1.20 of 4 cores (30%) -> server ceiling ~ 66,700 calls/s; "
        "network 32 Mbit/s = 3% of 1 Gbit/s (assumed 1 Gbit/s; declare with --link) -> network ceiling ~ "
        "625,000 calls/s; where the server's CPU goes is unknown (it serves no Lather /metrics); SOAP envelope and "
        "HTTP are 87% of the bytes at the sockets (payload 13%; TCP/IP not counted).");
  const size_t limit_at = text.find("limit: client CPU");
  const size_t server_at = text.find("server ceiling");
  const size_t network_at = text.find("network ceiling");
  const size_t envelope_at = text.find("SOAP envelope and HTTP are 87%");
  CHECK(limit_at == 0);
  CHECK(limit_at < server_at);
  CHECK(server_at < network_at);
  CHECK(network_at < envelope_at);
  CHECK(envelope_at != std::string::npos);
}

TEST_CASE("a server using 3.8 of 4 cores while the client idles is server-bound", "[stress][verdict]") {
  RunFigures f = ClientBoundRun();
  f.client_cpu_seconds = 5;   // 0.5 of 2 cores
  f.server_cpu_seconds = 38;  // 3.8 of 4 cores
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kServerCpu);
  CHECK(v.server_utilization == Approx(0.95));
  CHECK(v.server_ceiling == Approx(4 / (38.0 / 200'000)));  // 21,052.6
  CHECK(v.client_ceiling == Approx(2 / (5.0 / 200'000)));   // 80,000
  CHECK(Has(v.text, "limit: server CPU (3.80 of 4 cores = 95% at 20,000 calls/s -> server ceiling ~ 21,100"));
  CHECK(Has(v.text, "client used 0.50 of 2 cores (25%) -> client ceiling ~ 80,000 calls/s"));
}

TEST_CASE("a declared 100 Mbit/s link carrying 95 Mbit/s is network-bound", "[stress][verdict]") {
  RunFigures f = UnsaturatedRun();
  f.calls_ok = 95'000;           // 9,500 calls/s
  f.wire_bytes_per_call = 1250;  // 10,000 bits per call -> 95 Mbit/s
  f.link_bits_per_second = 100e6;
  f.link_declared = true;
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kNetwork);
  CHECK(v.network_bits_per_second == Approx(95e6));
  CHECK(v.network_utilization == Approx(0.95));
  CHECK(v.network_ceiling == Approx(10'000));
  CHECK(Has(v.text,
            "limit: network (95 Mbit/s = 95% of 100 Mbit/s at 9,500 calls/s -> network ceiling ~ "
            "10,000 calls/s)"));
  CHECK_FALSE(Has(v.text, "assumed"));
}

TEST_CASE("when several resources are saturated the most utilized one is the limit", "[stress][verdict]") {
  RunFigures f = ClientBoundRun();  // client at 98.5%
  f.link_bits_per_second = 32.5e6;  // 32 Mbit/s on it: 98.46%, just below the client
  f.link_declared = true;
  CHECK(Judge(f).limit == Verdict::Limit::kClientCpu);
  f.link_bits_per_second = 32.2e6;  // 99.4%
  CHECK(Judge(f).limit == Verdict::Limit::kNetwork);
  f.client_cpu_seconds = 17.2;  // 86%: saturated, but the link is fuller
  CHECK(Judge(f).limit == Verdict::Limit::kNetwork);
  f.link_bits_per_second = 1e9;  // 3%: the client alone is saturated
  CHECK(Judge(f).limit == Verdict::Limit::kClientCpu);
}

TEST_CASE("with nothing saturated the run is concurrency-bound and Little's law sizes the pool",
          "[stress][verdict]") {
  const RunFigures f = UnsaturatedRun();
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kConcurrency);
  CHECK(v.client_ceiling == Approx(40'000));    // 2 cores / 50 us per call
  CHECK(v.server_ceiling == Approx(50'000));    // 4 cores / 80 us per call
  CHECK(v.network_ceiling == Approx(250'000));  // 1 Gbit/s / 4,000 bits per call
  // N = X x R with X the lowest ceiling (client, 40,000 calls/s) and R the mean latency (1.6 ms).
  CHECK(v.suggested_connections == std::ceil(v.client_ceiling * f.mean_latency_seconds));
  CHECK(v.suggested_connections == 64);
  CHECK(Has(v.text,
            "limit: concurrency (nothing is saturated: 10,000 calls/s at 16 connections with mean "
            "latency 1.60 ms; by Little's law (N = X x R) at least 64 connections would reach the "
            "lowest ceiling, client CPU ~ 40,000 calls/s)"));
  CHECK(Has(v.text, "server ceiling ~ 50,000 calls/s"));
  CHECK(Has(v.text, "network 40 Mbit/s = 4% of 1 Gbit/s -> network ceiling ~ 250,000 calls/s"));
}

TEST_CASE("Little's law rounds a fractional connection count up", "[stress][verdict]") {
  RunFigures f = UnsaturatedRun();
  f.mean_latency_seconds = 0.00161;  // 40,000 x 1.61 ms = 64.4
  const Verdict v = Judge(f);
  CHECK(v.limit == Verdict::Limit::kConcurrency);
  CHECK(v.suggested_connections == 65);
}

TEST_CASE("a 2-core machine shared by a client using 0.9 and a server using 1.0 cores is server CPU-bound",
          "[stress][verdict]") {
  RunFigures f;
  f.duration_seconds = 10;
  f.calls_ok = 100'000;  // 10,000 calls/s
  f.connections = 8;
  f.mean_latency_seconds = 0.0008;
  f.client_cpu_seconds = 9;   // 0.9 cores, 90 us per call
  f.client_cores = 2;         // both may use both cores: alone, neither is above 50%
  f.server_cpu_seconds = 10;  // 1.0 cores, 100 us per call
  f.server_cores = 2;
  f.shared_cores = true;
  f.machine_cores = 2;
  f.wire_bytes_per_call = 600;
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kServerCpu);
  CHECK(v.client_utilization == Approx(0.45));
  CHECK(v.server_utilization == Approx(0.5));
  CHECK(v.shared_utilization == Approx(0.95));
  CHECK(v.shared_ceiling == Approx(2 / (90e-6 + 100e-6)));  // 10,526
  CHECK(v.server_ceiling == Approx(v.shared_ceiling));      // capped by the pool
  CHECK(v.client_ceiling == Approx(v.shared_ceiling));
  CHECK(Has(v.text,
            "limit: server CPU (client and server share the machine's 2 cores: client 0.90 + server "
            "1.00 = 1.90 of 2 (95%) at 10,000 calls/s -> combined CPU ceiling ~ 10,500 calls/s)"));

  SECTION("the client is named when it uses more of the pool") {
    f.client_cpu_seconds = 11;
    f.server_cpu_seconds = 7;
    CHECK(Judge(f).limit == Verdict::Limit::kClientCpu);
  }
  SECTION("a pool below 85% is not CPU-bound but still reported as shared") {
    f.client_cpu_seconds = 5;
    f.server_cpu_seconds = 6;  // 1.1 of 2 cores: 55%
    const Verdict unsaturated = Judge(f);
    INFO(unsaturated.text);
    CHECK(unsaturated.limit == Verdict::Limit::kConcurrency);
    CHECK(Has(unsaturated.text, "client and server share the machine's 2 cores"));
    CHECK(unsaturated.suggested_connections == std::ceil(unsaturated.shared_ceiling * 0.0008));
  }
}

TEST_CASE("an open-loop run that reaches its target with nothing saturated is bound by the offered load",
          "[stress][verdict]") {
  RunFigures f = UnsaturatedRun();
  f.open_model_rate = 10'000;
  f.calls_ok = 99'800;  // 9,980 calls/s
  f.late_calls = 12;
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kOfferedLoad);
  CHECK(LimitName(v.limit) == "offered load");
  CHECK(v.suggested_connections == 0);
  CHECK(Has(v.text,
            "limit: offered load (open loop at a target of 10,000 calls/s achieved 9,980 calls/s with "
            "nothing saturated: the offered rate, not the system, bounds calls/s; 12 calls were sent "
            "later than scheduled)"));
  CHECK(Has(v.text, "client ceiling ~ 39,900 calls/s"));  // 2 cores / (5 s / 99,800 calls)

  SECTION("one that falls short of its target with nothing saturated is concurrency-bound") {
    f.open_model_rate = 20'000;  // 9,980 is 50% of it
    const Verdict short_of_target = Judge(f);
    INFO(short_of_target.text);
    CHECK(short_of_target.limit == Verdict::Limit::kConcurrency);
    CHECK(short_of_target.suggested_connections == std::ceil(20'000 * f.mean_latency_seconds));  // 32
    CHECK(Has(short_of_target.text, "open loop reached 9,980 of the 20,000 calls/s target"));
    CHECK(Has(short_of_target.text, "12 calls were sent later than scheduled"));
  }
  SECTION("one that saturates a resource is bound by that resource") {
    f.client_cpu_seconds = 19;  // 95% of 2 cores
    CHECK(Judge(f).limit == Verdict::Limit::kClientCpu);
  }
}

TEST_CASE("an unknown server CPU does not hide a saturated client and is said to be unknown",
          "[stress][verdict]") {
  RunFigures f = ClientBoundRun();
  f.server_cpu_seconds = -1;
  f.server_cores = 0;
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kClientCpu);
  CHECK(v.server_cores_used < 0);
  CHECK(v.server_utilization < 0);
  CHECK(v.server_ceiling < 0);
  CHECK(Has(v.text, "server CPU unknown (not measured)"));
  CHECK(Clean(v.text));
}

TEST_CASE(
    "with server CPU unknown and nothing else saturated the limit is unknown but connections are "
    "suggested",
    "[stress][verdict]") {
  RunFigures f = UnsaturatedRun();
  f.server_cpu_seconds = -1;
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kUnknown);
  CHECK(v.suggested_connections == 64);  // for the lowest known ceiling, the client's 40,000 calls/s
  CHECK(Has(v.text,
            "limit: unknown (client CPU and network are not saturated but server CPU was not measured"));
  CHECK(Has(v.text, "at least 64 connections would reach the lowest known ceiling, client CPU ~ 40,000"));
  CHECK(Clean(v.text));
}

TEST_CASE("server CPU known without its core count gives cores used but no ceiling", "[stress][verdict]") {
  RunFigures f = ClientBoundRun();
  f.server_cores = 0;
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(v.limit == Verdict::Limit::kClientCpu);
  CHECK(v.server_cores_used == Approx(1.2));
  CHECK(v.server_utilization < 0);
  CHECK(v.server_ceiling < 0);
  CHECK(Has(v.text, "server used 1.20 cores (cores available unknown) -> server ceiling unknown"));
}

TEST_CASE("a run with zero calls or an empty window is unknown and says why", "[stress][verdict]") {
  RunFigures f = ClientBoundRun();
  f.calls_ok = 0;
  const Verdict no_calls = Judge(f);
  CHECK(no_calls.limit == Verdict::Limit::kUnknown);
  CHECK(no_calls.text ==
        "limit: unknown (no successful calls in the measured window, so there are no per-call "
        "costs to judge)");
  CHECK(no_calls.calls_per_second == 0);
  CHECK(no_calls.client_ceiling < 0);
  CHECK(no_calls.suggested_connections == 0);

  f = ClientBoundRun();
  f.duration_seconds = 0;
  const Verdict no_window = Judge(f);
  CHECK(no_window.limit == Verdict::Limit::kUnknown);
  CHECK(Has(no_window.text, "the measured window is empty"));
  CHECK(no_window.calls_per_second == 0);
}

TEST_CASE("non-finite, zero or missing figures never reach the text as nan or inf", "[stress][verdict]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  RunFigures f = UnsaturatedRun();
  f.client_cpu_seconds = 0;  // below the clock's resolution: no ceiling can be derived
  f.mean_latency_seconds = nan;
  f.link_bits_per_second = inf;
  f.envelope_share = nan;
  const Verdict v = Judge(f);
  INFO(v.text);
  CHECK(std::isfinite(v.calls_per_second));
  CHECK(v.client_ceiling < 0);
  CHECK(v.network_ceiling < 0);
  CHECK(Clean(v.text));
  CHECK(v.limit == Verdict::Limit::kUnknown);  // the link is unknown, so the network is not ruled out

  RunFigures nothing;
  nothing.duration_seconds = nan;
  nothing.calls_ok = 10;
  CHECK(Judge(nothing).limit == Verdict::Limit::kUnknown);
  CHECK(Clean(Judge(nothing).text));

  RunFigures bare;  // only the rate is known
  bare.duration_seconds = 1;
  bare.calls_ok = 10;
  bare.client_cpu_seconds = -1;
  const Verdict unknown = Judge(bare);
  INFO(unknown.text);
  CHECK(unknown.limit == Verdict::Limit::kUnknown);
  CHECK(Has(unknown.text, "client CPU, server CPU and network were not measured"));
  CHECK(Clean(unknown.text));
}

TEST_CASE("bandwidth is shown in kbit/s, Mbit/s or Gbit/s as fits and large ceilings get separators",
          "[stress][verdict]") {
  RunFigures f = UnsaturatedRun();  // 10,000 calls/s
  f.wire_bytes_per_call = 5;        // 400 kbit/s
  CHECK(Has(Judge(f).text, "network 400 kbit/s = <1% of 1 Gbit/s -> network ceiling ~ 25,000,000 calls/s"));
  f.wire_bytes_per_call = 31'250;  // 2.5 Gbit/s on a 10 Gbit/s link
  f.link_bits_per_second = 10e9;
  const std::string text = Judge(f).text;
  INFO(text);
  CHECK(Has(text, "network 2.5 Gbit/s = 25% of 10 Gbit/s -> network ceiling ~ 40,000 calls/s"));
}

TEST_CASE("every limit has its name", "[stress][verdict]") {
  CHECK(LimitName(Verdict::Limit::kClientCpu) == "client CPU");
  CHECK(LimitName(Verdict::Limit::kServerCpu) == "server CPU");
  CHECK(LimitName(Verdict::Limit::kNetwork) == "network");
  CHECK(LimitName(Verdict::Limit::kServerWaiting) == "server waiting");
  CHECK(LimitName(Verdict::Limit::kConcurrency) == "concurrency");
  CHECK(LimitName(Verdict::Limit::kOfferedLoad) == "offered load");
  CHECK(LimitName(Verdict::Limit::kUnknown) == "unknown");
}
