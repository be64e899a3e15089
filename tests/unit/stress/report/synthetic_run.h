// SyntheticRun: a finished run made of known samples (no load, no clock), for the report tests: latencies
// drawn from a seeded log-normal, spread over five seconds, with counters, interface bytes and CPU figures,
// concluded as a live run is. Not thread-safe (tests only).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "stress/report/report.h"

namespace lather_test {

// The latencies (ns) of a run: `n` values from a seeded log-normal around ~1 ms, some far in the tail.
inline std::vector<uint64_t> Latencies(uint32_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(13.8, 0.6);
  std::vector<uint64_t> values(n);
  for (uint64_t& v : values) v = static_cast<uint64_t>(d(rng)) + 1;
  values[n / 2] = 3'000'000'000;  // one call of 3 s
  return values;
}

// A run of `values` against http://127.0.0.1:8080/soap from load host `host`, its window starting at
// `start_ns` (Unix ns) and lasting about 5 s.
inline lather::RunReport SyntheticRun(const std::vector<uint64_t>& values, const std::string& host, int64_t start_ns,
                                      double client_cpu_seconds = 2.5) {
  using namespace lather;
  RunReport r;
  r.settings.url = "http://127.0.0.1:8080/soap";
  r.settings.op = "increment";
  r.settings.threads = 2;
  r.settings.connections = 20;
  r.settings.duration_seconds = 5;
  r.settings.warmup_seconds = 1;
  ThreadStats& t = r.load.total;
  t.seconds.resize(5);
  for (size_t i = 0; i < values.size(); ++i) {
    t.latency.Record(values[i]);
    t.service_time.Record(values[i] - values[i] / 10);
    SecondStats& s = t.seconds[i % 5];
    ++s.calls_ok;
    s.latency.Record(values[i]);
    s.bytes_sent += 372;
    s.bytes_received += 520;
  }
  t.outcomes[0] = values.size();
  t.outcomes[static_cast<size_t>(CallOutcome::kTimeout)] = 3;
  t.outcomes[static_cast<size_t>(CallOutcome::kStatus)] = 1;
  t.first_failure = "timeout: no answer in 10 s";
  t.bytes.request_head = 145 * values.size();
  t.bytes.request_body = 227 * values.size();
  t.bytes.response_head = 95 * values.size();
  t.bytes.response_body = 425 * values.size();
  t.bytes.request_payload = 9 * values.size();
  t.bytes.response_payload = 9 * values.size();
  t.connections_opened = 20;
  r.load.thread_cpu_seconds = {client_cpu_seconds / 2, client_cpu_seconds / 2};
  r.load.window_seconds = 5.000123;
  r.before.at_ns = 1;
  r.after.at_ns = 5'000'123'001;
  r.before.interface_known = r.after.interface_known = true;
  r.before.rx_bytes = 1000;
  r.after.rx_bytes = 1000 + 996 * values.size();
  r.before.tx_bytes = 2000;
  r.after.tx_bytes = 2000 + 996 * values.size();
  r.after.rx_packets = r.after.tx_packets = 2 * values.size();
  r.before.client_cpu_seconds = 1.0;
  r.after.client_cpu_seconds = 1.0 + client_cpu_seconds;
  r.before.server_cpu_seconds = 10.0;
  r.after.server_cpu_seconds = 14.0;
  r.interface_name = "lo";
  r.server_cpu_source = "/metrics";
  r.client_cores = 2;
  r.server_cores = 2;
  r.unloaded_latency_seconds = 0.0002;
  r.cpu_per_second = {{0.5, 0.8}, {0.5, 0.8}, {0.5, -1}, {0.5, 0.8}, {0.5, 0.8}};
  r.context.machine.hostname = host;
  r.context.machine.cores = 2;
  r.context.machine.kernel = "Linux 6.1";
  r.context.machine.arch = "x86_64";
  r.context.machine.cpu_model = "Test CPU @ 2.0GHz";
  r.context.window_start_unix_ns = start_ns;
  r.context.window_end_unix_ns = start_ns + 5'000'123'000;
  r.context.name = host + "-run";
  Conclude(&r);
  return r;
}

// Replaces the run's per-second series with a steady `rate` calls/s over a window of `window_seconds`, as a
// live run records it: a last second of the window's remainder (2.3 s: 1,000, 1,000 and 300 calls at
// 1,000 calls/s, the last of 0.3 s), each call of 1 ms and 372 bytes up, 520 down.
inline void SteadySeries(double window_seconds, double rate, lather::RunReport* r) {
  std::vector<lather::SecondStats>& seconds = r->load.total.seconds;
  seconds.assign(static_cast<size_t>(std::ceil(window_seconds)), lather::SecondStats{});
  lather::SetSecondLengths(window_seconds, &seconds);
  for (lather::SecondStats& s : seconds) {
    s.calls_ok = static_cast<uint64_t>(std::llround(rate * s.seconds));
    s.latency.RecordN(1'000'000, s.calls_ok);
    s.bytes_sent = 372 * s.calls_ok;
    s.bytes_received = 520 * s.calls_ok;
  }
  r->load.window_seconds = window_seconds;
  r->settings.duration_seconds = window_seconds;
}

}  // namespace lather_test
