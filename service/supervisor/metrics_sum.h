// The supervisor's /metrics: every worker's Prometheus text read from its private listener and summed
// sample by sample (counters, gauges and histogram buckets alike; lather_cpu_cores, the cores a process
// may use, is the largest, not the sum), followed by the supervisor's own lines. Functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lather {

// GET http://127.0.0.1:port/metrics within about 1 s; "" on any failure.
std::string FetchLocalMetrics(uint16_t port);

// The samples of `texts` summed by name and labels, in the order first seen, with each name's # HELP and
// # TYPE lines kept once.
std::string SumMetrics(const std::vector<std::string>& texts);

}  // namespace lather
