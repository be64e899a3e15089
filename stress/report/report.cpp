#include "stress/report/report.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <stdsoap2.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "stress/report/json_numbers.h"
#include "stress/report/run_json.h"
#include "stress/report/units.h"
#include "stress/verdict/verdict_format.h"

namespace lather {
namespace {

double Per(double value, double count) { return count > 0 ? value / count : 0; }

std::string Fixed(double value, int decimals) {
  char out[64];
  std::snprintf(out, sizeof out, "%.*f", decimals, value);
  return out;
}

// A farm: its components from the instances' readings; the machine's other work when every component is a
// process of this machine.
void ConcludeFarm(RunReport* r) {
  RunFigures& f = r->figures;
  if (r->instances.empty()) return;
  bool local = true;
  double components_cpu = 0;
  for (size_t i = 0; i < r->instances.size(); ++i) {
    const WatchedInstance& w = r->instances[i];
    ComponentFigures* c = nullptr;
    for (ComponentFigures& existing : f.components) {
      if (existing.name == w.component) c = &existing;
    }
    if (c == nullptr) {
      f.components.push_back(ComponentFigures{});
      c = &f.components.back();
      c->name = w.component;
      c->serving = w.component == r->serving;
    }
    const double before = i < r->before.instance_cpu_seconds.size() ? r->before.instance_cpu_seconds[i] : -1;
    const double after = i < r->after.instance_cpu_seconds.size() ? r->after.instance_cpu_seconds[i] : -1;
    const double cpu = before >= 0 && after >= before ? after - before : -1;
    double budget = i < r->instance_budget_cores.size() ? r->instance_budget_cores[i] : 0;
    if (budget <= 0 && i < r->after.instance_metrics_cores.size()) budget = r->after.instance_metrics_cores[i];
    c->cpu_seconds.push_back(cpu);
    c->cores.push_back(budget);
    auto delta = [i](const std::vector<double>& before_list, const std::vector<double>& after_list) {
      const double b = i < before_list.size() ? before_list[i] : -1, a = i < after_list.size() ? after_list[i] : -1;
      return b >= 0 && a >= b ? a - b : -1;
    };
    c->periods.push_back(delta(r->before.instance_periods, r->after.instance_periods));
    c->throttled_periods.push_back(delta(r->before.instance_throttled_periods, r->after.instance_throttled_periods));
    local = local && w.pid > 0 && cpu >= 0;
    if (cpu > 0) components_cpu += cpu;
  }
  f.components_on_machine = local;
  if (local && r->before.host_busy_seconds >= 0 && r->after.host_busy_seconds >= 0 && f.client_cpu_seconds >= 0) {
    f.other_cpu_seconds = std::max(0.0, r->after.host_busy_seconds - r->before.host_busy_seconds -
                                            f.client_cpu_seconds - components_cpu);
  }
}

}  // namespace

double RunReport::calls_per_second() const { return Per(static_cast<double>(load.total.calls_ok()), load.window_seconds); }

double RunReport::samples_per_second() const {
  return settings.op == "echo" ? calls_per_second() * static_cast<double>(settings.samples) : 0;
}

double RunReport::socket_megabytes_per_second() const {
  return Per(static_cast<double>(load.total.bytes.sent() + load.total.bytes.received()) / 1e6, load.window_seconds);
}

double RunReport::wire_bytes_per_call() const {
  const double n = static_cast<double>(calls());
  if (before.interface_known && after.interface_known && n > 0) {
    // On loopback every packet is counted once as sent and once as received: take one side.
    const uint64_t bytes = interface_name == "lo" ? after.rx_bytes - before.rx_bytes
                                                  : (after.rx_bytes - before.rx_bytes) + (after.tx_bytes - before.tx_bytes);
    return Per(static_cast<double>(bytes), n);
  }
  return Per(static_cast<double>(load.total.bytes.sent() + load.total.bytes.received()), n);
}

double RunReport::wire_up_bytes_per_call() const {
  const double n = static_cast<double>(calls());
  const ByteCounts& b = load.total.bytes;
  if (before.interface_known && after.interface_known && n > 0) {
    if (interface_name != "lo") return Per(static_cast<double>(after.tx_bytes - before.tx_bytes), n);
    const double overhead = wire_bytes_per_call() - Per(static_cast<double>(b.sent() + b.received()), n);
    return Per(static_cast<double>(b.sent()), n) + std::max(0.0, overhead) / 2;
  }
  return Per(static_cast<double>(b.sent()), n);
}

double RunReport::wire_down_bytes_per_call() const {
  const double n = static_cast<double>(calls());
  const ByteCounts& b = load.total.bytes;
  if (before.interface_known && after.interface_known && n > 0) {
    if (interface_name != "lo") return Per(static_cast<double>(after.rx_bytes - before.rx_bytes), n);
    const double overhead = wire_bytes_per_call() - Per(static_cast<double>(b.sent() + b.received()), n);
    return Per(static_cast<double>(b.received()), n) + std::max(0.0, overhead) / 2;
  }
  return Per(static_cast<double>(b.received()), n);
}

double RunReport::envelope_share() const {
  if (settings.client == "gsoap") return -1;  // the typed client does not see the payload
  const ByteCounts& b = load.total.bytes;
  const double total = static_cast<double>(b.sent() + b.received());
  if (total <= 0) return -1;
  return 1.0 - static_cast<double>(b.request_payload + b.response_payload) / total;
}

void Conclude(RunReport* r) {
  RunFigures& f = r->figures;
  f.duration_seconds = r->load.window_seconds;
  f.calls_ok = r->load.total.calls_ok();
  f.connections = r->settings.connections * r->settings.pipeline;
  f.mean_latency_seconds = r->load.total.service_time.Mean() / 1e9;
  f.client_cpu_seconds = r->after.client_cpu_seconds - r->before.client_cpu_seconds;
  f.client_cores = r->client_cores;
  if (r->before.server_cpu_seconds >= 0 && r->after.server_cpu_seconds >= 0) {
    f.server_cpu_seconds = r->after.server_cpu_seconds - r->before.server_cpu_seconds;
    f.server_cores = r->server_cores;
  }
  f.shared_cores = r->shared_cores;
  f.machine_cores = static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN));
  f.wire_bytes_per_call = r->wire_bytes_per_call();
  f.wire_up_bytes_per_call = r->wire_up_bytes_per_call();
  f.wire_down_bytes_per_call = r->wire_down_bytes_per_call();
  f.link_bits_per_second = r->link_bits_per_second;
  f.link_declared = r->link_declared;
  f.half_duplex = r->half_duplex;
  f.loopback = r->interface_name == "lo";
  for (double seconds : r->load.thread_cpu_seconds) {
    f.client_thread_peak_cpu_seconds = std::max(f.client_thread_peak_cpu_seconds, seconds);
  }
  f.server_thread_peak_cpu_seconds = PeakThreadCpu(r->server_before.threads, r->server_after.threads);
  f.server_threads = static_cast<int>(r->server_after.threads.size());
  f.unloaded_latency_seconds = r->unloaded_latency_seconds;
  const LatherTimings& m0 = r->server_before.metrics;
  const LatherTimings& m1 = r->server_after.metrics;
  const double executed = m1.exec_count - m0.exec_count;
  if (m0.known && m1.known && executed > 0) {
    f.server_exec_seconds_per_call = (m1.exec_sum - m0.exec_sum) / executed;
    const double waited = m1.wait_count - m0.wait_count;
    f.server_queue_wait_seconds_per_call = waited > 0 ? (m1.wait_sum - m0.wait_sum) / waited : 0;
    f.server_xml_seconds_per_call = (m1.parse_sum - m0.parse_sum + m1.serialize_sum - m0.serialize_sum) / executed;
  }
  f.store_operation = r->settings.op == "inc-counter";
  // The machine's other work, when the server is a process of this machine (its CPU from /proc).
  if (r->before.host_busy_seconds >= 0 && r->after.host_busy_seconds >= 0 && f.client_cpu_seconds >= 0 &&
      f.server_cpu_seconds >= 0 && r->server_cpu_source.rfind("/proc/", 0) == 0 && r->instances.empty()) {
    f.other_cpu_seconds = std::max(0.0, r->after.host_busy_seconds - r->before.host_busy_seconds -
                                            f.client_cpu_seconds - f.server_cpu_seconds);
  }
  ConcludeFarm(r);
  f.envelope_share = r->envelope_share();
  f.open_model_rate = r->settings.rate;
  f.late_calls = r->load.total.late_calls;
  r->verdict = Judge(f);
}

void PrintReport(const RunReport& r, std::FILE* out) {
  const StressSettings& s = r.settings;
  const ThreadStats& t = r.load.total;
  const double n = static_cast<double>(r.calls());
  std::string model = s.rate > 0 ? "open model, " + WithThousands(s.rate) + " calls/s " + (s.poisson ? "(Poisson)" : "(uniform)")
                                 : "closed model";
  std::fprintf(out, "lather-stress %s  op %s%s  SOAP 1.%d  client %s\n", s.url.c_str(), s.op.c_str(),
               s.op == "echo" ? (" (" + std::to_string(s.samples) + " samples)").c_str() : "", s.soap_version == 2 ? 2 : 1,
               s.client.c_str());
  std::fprintf(out, "  %s, %d thread%s, %d connection%s%s%s, %s%s\n", model.c_str(), s.threads, s.threads == 1 ? "" : "s",
               s.connections, s.connections == 1 ? "" : "s",
               s.pipeline > 1 ? (", pipeline " + std::to_string(s.pipeline)).c_str() : "",
               s.keep_alive ? ", keep-alive" : ", a new connection per call",
               s.total_calls > 0 ? (WithThousands(static_cast<double>(s.total_calls)) + " calls").c_str()
                                 : (Fixed(s.duration_seconds, 1) + " s").c_str(),
               s.warmup_seconds > 0 ? (" after " + Fixed(s.warmup_seconds, 1) + " s warm-up").c_str() : "");
  if (s.embedded) std::fprintf(out, "  embedded lather-service: %s\n", s.placement.empty() ? "not pinned" : s.placement.c_str());
  std::fprintf(out, "\n");

  std::string failures;
  for (int i = 1; i < kCallOutcomeCount; ++i) {
    if (t.outcomes[static_cast<size_t>(i)] == 0) continue;
    failures += std::string(failures.empty() ? " (" : ", ") + CallOutcomeName(static_cast<CallOutcome>(i)) + " " +
                WithThousands(static_cast<double>(t.outcomes[static_cast<size_t>(i)]));
  }
  if (!failures.empty()) failures += ")";
  std::fprintf(out, "  calls        %s ok, %s failed%s in %.2f s\n", WithThousands(static_cast<double>(t.calls_ok())).c_str(),
               WithThousands(static_cast<double>(t.failures())).c_str(), failures.c_str(), r.load.window_seconds);
  if (!t.first_failure.empty()) std::fprintf(out, "  first failure  %s\n", t.first_failure.c_str());
  if (t.unanswered_at_end > 0) {
    std::fprintf(out, "  unanswered   %s call%s sent and not answered when the run ended: neither ok nor failed (the "
                 "server may have served them)\n", WithThousands(static_cast<double>(t.unanswered_at_end)).c_str(),
                 t.unanswered_at_end == 1 ? "" : "s");
  }
  if (t.connections_opened > static_cast<uint64_t>(s.connections)) {
    std::fprintf(out, "  connections  %s opened for %d connection%s: %s\n", WithThousands(static_cast<double>(t.connections_opened)).c_str(),
                 s.connections, s.connections == 1 ? "" : "s",
                 s.keep_alive ? "the server closed keep-alive connections and they were reopened"
                              : "a new connection per call (--no-keepalive)");
  }
  std::fprintf(out, "  throughput   %s calls/s\n", WithThousands(r.calls_per_second()).c_str());
  if (s.op == "echo") {
    std::fprintf(out, "  echo         %s samples/s (top-level samples of the ok calls), %s MB/s at the sockets (both ways)\n",
                 WithThousands(r.samples_per_second()).c_str(), Fixed(r.socket_megabytes_per_second(), 2).c_str());
  }

  const LatencyHistogram& h = t.latency;
  if (h.count() > 0) {
    std::fprintf(out, "  latency      min %s  mean %s  p50 %s  p90 %s  p99 %s  p99.9 %s  p99.99 %s  max %s\n",
                 FormatNanos(static_cast<double>(h.min())).c_str(), FormatNanos(h.Mean()).c_str(),
                 FormatNanos(static_cast<double>(h.ValueAtPercentile(50))).c_str(),
                 FormatNanos(static_cast<double>(h.ValueAtPercentile(90))).c_str(),
                 FormatNanos(static_cast<double>(h.ValueAtPercentile(99))).c_str(),
                 FormatNanos(static_cast<double>(h.ValueAtPercentile(99.9))).c_str(),
                 FormatNanos(static_cast<double>(h.ValueAtPercentile(99.99))).c_str(),
                 FormatNanos(static_cast<double>(h.max())).c_str());
    if (s.rate > 0) {
      const LatencyHistogram& st = t.service_time;
      std::fprintf(out, "  (from the scheduled send time; service time alone: p50 %s  p99 %s  max %s)\n",
                   FormatNanos(static_cast<double>(st.ValueAtPercentile(50))).c_str(),
                   FormatNanos(static_cast<double>(st.ValueAtPercentile(99))).c_str(),
                   FormatNanos(static_cast<double>(st.max())).c_str());
      if (t.late_calls > 0) {
        std::fprintf(out, "  late         %s calls (%.1f%%) left more than 1 ms after their scheduled time, by up to %s "
                     "(mean %s): the harness could not keep the schedule\n",
                     WithThousands(static_cast<double>(t.late_calls)).c_str(), 100.0 * Per(static_cast<double>(t.late_calls), n),
                     FormatNanos(static_cast<double>(t.max_lateness_ns)).c_str(),
                     FormatNanos(Per(static_cast<double>(t.total_lateness_ns), static_cast<double>(t.late_calls))).c_str());
      }
    }
    const LatencyHistogram& rt = t.receipt_time;
    if (rt.count() > 0) {
      std::fprintf(out, "  (from the send to the kernel's receipt of the answer: p50 %s  p99 %s  max %s; beyond that, "
                   "this harness read its answers late)\n",
                   FormatNanos(static_cast<double>(rt.ValueAtPercentile(50))).c_str(),
                   FormatNanos(static_cast<double>(rt.ValueAtPercentile(99))).c_str(),
                   FormatNanos(static_cast<double>(rt.max())).c_str());
    }
    if (t.unstamped_answers > 0) {
      std::fprintf(out, "  (%s answer%s came without the kernel's receive stamp and %s not in the receipt figures)\n",
                   WithThousands(static_cast<double>(t.unstamped_answers)).c_str(), t.unstamped_answers == 1 ? "" : "s",
                   t.unstamped_answers == 1 ? "is" : "are");
    }
  }

  const ByteCounts& b = t.bytes;
  if (n > 0 && s.client == "gsoap") {
    std::fprintf(out, "  bytes/call   request %s, response %s (the typed client does not split head, body and payload)\n",
                 WithThousands(Per(static_cast<double>(b.sent()), n)).c_str(),
                 WithThousands(Per(static_cast<double>(b.received()), n)).c_str());
  } else if (n > 0) {
    std::fprintf(out, "  bytes/call   request %s (head %s + body %s), response %s (head %s + body %s)\n",
                 WithThousands(Per(static_cast<double>(b.sent()), n)).c_str(), WithThousands(Per(static_cast<double>(b.request_head), n)).c_str(),
                 WithThousands(Per(static_cast<double>(b.request_body), n)).c_str(), WithThousands(Per(static_cast<double>(b.received()), n)).c_str(),
                 WithThousands(Per(static_cast<double>(b.response_head), n)).c_str(),
                 WithThousands(Per(static_cast<double>(b.response_body), n)).c_str());
    std::fprintf(out, "  payload      %s bytes of data per call (request %s, response %s): envelope and HTTP are %.1f%% of the bytes\n",
                 Fixed(Per(static_cast<double>(b.request_payload + b.response_payload), n), 1).c_str(),
                 Fixed(Per(static_cast<double>(b.request_payload), n), 1).c_str(),
                 Fixed(Per(static_cast<double>(b.response_payload), n), 1).c_str(), 100.0 * r.envelope_share());
  }
  if (n > 0) {
    const double socket_bps = static_cast<double>(b.sent() + b.received()) * 8 / r.load.window_seconds;
    std::fprintf(out, "  bandwidth    %s at the sockets", FormatBitRate(socket_bps).c_str());
    if (r.before.interface_known && r.after.interface_known) {
      const double packets = static_cast<double>(r.interface_name == "lo" ? r.after.rx_packets - r.before.rx_packets
                                                 : (r.after.rx_packets - r.before.rx_packets) + (r.after.tx_packets - r.before.tx_packets));
      std::fprintf(out, "; %s on %s with TCP/IP (%s bytes, %.1f packets per call%s)", 
                   FormatBitRate(r.wire_bytes_per_call() * n * 8 / r.load.window_seconds).c_str(), r.interface_name.c_str(),
                   WithThousands(r.wire_bytes_per_call()).c_str(), Per(packets, n),
                   r.after.tcp_retransmits > r.before.tcp_retransmits
                       ? (", " + WithThousands(static_cast<double>(r.after.tcp_retransmits - r.before.tcp_retransmits)) + " retransmits").c_str()
                       : "");
    }
    std::fprintf(out, "\n");
    std::fprintf(out, "  each way     up (requests) %s, down (responses) %s on the wire%s\n",
                 FormatBitRate(r.wire_up_bytes_per_call() * n * 8 / r.load.window_seconds).c_str(),
                 FormatBitRate(r.wire_down_bytes_per_call() * n * 8 / r.load.window_seconds).c_str(),
                 r.half_duplex ? ", sharing one half-duplex link" : "");
  }
  const Verdict& v = r.verdict;
  // Cores busy from the verdict, or, when it has none (no call succeeded), from the CPU measured (issue 17).
  auto cores_used = [&r](double verdict_cores, double cpu_seconds) {
    if (verdict_cores >= 0) return verdict_cores;
    return cpu_seconds >= 0 && r.load.window_seconds > 0 ? cpu_seconds / r.load.window_seconds : -1.0;
  };
  const double client_used = cores_used(v.client_cores_used, r.figures.client_cpu_seconds);
  const double server_used = cores_used(v.server_cores_used, r.figures.server_cpu_seconds);
  auto per_call = [&r](double seconds) {
    if (seconds > 0) return Fixed(seconds * 1e6, 1) + " us per call";
    return std::string(r.load.total.calls_ok() == 0 ? "no call succeeded" : "- us per call");
  };
  if (client_used >= 0) {
    std::fprintf(out, "  client CPU   %.2f of %s core%s (%s)\n", client_used, FormatCoreCount(r.client_cores).c_str(),
                 r.client_cores == 1 ? "" : "s", per_call(v.client_cpu_per_call).c_str());
  } else {
    std::fprintf(out, "  client CPU   unknown\n");
  }
  if (!v.components.empty()) {
    for (const ComponentVerdict& c : v.components) {
      std::string budget = c.cores > 0 ? (c.instances > 1 ? std::to_string(c.instances) + " x " + FormatCoreCount(c.cores / c.instances)
                                                          : FormatCoreCount(c.cores)) + (c.cores / c.instances <= 1 ? " core" : " cores")
                                       : "cores unknown";
      std::string use = c.cores_used >= 0 ? Fixed(c.cores_used, 2) + " cores" : "unknown";
      if (c.utilization >= 0) use += " (" + Fixed(100 * c.utilization, 0) + "%";
      if (c.instances > 1 && c.min_instance_utilization >= 0) {
        use += ", instances " + Fixed(100 * c.min_instance_utilization, 0) + "-" + Fixed(100 * c.max_instance_utilization, 0) + "%";
      }
      if (c.utilization >= 0) use += ")";
      std::fprintf(out, "  %-12s %s of %s%s, %s, ceiling %s calls/s\n", c.name.c_str(), use.c_str(),
                   budget.c_str(), c.serving ? " (serving)" : "", per_call(c.cpu_per_call).c_str(),
                   c.ceiling >= 0 ? FormatApprox(c.ceiling).c_str() : "unknown");
    }
    if (v.machine_utilization >= 0) {
      std::fprintf(out, "  machine      %.0f%% of its %s cores busy with the client and the components\n",
                   100 * v.machine_utilization, FormatCoreCount(r.figures.machine_cores).c_str());
    }
  } else if (server_used >= 0) {
    std::fprintf(out, "  server CPU   %.2f of %s core%s (%s, from %s)\n", server_used,
                 FormatCoreCount(r.server_cores).c_str(), r.server_cores == 1 ? "" : "s",
                 per_call(v.server_cpu_per_call).c_str(), r.server_cpu_source.c_str());
  } else {
    std::fprintf(out, "  server CPU   unknown (give --server-pid, or serve /metrics with process_cpu_seconds_total)\n");
  }
  const RunFigures& f = r.figures;
  if (v.client_thread_peak >= 0 || v.server_thread_peak >= 0) {
    std::string client = v.client_thread_peak >= 0 ? Fixed(100 * v.client_thread_peak, 0) + "% of a core" : "unknown";
    std::string server = v.server_thread_peak >= 0
                             ? Fixed(100 * v.server_thread_peak, 0) + "% of a core (" + std::to_string(f.server_threads) + " threads)"
                             : "unknown (give --server-pid)";
    std::fprintf(out, "  threads      busiest load thread %s; busiest server thread %s\n", client.c_str(), server.c_str());
  }
  if (f.server_exec_seconds_per_call >= 0) {
    std::fprintf(out, "  server time  queue wait %s + execution %s per call; XML parse + serialize %s (Lather /metrics)\n",
                 FormatNanos(f.server_queue_wait_seconds_per_call * 1e9).c_str(),
                 FormatNanos(f.server_exec_seconds_per_call * 1e9).c_str(),
                 FormatNanos(f.server_xml_seconds_per_call * 1e9).c_str());
  }
  if (f.unloaded_latency_seconds > 0) {
    std::fprintf(out, "  unloaded     mean latency %s at 1 connection (a probe during the warm-up)\n",
                 FormatNanos(f.unloaded_latency_seconds * 1e9).c_str());
  }
  std::fprintf(out, "\n  verdict      %s\n", v.text.c_str());
}

void PrintApacheBenchBlock(const RunReport& r, std::FILE* out) {
  const double n = static_cast<double>(r.load.total.calls_ok());
  const double concurrency = static_cast<double>(r.settings.connections * r.settings.pipeline);
  std::fprintf(out, "\nConcurrency Level:      %.0f\n", concurrency);
  std::fprintf(out, "Time taken for tests:   %.3f seconds\n", r.load.window_seconds);
  std::fprintf(out, "Complete requests:      %.0f\n", n);
  std::fprintf(out, "Failed requests:        %llu\n", static_cast<unsigned long long>(r.load.total.failures()));
  std::fprintf(out, "Requests per second:    %.2f [#/sec] (mean)\n", r.calls_per_second());
  std::fprintf(out, "Time per request:       %.3f [ms] (mean)\n", Per(concurrency * r.load.window_seconds * 1e3, n));
  std::fprintf(out, "Time per request:       %.3f [ms] (mean, across all concurrent requests)\n",
               Per(r.load.window_seconds * 1e3, n));
}

std::string ReportJson(const RunReport& r) {
  Poco::JSON::Object root = ReportObject(r);
  return JsonText(&root);
}

Poco::JSON::Object ReportObject(const RunReport& r) {
  using Poco::JSON::Array;
  using Poco::JSON::Object;
  const StressSettings& s = r.settings;
  const ThreadStats& t = r.load.total;
  Object root(Poco::JSON_PRESERVE_KEY_ORDER);
  root.set("schema", std::string(kReportSchema));

  Object settings(Poco::JSON_PRESERVE_KEY_ORDER);
  settings.set("url", s.url);
  settings.set("op", s.op);
  settings.set("client", s.client);
  settings.set("soap_version", s.soap_version == 2 ? "1.2" : "1.1");
  settings.set("samples", s.samples);
  settings.set("model", s.rate > 0 ? "open" : "closed");
  settings.set("rate", s.rate);
  settings.set("arrival", s.poisson ? "poisson" : "uniform");
  settings.set("threads", s.threads);
  settings.set("connections", s.connections);
  settings.set("pipeline", s.pipeline);
  settings.set("keep_alive", s.keep_alive);
  settings.set("duration_seconds", s.duration_seconds);
  settings.set("total_calls", s.total_calls);
  settings.set("warmup_seconds", s.warmup_seconds);
  settings.set("embedded_service", s.embedded);
  settings.set("placement", s.placement);
  root.set("settings", settings);

  Object machine(Poco::JSON_PRESERVE_KEY_ORDER);
  utsname u{};
  uname(&u);
  machine.set("cores", sysconf(_SC_NPROCESSORS_ONLN));
  machine.set("kernel", std::string(u.sysname) + " " + u.release);
  machine.set("machine", std::string(u.machine));
  machine.set("lather_version", std::string(LATHER_VERSION));
  machine.set("compiler", std::string(__VERSION__));
  machine.set("gsoap_version", std::to_string(GSOAP_VERSION / 100000) + "." + std::to_string(GSOAP_VERSION / 1000 % 100) +
                                   "." + std::to_string(GSOAP_VERSION % 1000));
  root.set("machine", machine);

  Object calls(Poco::JSON_PRESERVE_KEY_ORDER);
  calls.set("window_seconds", r.load.window_seconds);
  calls.set("ok", t.calls_ok());
  calls.set("failed", t.failures());
  Object by_kind(Poco::JSON_PRESERVE_KEY_ORDER);
  for (int i = 1; i < kCallOutcomeCount; ++i) by_kind.set(CallOutcomeName(static_cast<CallOutcome>(i)), t.outcomes[static_cast<size_t>(i)]);
  calls.set("failed_by_kind", by_kind);
  calls.set("first_failure", t.first_failure);
  calls.set("calls_per_second", r.calls_per_second());
  calls.set("samples_per_second", r.samples_per_second());
  calls.set("socket_megabytes_per_second", r.socket_megabytes_per_second());
  calls.set("late_calls", t.late_calls);
  calls.set("unanswered_at_end", t.unanswered_at_end);
  calls.set("connections_opened", t.connections_opened);
  calls.set("max_lateness_ns", t.max_lateness_ns);
  root.set("calls", calls);

  auto latency_object = [](const LatencyHistogram& h) {
    Object o(Poco::JSON_PRESERVE_KEY_ORDER);
    o.set("count", h.count());
    o.set("min_ns", h.min());
    o.set("mean_ns", h.Mean());
    o.set("max_ns", h.max());
    for (const auto& [name, p] : {std::pair<const char*, double>{"p50_ns", 50}, {"p90_ns", 90}, {"p99_ns", 99},
                                  {"p99_9_ns", 99.9}, {"p99_99_ns", 99.99}}) {
      o.set(name, h.ValueAtPercentile(p));
    }
    Array spectrum;
    for (const auto& [percentile, value] : h.Percentiles()) {
      Array point;
      point.add(percentile);
      point.add(value);
      spectrum.add(point);
    }
    o.set("spectrum", spectrum);
    return o;
  };
  root.set("latency", latency_object(t.latency));
  root.set("service_time", latency_object(t.service_time));
  if (t.receipt_time.count() > 0 || t.unstamped_answers > 0) {
    Object receipt = latency_object(t.receipt_time);
    receipt.set("unstamped_answers", t.unstamped_answers);  // answers read without a stamp: not in the figures
    root.set("receipt_time", receipt);
  }

  const ByteCounts& b = t.bytes;
  const double n = static_cast<double>(r.calls());
  Object bytes(Poco::JSON_PRESERVE_KEY_ORDER);
  bytes.set("request_head_per_call", Per(static_cast<double>(b.request_head), n));
  bytes.set("request_body_per_call", Per(static_cast<double>(b.request_body), n));
  bytes.set("response_head_per_call", Per(static_cast<double>(b.response_head), n));
  bytes.set("response_body_per_call", Per(static_cast<double>(b.response_body), n));
  bytes.set("request_payload_per_call", Per(static_cast<double>(b.request_payload), n));
  bytes.set("response_payload_per_call", Per(static_cast<double>(b.response_payload), n));
  bytes.set("envelope_share", r.envelope_share());
  bytes.set("socket_bits_per_second", static_cast<double>(b.sent() + b.received()) * 8 / std::max(r.load.window_seconds, 1e-9));
  bytes.set("interface", r.interface_name);
  bytes.set("wire_bytes_per_call", r.wire_bytes_per_call());
  bytes.set("tcp_retransmits", r.after.tcp_retransmits - r.before.tcp_retransmits);
  bytes.set("link_bits_per_second", r.link_bits_per_second);
  bytes.set("link_declared", r.link_declared);
  bytes.set("half_duplex", r.half_duplex);
  bytes.set("socket_sent_per_call", Per(static_cast<double>(b.sent()), n));
  bytes.set("socket_received_per_call", Per(static_cast<double>(b.received()), n));
  bytes.set("wire_up_bytes_per_call", r.wire_up_bytes_per_call());
  bytes.set("wire_down_bytes_per_call", r.wire_down_bytes_per_call());
  const bool counted = r.before.interface_known && r.after.interface_known;
  bytes.set("interface_tx_bytes", counted ? r.after.tx_bytes - r.before.tx_bytes : 0);
  bytes.set("interface_rx_bytes", counted ? r.after.rx_bytes - r.before.rx_bytes : 0);
  bytes.set("interface_tx_packets", counted ? r.after.tx_packets - r.before.tx_packets : 0);
  bytes.set("interface_rx_packets", counted ? r.after.rx_packets - r.before.rx_packets : 0);
  root.set("bytes", bytes);

  const Verdict& v = r.verdict;
  Object cpu(Poco::JSON_PRESERVE_KEY_ORDER);
  cpu.set("client_cores", r.client_cores);
  cpu.set("client_cores_used", v.client_cores_used);
  cpu.set("client_cpu_per_call_seconds", v.client_cpu_per_call);
  Array threads;
  for (double seconds : r.load.thread_cpu_seconds) threads.add(seconds);
  cpu.set("client_thread_cpu_seconds", threads);
  cpu.set("server_cores", r.server_cores);
  cpu.set("server_cores_used", v.server_cores_used);
  cpu.set("server_cpu_per_call_seconds", v.server_cpu_per_call);
  cpu.set("server_cpu_source", r.server_cpu_source);
  cpu.set("server_threads", r.figures.server_threads);
  cpu.set("server_thread_peak_cpu_seconds", r.figures.server_thread_peak_cpu_seconds);
  cpu.set("server_exec_seconds_per_call", r.figures.server_exec_seconds_per_call);
  cpu.set("server_queue_wait_seconds_per_call", r.figures.server_queue_wait_seconds_per_call);
  cpu.set("server_xml_seconds_per_call", r.figures.server_xml_seconds_per_call);
  root.set("cpu", cpu);

  Object verdict(Poco::JSON_PRESERVE_KEY_ORDER);
  verdict.set("limit", LimitName(v.limit));
  verdict.set("component", v.component);
  verdict.set("machine_utilization", v.machine_utilization);
  verdict.set("calls_per_second", v.calls_per_second);
  verdict.set("client_utilization", v.client_utilization);
  verdict.set("server_utilization", v.server_utilization);
  verdict.set("network_utilization", v.network_utilization);
  verdict.set("network_up_utilization", v.network_up_utilization);
  verdict.set("network_down_utilization", v.network_down_utilization);
  verdict.set("client_thread_peak", v.client_thread_peak);
  verdict.set("server_thread_peak", v.server_thread_peak);
  verdict.set("server_threads", r.figures.server_threads);
  verdict.set("saturated_thread", v.saturated_thread);
  verdict.set("unloaded_latency_seconds", r.figures.unloaded_latency_seconds);
  verdict.set("serializing", v.serializing);
  verdict.set("other_cores_used", v.other_cores_used);
  verdict.set("client_ceiling", v.client_ceiling);
  verdict.set("server_ceiling", v.server_ceiling);
  verdict.set("network_ceiling", v.network_ceiling);
  verdict.set("shared_ceiling", v.shared_ceiling);
  verdict.set("suggested_connections", v.suggested_connections);
  verdict.set("text", v.text);
  root.set("verdict", verdict);
  AddRunDetail(r, &root);  // schema 2: histograms, series, the verdict's inputs, the machine (run_json.h)

  Array components;
  for (const ComponentVerdict& c : v.components) {
    Object o(Poco::JSON_PRESERVE_KEY_ORDER);
    o.set("name", c.name);
    o.set("label", c.label);
    o.set("serving", c.serving);
    o.set("instances", c.instances);
    o.set("cores", c.cores);
    o.set("cores_used", c.cores_used);
    o.set("utilization", c.utilization);
    o.set("min_instance_utilization", c.min_instance_utilization);
    o.set("peak_instance_utilization", c.max_instance_utilization);
    o.set("cpu_per_call_seconds", c.cpu_per_call);
    o.set("ceiling", c.ceiling);
    o.set("throttled_share", c.throttled_share);
    Array pids;
    for (const WatchedInstance& w : r.instances) {
      if (w.component == c.name) pids.add(static_cast<int>(w.pid));
    }
    o.set("pids", pids);
    components.add(o);
  }
  root.set("components", components);

  return root;
}

Status WriteSeriesCsv(const RunReport& r, const std::string& path) {
  std::ofstream out(path);
  if (!out) return Status::IOError("cannot write " + path);
  // calls_ok and errors are counts of the second's `seconds` of the window; the bytes are per second of
  // that length, and empty for a last second too short for a rate (SecondStats::rated()).
  out << "second,calls_ok,errors,p50_ms,p99_ms,bytes_sent_per_s,bytes_received_per_s,client_cores,server_cores,"
         "seconds\n";
  const auto& seconds = r.load.total.seconds;
  for (size_t i = 0; i < seconds.size(); ++i) {
    const SecondStats& s = seconds[i];
    out << i + 1 << ',' << s.calls_ok << ',' << s.errors << ',' << Fixed(static_cast<double>(s.latency.ValueAtPercentile(50)) / 1e6, 3)
        << ',' << Fixed(static_cast<double>(s.latency.ValueAtPercentile(99)) / 1e6, 3) << ',';
    if (s.rated()) out << Fixed(s.PerSecond(s.bytes_sent), 0) << ',' << Fixed(s.PerSecond(s.bytes_received), 0);
    out << ',';
    if (i < r.cpu_per_second.size()) {
      out << Fixed(r.cpu_per_second[i].first, 3) << ',';
      if (r.cpu_per_second[i].second >= 0) out << Fixed(r.cpu_per_second[i].second, 3);
    } else {
      out << ',';
    }
    out << ',' << Fixed(s.seconds, 3) << '\n';
  }
  if (!out) return Status::IOError("cannot write " + path);
  return Status::Ok();
}

}  // namespace lather
