// Verdict: names what limits a lather-stress run (client CPU, server CPU, network, a server that waits, too
// few connections or the offered load itself) and estimates, from the measured per-call costs, the calls/s
// each resource could sustain at full use (its "ceiling"). The result is a set of figures plus one paragraph
// for the report. Each resource is judged as it really is (docs/stress.md, "The verdict"): a link per
// direction (full duplex unless declared half duplex), CPU per process and per thread (one pegged thread
// saturates a server that uses half the machine), and a server that is slow without using CPU.
//
// Invariants of every verdict: no utilization above 1 and no known ceiling below the achieved calls/s.
//
// Pure arithmetic over the figures a run measured: no I/O, no clocks, no gSOAP, so it can be unit-tested on
// constructed numbers. Never divides by zero; figures that cannot be computed are reported as unknown (< 0)
// and never reach the text as NaN or inf. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lather {

// A resource counts as saturated at this share of its capacity or more (cores, link).
inline constexpr double kSaturated = 0.85;
// A component throttled by its CPU quota in at least this share of the window's quota periods is saturated.
inline constexpr double kThrottled = 0.5;
// An open-loop run that achieved at least this share of its target rate kept up with the offered load.
inline constexpr double kOnTarget = 0.95;

// One server-side component of a farm as measured: the nodes, the load balancer, the database. Instances
// given under one name are one component.
struct ComponentFigures {
  std::string name;                 // as given: "node", "haproxy", "postgres"
  bool serving = false;             // the component that serves the calls: its sum is the server above
  std::vector<double> cpu_seconds;  // per instance, in the window; < 0 unknown
  std::vector<double> cores;        // per instance, its budget (cgroup quota, else affinity); <= 0 unknown
  // Per instance, in the window: its cgroup's CPU quota periods and those it was throttled in (stopped for
  // having used its quota); < 0 or absent: unknown (no quota, or not a process of this machine).
  std::vector<double> periods;
  std::vector<double> throttled_periods;
};

// What a run measured; the input of Judge(). Values that are NaN or inf count as unknown.
struct RunFigures {
  double duration_seconds = 0;      // measured window (warm-up excluded)
  uint64_t calls_ok = 0;            // successful calls in the window
  int connections = 0;              // concurrent connections (closed model) or in use; 0 when unknown
  double mean_latency_seconds = 0;  // mean latency of successful calls; 0 when unknown
  double client_cpu_seconds = 0;    // client process CPU (user+system) in the window; < 0 when unknown
  double client_cores = 1;          // cores the client may run on (its affinity); 0 when unknown
  double server_cpu_seconds = -1;   // server CPU in the window; < 0 when unknown
  double server_cores = 0;          // cores the server may run on; 0 when unknown
  bool shared_cores = false;        // client and server on the same cores (one machine, overlapping affinity)
  double machine_cores = 0;         // cores of the machine when shared_cores (the pool both draw from)
  double wire_bytes_per_call = 0;   // bytes per call on the wire, both ways (TCP/IP included when known)
  // Bytes per call on the wire in each direction (client -> server, server -> client; TCP/IP included when
  // known); < 0 when the split is unknown, and then wire_bytes_per_call is judged as if in one direction.
  double wire_up_bytes_per_call = -1;
  double wire_down_bytes_per_call = -1;
  double link_bits_per_second = 1e9;  // the link's capacity each way (declared with --link; 1 Gbit/s by default)
  bool link_declared = false;         // true when the user declared the link
  bool half_duplex = false;           // both directions share the capacity (--half-duplex)
  bool loopback = false;              // the target is on loopback: no wire, unless a link was declared
  // CPU seconds in the window of the busiest load thread and of the busiest server thread; < 0 unknown.
  double client_thread_peak_cpu_seconds = -1;
  double server_thread_peak_cpu_seconds = -1;
  int server_threads = 0;             // server threads seen (0: unknown)
  // Mean latency of a 1-connection probe during the warm-up (the unloaded latency); <= 0 unknown.
  double unloaded_latency_seconds = -1;
  // From Lather's /metrics, per call in the window; < 0 unknown: execution (the operation, waits included),
  // queue wait before it, and the CPU of XML parsing + serializing.
  double server_exec_seconds_per_call = -1;
  double server_queue_wait_seconds_per_call = -1;
  double server_xml_seconds_per_call = -1;
  bool store_operation = false;       // the calls wait on Lather's counter store (IncCounter, GetCounter)
  // CPU seconds used in the window by the machine's other processes (neither the client nor the server,
  // when the server is on this machine); < 0 unknown. With nothing saturated, a machine kept busy by
  // other work makes a starved server look like a waiting one: the verdict then says it cannot tell.
  double other_cpu_seconds = -1;
  double envelope_share = -1;         // share (0..1) of HTTP+SOAP bytes that is not payload; < 0 unknown
  double open_model_rate = 0;         // target calls/s in open-loop mode, 0 in closed mode
  uint64_t late_calls = 0;            // open-loop calls sent later than scheduled
  // A farm: every server-side component watched (--server-pid / --metrics-url NAME=...). Empty for one
  // server. The serving component's sums are also given as server_cpu_seconds and server_cores.
  std::vector<ComponentFigures> components;
  // The components all run on this machine, beside the client: the machine's cores are then one more
  // resource they share (judged as client CPU + every component's CPU against machine_cores).
  bool components_on_machine = false;
};

// A component as judged: its use against its budget and the calls/s it could sustain.
struct ComponentVerdict {
  std::string name;
  std::string label;  // what the text calls it: "nodes", "the load balancer", "the database", or its name
  bool serving = false;
  int instances = 0;
  double cores = -1;        // the sum of its instances' budgets; -1 unknown
  double cores_used = -1;   // average cores busy in the window; -1 unknown
  double utilization = -1;  // cores_used / cores (0..1); -1 unknown
  double min_instance_utilization = -1, max_instance_utilization = -1;  // each instance against its budget
  double cpu_per_call = -1;  // CPU seconds per successful call; -1 unknown
  double ceiling = -1;       // calls/s at full use of its budget; -1 unknown
  // Of its instances' quota periods in the window, the share in which they were throttled; -1 unknown. At
  // kThrottled or more it was held to its quota: CPU-bound by it even when its measured use reads lower.
  double throttled_share = -1;
};

// What limits the run and what each resource could sustain; the output of Judge(). Every resource figure
// (cores, utilization, bits/s, per-call cost, ceiling) that Judge() cannot compute (unknown input, no calls,
// no window) is set to -1, whatever its default here; calls_per_second is then 0 when there is no window.
struct Verdict {
  enum class Limit {
    kClientCpu,    // the client's cores are saturated
    kServerCpu,    // the server's cores are saturated (or, with shared cores, the pool, server using more); in a
                   // farm, the serving component's (the nodes)
    kComponentCpu,  // a farm: another component's budget is saturated (the load balancer, the database), or
                    // the machine's cores that every component and the client share
    kNetwork,      // the link is saturated
    kServerWaiting,  // nothing saturated, the server is slow without using CPU (a store, a lock, a backend)
    kConcurrency,  // nothing saturated: too few calls in flight (closed model, or open model short of target)
    kOfferedLoad,  // open model: nothing is saturated and the target rate was reached; the load is the limit
    kUnknown,      // no calls, no window, or an unmeasured resource could be the limit; the text says why
  };
  Limit limit = Limit::kUnknown;  // what bounds calls/s; kUnknown by default
  double calls_per_second = 0;    // successful calls / window; 0 by default
  // Average cores busy (cpu seconds / duration); 0 and -1 by default.
  double client_cores_used = 0, server_cores_used = -1;
  // Share (0..1) of the cores each side may use; 0 and -1 by default.
  double client_utilization = 0, server_utilization = -1;
  // Bits/s on the wire (both directions) and the share (0..1) of the link of the busier direction (of the
  // sum when half duplex); 0 by default.
  double network_bits_per_second = 0, network_utilization = 0;
  // Share (0..1) of the link each way; -1 unknown.
  double network_up_utilization = -1, network_down_utilization = -1;
  // Share (0..1) of one core used by the busiest load thread and the busiest server thread; -1 unknown.
  double client_thread_peak = -1, server_thread_peak = -1;
  // "client" or "server" when one thread at >= kSaturated of a core is the limit; "" otherwise.
  std::string saturated_thread;
  // True when calls/s did not grow with connections although nothing was saturated: the server
  // serializes its calls (unloaded latency x connections ~ latency).
  bool serializing = false;
  double other_cores_used = -1;      // cores the machine's other processes used in the window; -1 unknown
  // Calls/s the client could sustain at full use of its cores (from measured CPU per call); 0 by default.
  double client_ceiling = 0;
  double server_ceiling = -1;        // same for the server; < 0 unknown
  double network_ceiling = 0;        // link capacity / bits per call; 0 by default
  double suggested_connections = 0;  // Little's law, when concurrency-bound: lowest ceiling x mean latency,
                                     // rounded up (also set when kUnknown only because a resource was not
                                     // measured, as the count to try); 0 otherwise
  double client_cpu_per_call = -1;   // client CPU seconds per successful call; -1 by default
  double server_cpu_per_call = -1;   // server CPU seconds per successful call; -1 by default
  double shared_utilization = -1;    // shared cores: (client + server cores used) / machine_cores; else -1
  double shared_ceiling = -1;        // shared cores: machine_cores / (client + server CPU per call), the
                                     // calls/s the pool sustains if both keep their per-call costs; else -1.
                                     // client_ceiling and server_ceiling are then capped at this value.
  // A farm: each component as judged, in the order given; empty for one server.
  std::vector<ComponentVerdict> components;
  // The label of the component that limits ("nodes", "the load balancer", "the database", "the machine's
  // cores"); "" when the limit is not a component of a farm.
  std::string component;
  double machine_utilization = -1;  // a farm on this machine: (client + components) / machine cores; else -1
  // One paragraph: the limit first, then the other resources with their ceilings, then the envelope share.
  std::string text;
};

// Decides what limits the run and computes each ceiling from measured per-call costs.
Verdict Judge(const RunFigures& figures);

// "client CPU", "server CPU", "component CPU", "network", "server waiting", "concurrency", "offered load"
// or "unknown".
std::string LimitName(Verdict::Limit limit);

}  // namespace lather
