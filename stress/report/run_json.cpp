// The writing half of run_json.h: what schema 2 adds to ReportJson()'s document.
#include "stress/report/run_json.h"

#include <Poco/JSON/Array.h>

namespace lather {
namespace {

using Poco::JSON::Array;
using Poco::JSON::Object;

// A copy of the object under `key` (ReportJson sets nested objects by value), or an empty one.
Object Child(const Object& root, const std::string& key) {
  if (root.has(key)) {
    const Poco::Dynamic::Var& v = root.get(key);
    if (v.type() == typeid(Object)) return v.extract<Object>();
    if (v.type() == typeid(Object::Ptr)) return *v.extract<Object::Ptr>();
  }
  return Object(Poco::JSON_PRESERVE_KEY_ORDER);
}

Object MachineJson(const MachineInfo& m) {
  Object o(Poco::JSON_PRESERVE_KEY_ORDER);
  o.set("hostname", m.hostname);
  o.set("cores", m.cores);
  o.set("kernel", m.kernel);
  o.set("machine", m.arch);
  o.set("cpu_model", m.cpu_model);
  o.set("lather_version", m.lather_version);
  o.set("compiler", m.compiler);
  o.set("gsoap_version", m.gsoap_version);
  return o;
}

Object FiguresJson(const RunFigures& f) {
  Object o(Poco::JSON_PRESERVE_KEY_ORDER);
  o.set("duration_seconds", f.duration_seconds);
  o.set("calls_ok", f.calls_ok);
  o.set("connections", f.connections);
  o.set("mean_latency_seconds", f.mean_latency_seconds);
  o.set("client_cpu_seconds", f.client_cpu_seconds);
  o.set("client_cores", f.client_cores);
  o.set("server_cpu_seconds", f.server_cpu_seconds);
  o.set("server_cores", f.server_cores);
  o.set("shared_cores", f.shared_cores);
  o.set("machine_cores", f.machine_cores);
  o.set("wire_bytes_per_call", f.wire_bytes_per_call);
  o.set("wire_up_bytes_per_call", f.wire_up_bytes_per_call);
  o.set("wire_down_bytes_per_call", f.wire_down_bytes_per_call);
  o.set("link_bits_per_second", f.link_bits_per_second);
  o.set("link_declared", f.link_declared);
  o.set("half_duplex", f.half_duplex);
  o.set("loopback", f.loopback);
  o.set("client_thread_peak_cpu_seconds", f.client_thread_peak_cpu_seconds);
  o.set("server_thread_peak_cpu_seconds", f.server_thread_peak_cpu_seconds);
  o.set("server_threads", f.server_threads);
  o.set("unloaded_latency_seconds", f.unloaded_latency_seconds);
  o.set("server_exec_seconds_per_call", f.server_exec_seconds_per_call);
  o.set("server_queue_wait_seconds_per_call", f.server_queue_wait_seconds_per_call);
  o.set("server_xml_seconds_per_call", f.server_xml_seconds_per_call);
  o.set("store_operation", f.store_operation);
  o.set("other_cpu_seconds", f.other_cpu_seconds);
  o.set("envelope_share", f.envelope_share);
  o.set("open_model_rate", f.open_model_rate);
  o.set("late_calls", f.late_calls);
  if (!f.components.empty()) {  // a farm (issue 16)
    o.set("components_on_machine", f.components_on_machine);
    Array list;
    for (const ComponentFigures& c : f.components) {
      Object one(Poco::JSON_PRESERVE_KEY_ORDER);
      one.set("name", c.name);
      one.set("serving", c.serving);
      Array cpu, cores;
      for (double x : c.cpu_seconds) cpu.add(x);
      for (double x : c.cores) cores.add(x);
      one.set("cpu_seconds", cpu);
      one.set("cores", cores);
      Array periods, throttled;
      for (double x : c.periods) periods.add(x);
      for (double x : c.throttled_periods) throttled.add(x);
      one.set("quota_periods", periods);
      one.set("throttled_periods", throttled);
      list.add(one);
    }
    o.set("components", list);
  }
  return o;
}

}  // namespace

Object HistogramJson(const LatencyHistogram& h) {
  Object o(Poco::JSON_PRESERVE_KEY_ORDER);
  o.set("unit", "ns");
  o.set("sub_buckets", LatencyHistogram::kSubBucketCount);
  o.set("count", h.count());
  o.set("sum", h.sum());
  o.set("min", h.min());
  o.set("max", h.max());
  o.set("overflow", h.overflow_count());
  Array buckets;
  for (const LatencyHistogram::Bucket& b : h.NonEmptyBuckets()) {
    Array pair;
    pair.add(b.lowest);
    pair.add(b.count);
    buckets.add(pair);
  }
  o.set("buckets", buckets);
  return o;
}

void AddRunDetail(const RunReport& r, Object* root) {
  const ThreadStats& t = r.load.total;
  root->set("machine", MachineJson(r.context.machine.cores > 0 ? r.context.machine : TakeMachineInfo()));

  Object latency = Child(*root, "latency");
  latency.set("histogram", HistogramJson(t.latency));
  root->set("latency", latency);
  Object service_time = Child(*root, "service_time");
  service_time.set("histogram", HistogramJson(t.service_time));
  root->set("service_time", service_time);
  if (t.receipt_time.count() > 0 || t.unstamped_answers > 0) {
    Object receipt_time = Child(*root, "receipt_time");
    receipt_time.set("histogram", HistogramJson(t.receipt_time));
    root->set("receipt_time", receipt_time);
  }

  // The exact counters behind the per-call figures of "bytes", "calls" and "cpu".
  Object counters(Poco::JSON_PRESERVE_KEY_ORDER);
  counters.set("request_head_bytes", t.bytes.request_head);
  counters.set("request_body_bytes", t.bytes.request_body);
  counters.set("response_head_bytes", t.bytes.response_head);
  counters.set("response_body_bytes", t.bytes.response_body);
  counters.set("request_payload_bytes", t.bytes.request_payload);
  counters.set("response_payload_bytes", t.bytes.response_payload);
  counters.set("total_lateness_ns", t.total_lateness_ns);
  counters.set("interface_known", r.before.interface_known && r.after.interface_known);
  root->set("counters", counters);

  root->set("figures", FiguresJson(r.figures));
  Object verdict = Child(*root, "verdict");
  const Verdict& v = r.verdict;
  verdict.set("client_cores_used", v.client_cores_used);
  verdict.set("server_cores_used", v.server_cores_used);
  verdict.set("network_bits_per_second", v.network_bits_per_second);
  verdict.set("client_cpu_per_call", v.client_cpu_per_call);
  verdict.set("server_cpu_per_call", v.server_cpu_per_call);
  verdict.set("shared_utilization", v.shared_utilization);
  root->set("verdict", verdict);

  Object series(Poco::JSON_PRESERVE_KEY_ORDER);
  Array seconds;
  for (const SecondStats& s : t.seconds) {
    Object second(Poco::JSON_PRESERVE_KEY_ORDER);
    second.set("seconds", s.seconds);  // how much of this second lay in the window (less for a last partial one)
    second.set("calls_ok", s.calls_ok);
    if (s.rated()) second.set("calls_ok_per_second", s.PerSecond(s.calls_ok));  // none for a second too short
    second.set("errors", s.errors);
    second.set("bytes_sent", s.bytes_sent);
    second.set("bytes_received", s.bytes_received);
    second.set("p50_ns", s.latency.ValueAtPercentile(50));
    second.set("p99_ns", s.latency.ValueAtPercentile(99));
    second.set("latency", HistogramJson(s.latency));
    seconds.add(second);
  }
  series.set("seconds", seconds);
  Array cpu;
  for (const auto& [client, server] : r.cpu_per_second) {
    Array pair;
    pair.add(client);
    pair.add(server);
    cpu.add(pair);
  }
  series.set("cpu_cores", cpu);  // (client, server) cores busy per second; server -1 unknown
  root->set("series", series);

  const RunContext& c = r.context;
  Object run(Poco::JSON_PRESERVE_KEY_ORDER);
  run.set("name", c.name);
  run.set("window_start", c.window_start_unix_ns > 0 ? Rfc3339(c.window_start_unix_ns) : std::string());
  run.set("window_start_unix_ns", c.window_start_unix_ns);
  run.set("window_end_unix_ns", c.window_end_unix_ns);
  run.set("start_at", c.start_at);
  Array merged;
  for (const std::string& name : c.merged_from) merged.add(name);
  run.set("merged_from", merged);
  Array hosts;
  for (const MachineInfo& m : c.load_hosts) hosts.add(MachineJson(m));
  run.set("load_hosts", hosts);
  root->set("run", run);
}

}  // namespace lather
