#include "service/admin/metrics.h"

#include <dirent.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>

namespace lather {
namespace {

const double kProcessStart =
    std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();

std::string MetricNumber(double v) {
  char out[32];
  std::snprintf(out, sizeof out, "%.9g", v);
  return out;
}

double ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double OpenFds() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  double n = 0;
  while (readdir(dir) != nullptr) ++n;
  closedir(dir);
  return n - 3;  // ".", ".." and the directory's own descriptor
}

}  // namespace

void AppendMetricHeader(std::string* out, const char* name, const char* type, const char* help) {
  out->append("# HELP ").append(name).append(" ").append(help).append("\n# TYPE ").append(name).append(" ");
  out->append(type).append("\n");
}

void TimeHistogram::Record(double seconds) {
  size_t bucket = 0;
  while (bucket < kDurationBuckets.size() && seconds > kDurationBuckets[bucket]) ++bucket;
  LoopMetrics::Add(buckets_[bucket], 1);
  LoopMetrics::Add(sum_nanos_, static_cast<uint64_t>(seconds * 1e9));
}

void TimeHistogram::AddTo(TimeHistogram* total) const {
  for (size_t b = 0; b < buckets_.size(); ++b) LoopMetrics::Add(total->buckets_[b], bucket(b));
  LoopMetrics::Add(total->sum_nanos_, sum_nanos());
}

void LoopMetrics::RecordRequest(size_t operation, size_t outcome, double seconds) {
  Add(requests_[operation][outcome], 1);
  duration_.Record(seconds);
}

uint64_t LoopMetrics::RequestsTotal() const {
  uint64_t total = 0;
  for (const auto& by_outcome : requests_) {
    for (const auto& count : by_outcome) total += count.load(std::memory_order_relaxed);
  }
  return total;
}

void LoopMetrics::RecordRejection(int status) {
  for (size_t i = 0; i < kRejectionStatuses.size(); ++i) {
    if (kRejectionStatuses[i] == status) return Add(rejections_[i], 1);
  }
}

void LoopMetrics::AddTo(LoopMetrics* total) const {
  auto add = [](const std::atomic<uint64_t>& from, std::atomic<uint64_t>& to) {
    Add(to, from.load(std::memory_order_relaxed));
  };
  for (size_t op = 0; op < requests_.size(); ++op) {
    for (size_t oc = 0; oc < requests_[op].size(); ++oc) add(requests_[op][oc], total->requests_[op][oc]);
  }
  for (size_t i = 0; i < rejections_.size(); ++i) add(rejections_[i], total->rejections_[i]);
  duration_.AddTo(&total->duration_);
  parse_.AddTo(&total->parse_);
  serialize_.AddTo(&total->serialize_);
  wait_.AddTo(&total->wait_);
  busy_.AddTo(&total->busy_);
  add(bytes_received_, total->bytes_received_);
  add(bytes_sent_, total->bytes_sent_);
  add(open_connections_, total->open_connections_);
  add(connections_accepted_, total->connections_accepted_);
  add(in_flight_, total->in_flight_);
  add(refusal_nanos_, total->refusal_nanos_);
  add(refusals_timed_, total->refusals_timed_);
  for (size_t i = 0; i < soap_paths_.size(); ++i) add(soap_paths_[i], total->soap_paths_[i]);
}

void AppendHistogram(std::string* out, const char* name, const char* help, const double* bounds, size_t bound_count,
                     const uint64_t* counts, double sum_seconds) {
  AppendMetricHeader(out, name, "histogram", help);
  uint64_t cumulative = 0;
  for (size_t b = 0; b <= bound_count; ++b) {
    cumulative += counts[b];
    out->append(name).append("_bucket{le=\"");
    out->append(b < bound_count ? MetricNumber(bounds[b]) : "+Inf").append("\"} ");
    out->append(std::to_string(cumulative)).append("\n");
  }
  out->append(name).append("_sum ").append(MetricNumber(sum_seconds)).append("\n");
  out->append(name).append("_count ").append(std::to_string(cumulative)).append("\n");
}

void RenderHistogram(const std::vector<const LoopMetrics*>& loops, TimeHistogram LoopMetrics::*member,
                     const char* name, const char* help, std::string* out) {
  std::array<uint64_t, kDurationBuckets.size() + 1> counts{};
  uint64_t sum_nanos = 0;
  for (const LoopMetrics* m : loops) {
    for (size_t b = 0; b < counts.size(); ++b) counts[b] += (m->*member).bucket(b);
    sum_nanos += (m->*member).sum_nanos();
  }
  AppendHistogram(out, name, help, kDurationBuckets.data(), kDurationBuckets.size(), counts.data(),
                  static_cast<double>(sum_nanos) / 1e9);
}

std::string RenderMetrics(const std::vector<const LoopMetrics*>& loops, size_t pool_queued) {
  auto sum = [&](auto member) {
    uint64_t total = 0;
    for (const LoopMetrics* m : loops) total += member(*m).load(std::memory_order_relaxed);
    return total;
  };
  std::string out;
  out.reserve(4096);
  AppendMetricHeader(&out, "lather_requests_total", "counter", "SOAP requests by operation and outcome.");
  for (size_t op = 0; op < kMetricOperations.size(); ++op) {
    for (size_t oc = 0; oc < kMetricOutcomes.size(); ++oc) {
      out.append("lather_requests_total{operation=\"").append(kMetricOperations[op]).append("\",outcome=\"");
      out.append(kMetricOutcomes[oc]).append("\"} ");
      out.append(std::to_string(sum([&](const LoopMetrics& m) -> const auto& { return m.requests_[op][oc]; }))).append("\n");
    }
  }
  AppendMetricHeader(&out, "lather_http_rejections_total", "counter", "Requests rejected at the HTTP layer, by status.");
  for (size_t i = 0; i < kRejectionStatuses.size(); ++i) {
    out.append("lather_http_rejections_total{status=\"").append(std::to_string(kRejectionStatuses[i])).append("\"} ");
    out.append(std::to_string(sum([&](const LoopMetrics& m) -> const auto& { return m.rejections_[i]; }))).append("\n");
  }
  RenderHistogram(loops, &LoopMetrics::duration_, "lather_request_duration_seconds",
                  "Execution time of SOAP requests: from the start of parsing to the serialized response.", &out);
  RenderHistogram(loops, &LoopMetrics::parse_, "lather_parse_seconds",
                  "Time gSOAP spent reading a request up to its operation (checks and deserialization).", &out);
  RenderHistogram(loops, &LoopMetrics::serialize_, "lather_serialize_seconds",
                  "Time gSOAP spent writing a response (or fault) after its operation returned.", &out);
  RenderHistogram(loops, &LoopMetrics::wait_, "lather_queue_wait_seconds",
                  "Time SOAP requests waited from arrival (the kernel's receive stamp) until execution began: in the "
                  "socket, in the event loop, and for the blocking pool.", &out);
  RenderHistogram(loops, &LoopMetrics::busy_, "lather_busy_answer_seconds",
                  "Server time spent answering 503 to requests that waited over --max-queue-wait.", &out);

  AppendMetricHeader(&out, "lather_refusal_seconds_total", "counter",
         "Time of the loop thread (monotonic clock) in connection wake-ups that answered only busy refusals, from the "
         "first read to the write of the 503s: reading, framing, the decision, dropping the bodies, writing; the "
         "wake-up's own work only, not other connections' between its read and its handling. Divided by "
         "lather_refusals_timed_total: what one refusal costs the loop (less the wake-up itself: epoll, dispatch). "
         "Every such wake-up while the loop sheds load.");
  const uint64_t refusal_nanos = sum([](const LoopMetrics& m) -> const auto& { return m.refusal_nanos_; });
  out.append("lather_refusal_seconds_total ").append(MetricNumber(static_cast<double>(refusal_nanos) / 1e9)).append("\n");
  AppendMetricHeader(&out, "lather_refusals_timed_total", "counter", "The 503s answered in the wake-ups lather_refusal_seconds_total timed.");
  out.append("lather_refusals_timed_total ").append(std::to_string(sum([](const LoopMetrics& m) -> const auto& { return m.refusals_timed_; }))).append("\n");
  AppendMetricHeader(&out, "lather_soap_path_total", "counter",
         "SOAP calls by who read them: path=\"fast\" the one-pass reader for the commonest Increment, HelloWorld, "
         "IncCounter and GetCounter envelopes (answers from gSOAP's own templates), path=\"gsoap\" gSOAP's "
         "reader (every other request: an unusual header, prefix, encoding, a fault). Clients that fall to "
         "gsoap for ordinary calls show here.");
  out.append("lather_soap_path_total{path=\"fast\"} ")
      .append(std::to_string(sum([](const LoopMetrics& m) -> const auto& { return m.soap_paths_[0]; })))
      .append("\n");
  out.append("lather_soap_path_total{path=\"gsoap\"} ")
      .append(std::to_string(sum([](const LoopMetrics& m) -> const auto& { return m.soap_paths_[1]; })))
      .append("\n");
  AppendMetricHeader(&out, "lather_requests_in_flight", "gauge", "SOAP requests being executed or waiting for the pool now.");
  out.append("lather_requests_in_flight ").append(std::to_string(sum([](const LoopMetrics& m) -> const auto& { return m.in_flight_; }))).append("\n");
  AppendMetricHeader(&out, "lather_pool_queued", "gauge", "Requests waiting for a blocking-pool thread now (store calls, large echoes).");
  out.append("lather_pool_queued ").append(std::to_string(pool_queued)).append("\n");
  AppendMetricHeader(&out, "lather_open_connections", "gauge", "Client connections open now.");
  out.append("lather_open_connections ").append(std::to_string(sum([](const LoopMetrics& m) -> const auto& { return m.open_connections_; }))).append("\n");
  AppendMetricHeader(&out, "lather_connections_accepted_total", "counter", "Client connections accepted.");
  out.append("lather_connections_accepted_total ").append(std::to_string(sum([](const LoopMetrics& m) -> const auto& { return m.connections_accepted_; }))).append("\n");
  AppendMetricHeader(&out, "lather_received_bytes_total", "counter", "Bytes read from clients.");
  out.append("lather_received_bytes_total ").append(std::to_string(sum([](const LoopMetrics& m) -> const auto& { return m.bytes_received_; }))).append("\n");
  AppendMetricHeader(&out, "lather_sent_bytes_total", "counter", "Bytes written to clients.");
  out.append("lather_sent_bytes_total ").append(std::to_string(sum([](const LoopMetrics& m) -> const auto& { return m.bytes_sent_; }))).append("\n");

  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                     static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  AppendMetricHeader(&out, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.");
  out.append("process_cpu_seconds_total ").append(MetricNumber(cpu)).append("\n");
  AppendMetricHeader(&out, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
  out.append("process_resident_memory_bytes ").append(MetricNumber(ResidentBytes())).append("\n");
  AppendMetricHeader(&out, "process_open_fds", "gauge", "Number of open file descriptors.");
  out.append("process_open_fds ").append(MetricNumber(OpenFds())).append("\n");
  AppendMetricHeader(&out, "process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch in seconds.");
  char start[32];
  std::snprintf(start, sizeof start, "%.3f", kProcessStart);
  out.append("process_start_time_seconds ").append(start).append("\n");
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  AppendMetricHeader(&out, "lather_cpu_cores", "gauge", "Cores the service may run on (its CPU affinity).");
  out.append("lather_cpu_cores ").append(std::to_string(cores)).append("\n");
  return out;
}

}  // namespace lather
