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

namespace lather {

// A resource counts as saturated at this share of its capacity or more (cores, link).
inline constexpr double kSaturated = 0.85;
// An open-loop run that achieved at least this share of its target rate kept up with the offered load.
inline constexpr double kOnTarget = 0.95;

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
  double envelope_share = -1;         // share (0..1) of HTTP+SOAP bytes that is not payload; < 0 unknown
  double open_model_rate = 0;         // target calls/s in open-loop mode, 0 in closed mode
  uint64_t late_calls = 0;            // open-loop calls sent later than scheduled
};

// What limits the run and what each resource could sustain; the output of Judge(). Every resource figure
// (cores, utilization, bits/s, per-call cost, ceiling) that Judge() cannot compute (unknown input, no calls,
// no window) is set to -1, whatever its default here; calls_per_second is then 0 when there is no window.
struct Verdict {
  enum class Limit {
    kClientCpu,    // the client's cores are saturated
    kServerCpu,    // the server's cores are saturated (or, with shared cores, the pool, server using more)
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
  // One paragraph: the limit first, then the other resources with their ceilings, then the envelope share.
  std::string text;
};

// Decides what limits the run and computes each ceiling from measured per-call costs.
Verdict Judge(const RunFigures& figures);

// "client CPU", "server CPU", "network", "server waiting", "concurrency", "offered load" or "unknown".
std::string LimitName(Verdict::Limit limit);

}  // namespace lather
