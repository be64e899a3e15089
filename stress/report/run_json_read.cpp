// The reading half of run_json.h: a --json document (schema lather-stress/2) back into a RunReport.
#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "stress/report/run_json.h"

#include <cmath>
#include <type_traits>

namespace lather {
namespace {

using Poco::JSON::Array;
using Poco::JSON::Object;

// Thrown inside this file only, with the path of the field at fault; ParseRunJson turns it into a Status.
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Typed access to one object of the document, naming the field's path in every error.
class Node {
 public:
  Node(Object::Ptr object, std::string path) : object_(std::move(object)), path_(std::move(path)) {}

  bool has(const std::string& key) const { return object_->has(key) && !object_->isNull(key); }
  Node child(const std::string& key) const {
    Object::Ptr o = object_->getObject(Need(key));
    if (o.isNull()) throw FieldError("'" + Path(key) + "' is not an object");
    return Node(o, Path(key));
  }
  Array::Ptr array(const std::string& key) const {
    Array::Ptr a = object_->getArray(Need(key));
    if (a.isNull()) throw FieldError("'" + Path(key) + "' is not an array");
    return a;
  }
  template <typename T>
  T get(const std::string& key) const {
    // A figure that could not be computed is written as null (json_numbers.h): it reads back as NaN, which
    // the verdict treats as unknown.
    if constexpr (std::is_same_v<T, double>) {
      if (object_->has(key) && object_->isNull(key)) return std::nan("");
    }
    try {
      return object_->getValue<T>(Need(key));
    } catch (const Poco::Exception&) {
      throw FieldError("'" + Path(key) + "' has the wrong type");
    }
  }
  std::string str(const std::string& key) const { return get<std::string>(key); }
  std::string Path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

 private:
  const std::string& Need(const std::string& key) const {
    if (!object_->has(key)) throw FieldError("no '" + Path(key) + "'");
    return key;
  }
  Object::Ptr object_;
  std::string path_;
};

template <typename T>
T At(const Array::Ptr& array, size_t i, const std::string& what) {
  try {
    return array->getElement<T>(static_cast<unsigned>(i));
  } catch (const Poco::Exception&) {
    throw FieldError("'" + what + "' item " + std::to_string(i) + " has the wrong type");
  }
}

LatencyHistogram Histogram(const Node& n) {
  if (n.str("unit") != "ns" || n.get<uint64_t>("sub_buckets") != LatencyHistogram::kSubBucketCount) {
    throw FieldError("'" + n.Path("unit") + "' or sub_buckets is not this histogram's layout (ns, 256)");
  }
  std::vector<std::pair<uint64_t, uint64_t>> buckets;
  const Array::Ptr list = n.array("buckets");
  for (size_t i = 0; i < list->size(); ++i) {
    Array::Ptr pair = list->getArray(static_cast<unsigned>(i));
    if (pair.isNull() || pair->size() != 2) throw FieldError("'" + n.Path("buckets") + "' item is not a pair");
    buckets.emplace_back(At<uint64_t>(pair, 0, n.Path("buckets")), At<uint64_t>(pair, 1, n.Path("buckets")));
  }
  LatencyHistogram h;
  std::string error;
  if (!LatencyHistogram::FromBuckets(buckets, n.get<uint64_t>("count"), n.get<uint64_t>("sum"), n.get<uint64_t>("min"),
                                     n.get<uint64_t>("max"), n.get<uint64_t>("overflow"), &h, &error)) {
    throw FieldError("'" + n.Path("buckets") + "': " + error);
  }
  return h;
}

MachineInfo Machine(const Node& n) {
  MachineInfo m;
  m.hostname = n.str("hostname");
  m.cores = n.get<int>("cores");
  m.kernel = n.str("kernel");
  m.arch = n.str("machine");
  m.cpu_model = n.str("cpu_model");
  m.lather_version = n.str("lather_version");
  m.compiler = n.str("compiler");
  m.gsoap_version = n.str("gsoap_version");
  return m;
}

void Settings(const Node& n, StressSettings* s) {
  s->url = n.str("url");
  s->op = n.str("op");
  s->client = n.str("client");
  s->soap_version = n.str("soap_version") == "1.2" ? 2 : 1;
  s->samples = n.get<size_t>("samples");
  s->rate = n.get<double>("rate");
  s->poisson = n.str("arrival") == "poisson";
  s->threads = n.get<int>("threads");
  s->connections = n.get<int>("connections");
  s->pipeline = n.get<int>("pipeline");
  s->keep_alive = n.get<bool>("keep_alive");
  s->duration_seconds = n.get<double>("duration_seconds");
  s->total_calls = n.get<uint64_t>("total_calls");
  s->warmup_seconds = n.get<double>("warmup_seconds");
  s->embedded = n.get<bool>("embedded_service");
  s->placement = n.str("placement");
}

void Figures(const Node& n, RunFigures* f) {
  f->duration_seconds = n.get<double>("duration_seconds");
  f->calls_ok = n.get<uint64_t>("calls_ok");
  f->connections = n.get<int>("connections");
  f->mean_latency_seconds = n.get<double>("mean_latency_seconds");
  f->client_cpu_seconds = n.get<double>("client_cpu_seconds");
  f->client_cores = n.get<double>("client_cores");
  f->server_cpu_seconds = n.get<double>("server_cpu_seconds");
  f->server_cores = n.get<double>("server_cores");
  f->shared_cores = n.get<bool>("shared_cores");
  f->machine_cores = n.get<double>("machine_cores");
  f->wire_bytes_per_call = n.get<double>("wire_bytes_per_call");
  f->wire_up_bytes_per_call = n.get<double>("wire_up_bytes_per_call");
  f->wire_down_bytes_per_call = n.get<double>("wire_down_bytes_per_call");
  f->link_bits_per_second = n.get<double>("link_bits_per_second");
  f->link_declared = n.get<bool>("link_declared");
  f->half_duplex = n.get<bool>("half_duplex");
  f->loopback = n.get<bool>("loopback");
  f->client_thread_peak_cpu_seconds = n.get<double>("client_thread_peak_cpu_seconds");
  f->server_thread_peak_cpu_seconds = n.get<double>("server_thread_peak_cpu_seconds");
  f->server_threads = n.get<int>("server_threads");
  f->unloaded_latency_seconds = n.get<double>("unloaded_latency_seconds");
  f->server_exec_seconds_per_call = n.get<double>("server_exec_seconds_per_call");
  f->server_queue_wait_seconds_per_call = n.get<double>("server_queue_wait_seconds_per_call");
  f->server_xml_seconds_per_call = n.get<double>("server_xml_seconds_per_call");
  f->store_operation = n.get<bool>("store_operation");
  f->other_cpu_seconds = n.get<double>("other_cpu_seconds");
  f->envelope_share = n.get<double>("envelope_share");
  f->open_model_rate = n.get<double>("open_model_rate");
  f->late_calls = n.get<uint64_t>("late_calls");
  // A farm's components (issue 16); absent in runs of one server.
  if (n.has("components")) {
    f->components_on_machine = n.get<bool>("components_on_machine");
    const Array::Ptr list = n.array("components");
    for (size_t i = 0; i < list->size(); ++i) {
      const Node c(list->getObject(static_cast<unsigned>(i)), n.Path("components") + "." + std::to_string(i));
      ComponentFigures component;
      component.name = c.str("name");
      component.serving = c.get<bool>("serving");
      const Array::Ptr cpu = c.array("cpu_seconds"), cores = c.array("cores");
      for (size_t j = 0; j < cpu->size(); ++j) component.cpu_seconds.push_back(At<double>(cpu, j, c.Path("cpu_seconds")));
      for (size_t j = 0; j < cores->size(); ++j) component.cores.push_back(At<double>(cores, j, c.Path("cores")));
      if (c.has("quota_periods") && c.has("throttled_periods")) {  // absent in runs saved before issue 31
        const Array::Ptr periods = c.array("quota_periods"), throttled = c.array("throttled_periods");
        for (size_t j = 0; j < periods->size(); ++j) {
          component.periods.push_back(At<double>(periods, j, c.Path("quota_periods")));
        }
        for (size_t j = 0; j < throttled->size(); ++j) {
          component.throttled_periods.push_back(At<double>(throttled, j, c.Path("throttled_periods")));
        }
      }
      f->components.push_back(component);
    }
  }
}

Verdict::Limit LimitNamed(const std::string& name, const std::string& path) {
  for (Verdict::Limit limit : {Verdict::Limit::kClientCpu, Verdict::Limit::kServerCpu, Verdict::Limit::kComponentCpu,
                               Verdict::Limit::kNetwork,
                               Verdict::Limit::kServerWaiting, Verdict::Limit::kConcurrency,
                               Verdict::Limit::kOfferedLoad, Verdict::Limit::kUnknown}) {
    if (LimitName(limit) == name) return limit;
  }
  throw FieldError("'" + path + "' names no limit: " + name);
}

void VerdictOf(const Node& n, Verdict* v) {
  v->limit = LimitNamed(n.str("limit"), n.Path("limit"));
  v->calls_per_second = n.get<double>("calls_per_second");
  v->client_cores_used = n.get<double>("client_cores_used");
  v->server_cores_used = n.get<double>("server_cores_used");
  v->client_utilization = n.get<double>("client_utilization");
  v->server_utilization = n.get<double>("server_utilization");
  v->network_bits_per_second = n.get<double>("network_bits_per_second");
  v->network_utilization = n.get<double>("network_utilization");
  v->network_up_utilization = n.get<double>("network_up_utilization");
  v->network_down_utilization = n.get<double>("network_down_utilization");
  v->client_thread_peak = n.get<double>("client_thread_peak");
  v->server_thread_peak = n.get<double>("server_thread_peak");
  v->saturated_thread = n.str("saturated_thread");
  v->serializing = n.get<bool>("serializing");
  v->other_cores_used = n.get<double>("other_cores_used");
  v->client_ceiling = n.get<double>("client_ceiling");
  v->server_ceiling = n.get<double>("server_ceiling");
  v->network_ceiling = n.get<double>("network_ceiling");
  v->suggested_connections = n.get<double>("suggested_connections");
  v->client_cpu_per_call = n.get<double>("client_cpu_per_call");
  v->server_cpu_per_call = n.get<double>("server_cpu_per_call");
  v->shared_utilization = n.get<double>("shared_utilization");
  v->shared_ceiling = n.get<double>("shared_ceiling");
  v->text = n.str("text");
  if (n.has("component")) v->component = n.str("component");
  if (n.has("machine_utilization")) v->machine_utilization = n.get<double>("machine_utilization");
}

void Series(const Node& n, RunReport* r) {
  const Array::Ptr seconds = n.array("seconds");
  bool lengths = true;
  for (size_t i = 0; i < seconds->size(); ++i) {
    Object::Ptr o = seconds->getObject(static_cast<unsigned>(i));
    if (o.isNull()) throw FieldError("'" + n.Path("seconds") + "' item is not an object");
    const Node s(o, n.Path("seconds") + "[" + std::to_string(i) + "]");
    SecondStats second;
    second.calls_ok = s.get<uint64_t>("calls_ok");
    second.errors = s.get<uint64_t>("errors");
    second.bytes_sent = s.get<uint64_t>("bytes_sent");
    second.bytes_received = s.get<uint64_t>("bytes_received");
    second.latency = Histogram(s.child("latency"));
    if (s.has("seconds")) {
      second.seconds = s.get<double>("seconds");
      if (!(second.seconds >= 0 && second.seconds <= 1)) throw FieldError("'" + s.Path("seconds") + "' is not 0..1");
    } else {
      lengths = false;
    }
    r->load.total.seconds.push_back(std::move(second));
  }
  // A document written before each second carried its length: the lengths its window gives.
  if (!lengths) SetSecondLengths(r->load.window_seconds, &r->load.total.seconds);
  const Array::Ptr cpu = n.array("cpu_cores");
  for (size_t i = 0; i < cpu->size(); ++i) {
    Array::Ptr pair = cpu->getArray(static_cast<unsigned>(i));
    if (pair.isNull() || pair->size() != 2) throw FieldError("'" + n.Path("cpu_cores") + "' item is not a pair");
    r->cpu_per_second.emplace_back(At<double>(pair, 0, n.Path("cpu_cores")), At<double>(pair, 1, n.Path("cpu_cores")));
  }
}

void Context(const Node& run, const Node& machine, RunContext* c) {
  c->machine = Machine(machine);
  c->name = run.str("name");
  c->window_start_unix_ns = run.get<int64_t>("window_start_unix_ns");
  c->window_end_unix_ns = run.get<int64_t>("window_end_unix_ns");
  c->start_at = run.str("start_at");
  const Array::Ptr merged = run.array("merged_from");
  for (size_t i = 0; i < merged->size(); ++i) c->merged_from.push_back(At<std::string>(merged, i, run.Path("merged_from")));
  const Array::Ptr hosts = run.array("load_hosts");
  for (size_t i = 0; i < hosts->size(); ++i) {
    Object::Ptr o = hosts->getObject(static_cast<unsigned>(i));
    if (o.isNull()) throw FieldError("'" + run.Path("load_hosts") + "' item is not an object");
    c->load_hosts.push_back(Machine(Node(o, run.Path("load_hosts"))));
  }
}

void Read(const Node& root, RunReport* r) {
  Settings(root.child("settings"), &r->settings);
  const Node calls = root.child("calls");
  ThreadStats& t = r->load.total;
  r->load.window_seconds = calls.get<double>("window_seconds");
  t.outcomes[0] = calls.get<uint64_t>("ok");
  const Node by_kind = calls.child("failed_by_kind");
  for (int i = 1; i < kCallOutcomeCount; ++i) {
    t.outcomes[static_cast<size_t>(i)] = by_kind.get<uint64_t>(CallOutcomeName(static_cast<CallOutcome>(i)));
  }
  t.first_failure = calls.str("first_failure");
  t.late_calls = calls.get<uint64_t>("late_calls");
  t.unanswered_at_end = calls.has("unanswered_at_end") ? calls.get<uint64_t>("unanswered_at_end") : 0;  // newer runs
  t.connections_opened = calls.get<uint64_t>("connections_opened");
  t.max_lateness_ns = calls.get<uint64_t>("max_lateness_ns");
  t.latency = Histogram(root.child("latency").child("histogram"));
  t.service_time = Histogram(root.child("service_time").child("histogram"));
  if (root.has("receipt_time")) {  // --receive-stamps
    t.receipt_time = Histogram(root.child("receipt_time").child("histogram"));
    if (root.child("receipt_time").has("unstamped_answers")) {
      t.unstamped_answers = root.child("receipt_time").get<uint64_t>("unstamped_answers");
    }
  }

  const Node counters = root.child("counters");
  t.bytes.request_head = counters.get<uint64_t>("request_head_bytes");
  t.bytes.request_body = counters.get<uint64_t>("request_body_bytes");
  t.bytes.response_head = counters.get<uint64_t>("response_head_bytes");
  t.bytes.response_body = counters.get<uint64_t>("response_body_bytes");
  t.bytes.request_payload = counters.get<uint64_t>("request_payload_bytes");
  t.bytes.response_payload = counters.get<uint64_t>("response_payload_bytes");
  t.total_lateness_ns = counters.get<uint64_t>("total_lateness_ns");

  // The window's interface counters as a snapshot pair: zero before, the differences after.
  const Node bytes = root.child("bytes");
  r->before = ResourceSnapshot{};
  r->after = ResourceSnapshot{};
  r->before.interface_known = r->after.interface_known = counters.get<bool>("interface_known");
  r->after.tx_bytes = bytes.get<uint64_t>("interface_tx_bytes");
  r->after.rx_bytes = bytes.get<uint64_t>("interface_rx_bytes");
  r->after.tx_packets = bytes.get<uint64_t>("interface_tx_packets");
  r->after.rx_packets = bytes.get<uint64_t>("interface_rx_packets");
  r->after.tcp_retransmits = bytes.get<uint64_t>("tcp_retransmits");
  r->interface_name = bytes.str("interface");
  r->link_bits_per_second = bytes.get<double>("link_bits_per_second");
  r->link_declared = bytes.get<bool>("link_declared");
  r->half_duplex = bytes.get<bool>("half_duplex");

  const Node cpu = root.child("cpu");
  r->client_cores = cpu.get<double>("client_cores");
  r->server_cores = cpu.get<double>("server_cores");
  r->server_cpu_source = cpu.str("server_cpu_source");
  const Array::Ptr threads = cpu.array("client_thread_cpu_seconds");
  for (size_t i = 0; i < threads->size(); ++i) {
    r->load.thread_cpu_seconds.push_back(At<double>(threads, i, cpu.Path("client_thread_cpu_seconds")));
  }

  Figures(root.child("figures"), &r->figures);
  r->unloaded_latency_seconds = r->figures.unloaded_latency_seconds;
  r->shared_cores = r->figures.shared_cores;
  r->after.client_cpu_seconds = r->figures.client_cpu_seconds;
  r->before.server_cpu_seconds = r->figures.server_cpu_seconds >= 0 ? 0 : -1;
  r->after.server_cpu_seconds = r->figures.server_cpu_seconds;
  VerdictOf(root.child("verdict"), &r->verdict);
  Series(root.child("series"), r);
  Context(root.child("run"), root.child("machine"), &r->context);
}

}  // namespace

Status HistogramFromJson(const Object& json, LatencyHistogram* histogram) {
  try {
    // Through the text, so that nested arrays set by value read as parsed ones do.
    std::ostringstream text;
    json.stringify(text);
    Poco::JSON::Parser parser;
    *histogram = Histogram(Node(parser.parse(text.str()).extract<Object::Ptr>(), "histogram"));
  } catch (const Poco::Exception& e) {
    return Status::InvalidArgument(e.displayText());
  } catch (const FieldError& e) {
    return Status::InvalidArgument(e.what());
  }
  return Status::Ok();
}

Status ParseRunJson(const std::string& text, RunReport* report) {
  Object::Ptr root;
  try {
    Poco::JSON::Parser parser;
    const Poco::Dynamic::Var parsed = parser.parse(text);
    if (parsed.type() != typeid(Object::Ptr)) return Status::InvalidArgument("not a lather-stress run (not an object)");
    root = parsed.extract<Object::Ptr>();
  } catch (const Poco::Exception& e) {
    return Status::InvalidArgument("not a JSON object: " + e.message());
  }
  if (root.isNull() || !root->has("schema")) return Status::InvalidArgument("not a lather-stress run (no 'schema')");
  const std::string schema = root->getValue<std::string>("schema");
  if (schema != kReportSchema) {
    if (schema.rfind("lather-stress/", 0) == 0) {
      return Status::InvalidArgument("schema " + schema + " (an older lather-stress, without the full histograms); " +
                                     "this one reads " + kReportSchema + ": run it again");
    }
    return Status::InvalidArgument("not a lather-stress run (schema '" + schema + "')");
  }
  RunReport r;
  try {
    Read(Node(root, ""), &r);
  } catch (const FieldError& e) {
    return Status::InvalidArgument(e.what());
  } catch (const Poco::Exception& e) {
    return Status::InvalidArgument(e.displayText());
  }
  *report = std::move(r);
  return Status::Ok();
}

Status ReadRunFile(const std::string& path, RunReport* report) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(path + ": cannot read");
  std::stringstream text;
  text << in.rdbuf();
  Status s = ParseRunJson(text.str(), report);
  if (!s.ok()) return Status::InvalidArgument(path + ": " + s.message());
  if (report->context.name.empty()) {
    std::string name = path.substr(path.find_last_of('/') + 1);
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) name.resize(name.size() - 5);
    report->context.name = name;
  }
  return Status::Ok();
}

}  // namespace lather
