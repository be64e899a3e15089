// Metrics: the service's counters, exported at GET /metrics in the Prometheus text format.
// Each event loop (or classic connection thread) owns one LoopMetrics and is its only writer (relaxed atomic loads and stores, no
// read-modify-write, no lock); the /metrics request, served by any loop, sums all loops' values.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace lather {

// Operations as counted: the five of the contract, then "none" for requests that reached no operation.
inline constexpr std::array<const char*, 6> kMetricOperations = {"Increment", "HelloWorld", "IncCounter", "GetCounter",
                                                                 "EchoDataSamples", "none"};
inline constexpr std::array<const char*, 3> kMetricOutcomes = {"ok", "client_fault", "server_fault"};
// HTTP statuses with which the service rejects requests before (or instead of) the SOAP engine.
inline constexpr std::array<int, 14> kRejectionStatuses = {400, 404, 405, 408, 411, 412, 413, 414, 415, 417, 431, 501, 503, 505};
// Upper bounds (seconds) of the execution-time histogram buckets; +Inf is implied.
inline constexpr std::array<double, 14> kDurationBuckets = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                            0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0};

// A latency histogram over kDurationBuckets (plus +Inf) and the sum, single writer (see LoopMetrics).
class TimeHistogram {
 public:
  void Record(double seconds);
  void AddTo(TimeHistogram* total) const;
  uint64_t bucket(size_t i) const { return buckets_[i].load(std::memory_order_relaxed); }
  uint64_t sum_nanos() const { return sum_nanos_.load(std::memory_order_relaxed); }

 private:
  std::array<std::atomic<uint64_t>, kDurationBuckets.size() + 1> buckets_{};
  std::atomic<uint64_t> sum_nanos_{0};
};

class LoopMetrics {
 public:
  // A SOAP request ran: `operation` indexes kMetricOperations, `outcome` kMetricOutcomes.
  void RecordRequest(size_t operation, size_t outcome, double seconds);
  // Every request counted by RecordRequest so far (all operations and outcomes).
  uint64_t RequestsTotal() const;
  // How long gSOAP took to read the request up to the operation, and to write the response after it.
  void RecordParseSerialize(double parse_seconds, double serialize_seconds) {
    parse_.Record(parse_seconds);
    serialize_.Record(serialize_seconds);
  }
  // A SOAP request waited `seconds` from its arrival until its execution began.
  void RecordQueueWait(double seconds) { wait_.Record(seconds); }
  // A request over the queue-wait limit was answered 503 in `seconds` of server time.
  void RecordBusyAnswer(double seconds) { busy_.Record(seconds); }
  // A wake-up of a connection answered only refusals (busy): `refusals` of them, in `nanos` of the loop thread's
  // time (monotonic clock) in that wake-up's own work, from its first read to the write of their answers (the
  // event engine, while shedding).
  void RecordRefusalTime(uint64_t nanos, uint64_t refusals) {
    Add(refusal_nanos_, nanos);
    Add(refusals_timed_, refusals);
  }
  // A request was rejected at the HTTP layer with `status`.
  void RecordRejection(int status);
  // A SOAP call was read by the fast path (`fast`) or by gSOAP (lather_soap_path_total).
  void RecordSoapPath(bool fast) { Add(soap_paths_[fast ? 0 : 1], 1); }
  void AddBytesReceived(uint64_t n) { Add(bytes_received_, n); }
  void AddBytesSent(uint64_t n) { Add(bytes_sent_, n); }
  void ConnectionOpened() { Add(open_connections_, 1); Add(connections_accepted_, 1); }
  void ConnectionClosed() { Sub(open_connections_, 1); }
  void RequestStarted() { Add(in_flight_, 1); }
  void RequestFinished() { Sub(in_flight_, 1); }

  // Adds every value of this to *total (the classic engine folds an ended connection's metrics
  // into its running total; callers serialize writers of *total).
  void AddTo(LoopMetrics* total) const;

 private:
  friend std::string RenderMetrics(const std::vector<const LoopMetrics*>& loops, size_t pool_queued);
  friend void RenderHistogram(const std::vector<const LoopMetrics*>& loops, TimeHistogram LoopMetrics::*member,
                              const char* name, const char* help, std::string* out);
  friend class TimeHistogram;
  static void Add(std::atomic<uint64_t>& a, uint64_t n) {
    a.store(a.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  static void Sub(std::atomic<uint64_t>& a, uint64_t n) {
    a.store(a.load(std::memory_order_relaxed) - n, std::memory_order_relaxed);
  }

  std::array<std::array<std::atomic<uint64_t>, kMetricOutcomes.size()>, kMetricOperations.size()> requests_{};
  std::array<std::atomic<uint64_t>, kRejectionStatuses.size()> rejections_{};
  TimeHistogram duration_;
  TimeHistogram parse_;
  TimeHistogram serialize_;
  TimeHistogram wait_;
  TimeHistogram busy_;
  std::atomic<uint64_t> bytes_received_{0};
  std::atomic<uint64_t> bytes_sent_{0};
  std::atomic<uint64_t> open_connections_{0};
  std::atomic<uint64_t> connections_accepted_{0};
  std::atomic<uint64_t> in_flight_{0};
  std::atomic<uint64_t> refusal_nanos_{0};
  std::atomic<uint64_t> refusals_timed_{0};
  std::array<std::atomic<uint64_t>, 2> soap_paths_{};  // [0] fast path, [1] gSOAP
};

// For metrics rendered outside this file (the store's writer: service/dispatch/store_metrics.h): one metric's
// "# HELP" and "# TYPE" lines, and a whole histogram from `bound_count` upper bounds in seconds (+Inf implied),
// `bound_count` + 1 counts per bucket (not cumulative) and their sum.
void AppendMetricHeader(std::string* out, const char* name, const char* type, const char* help);
void AppendHistogram(std::string* out, const char* name, const char* help, const double* bounds, size_t bound_count,
                     const uint64_t* counts, double sum_seconds);

// The Prometheus text exposition of the loops' sums plus process_cpu_seconds_total,
// process_resident_memory_bytes, process_open_fds, process_start_time_seconds and lather_cpu_cores;
// `pool_queued` is the number of requests waiting for a blocking-pool thread now (lather_pool_queued).
std::string RenderMetrics(const std::vector<const LoopMetrics*>& loops, size_t pool_queued = 0);

}  // namespace lather
