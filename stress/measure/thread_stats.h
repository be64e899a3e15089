// ThreadStats: what one load thread measured, kept by that thread alone (no locks, no shared
// atomics per call) and merged after join, as LevelDB's db_bench does.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "stress/measure/call_outcome.h"
#include "stress/measure/latency_histogram.h"

namespace lather {

// Bytes of the calls counted in the window, at the socket, split by part.
struct ByteCounts {
  uint64_t request_head = 0;
  uint64_t request_body = 0;
  uint64_t response_head = 0;
  uint64_t response_body = 0;
  uint64_t request_payload = 0;   // text inside the request's SOAP Body
  uint64_t response_payload = 0;  // text inside the response's SOAP Body

  uint64_t sent() const { return request_head + request_body; }
  uint64_t received() const { return response_head + response_body; }
  void Merge(const ByteCounts& o);
};

// One second of the run (window-relative), for --series.
struct SecondStats {
  uint64_t calls_ok = 0;
  uint64_t errors = 0;
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  LatencyHistogram latency;
};

struct ThreadStats {
  LatencyHistogram latency;       // from the intended send time (open model) or the send (closed)
  LatencyHistogram service_time;  // from the actual send: what the server and network took
  std::array<uint64_t, kCallOutcomeCount> outcomes{};
  ByteCounts bytes;
  uint64_t late_calls = 0;        // open model: sent more than 1 ms after their scheduled time
  uint64_t max_lateness_ns = 0;
  uint64_t total_lateness_ns = 0;
  uint64_t connections_opened = 0;
  double cpu_seconds = 0;         // this thread's CPU in the window
  std::string first_failure;      // what the first failed call said
  std::vector<SecondStats> seconds;

  uint64_t calls_ok() const { return outcomes[0]; }
  uint64_t failures() const;
  void Merge(const ThreadStats& o);
};

}  // namespace lather
