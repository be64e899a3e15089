// Reading a server's Prometheus /metrics: one GET with short timeouts, the value of a named sample, and
// the timings Lather's service exports (execution, queue wait, XML parse and serialize). Functions;
// thread-safe (each call opens its own connection).
#pragma once

#include <string>

namespace lather {

class TlsContext;

// The body of GET http(s)://host:port/metrics when it answers 200 within about 1 s per step; "" on any
// failure. `host` is a numeric IPv4 address; over https the session uses `tls` (not owned).
std::string FetchMetrics(const std::string& host, int port, const TlsContext* tls);

// The value of the sample `name` (without labels) in Prometheus text; -1 if absent.
double MetricValue(const std::string& text, const std::string& name);

// Sums and counts of Lather's request timings; cumulative, so subtract two readings.
struct LatherTimings {
  bool known = false;  // the text held lather_request_duration_seconds
  double exec_sum = 0, exec_count = 0;    // lather_request_duration_seconds: executing the operation
  double wait_sum = 0, wait_count = 0;    // lather_queue_wait_seconds: arrival to start
  double parse_sum = 0, serialize_sum = 0;  // lather_parse_seconds, lather_serialize_seconds: XML
};
LatherTimings ReadLatherTimings(const std::string& text);

}  // namespace lather
