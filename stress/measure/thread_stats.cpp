#include "stress/measure/thread_stats.h"

#include <algorithm>
#include <cmath>

namespace lather {

void ByteCounts::Merge(const ByteCounts& o) {
  request_head += o.request_head;
  request_body += o.request_body;
  response_head += o.response_head;
  response_body += o.response_body;
  request_payload += o.request_payload;
  response_payload += o.response_payload;
}

void SetSecondLengths(double window_seconds, std::vector<SecondStats>* seconds) {
  for (size_t i = 0; i < seconds->size(); ++i) {
    const double left = std::isfinite(window_seconds) ? window_seconds - static_cast<double>(i) : 1;
    (*seconds)[i].seconds = std::clamp(left, 0.0, 1.0);
  }
}

uint64_t ThreadStats::failures() const {
  uint64_t n = 0;
  for (size_t i = 1; i < outcomes.size(); ++i) n += outcomes[i];
  return n;
}

void ThreadStats::Merge(const ThreadStats& o) {
  latency.Merge(o.latency);
  service_time.Merge(o.service_time);
  receipt_time.Merge(o.receipt_time);
  unstamped_answers += o.unstamped_answers;
  for (size_t i = 0; i < outcomes.size(); ++i) outcomes[i] += o.outcomes[i];
  bytes.Merge(o.bytes);
  late_calls += o.late_calls;
  unanswered_at_end += o.unanswered_at_end;
  max_lateness_ns = std::max(max_lateness_ns, o.max_lateness_ns);
  total_lateness_ns += o.total_lateness_ns;
  connections_opened += o.connections_opened;
  cpu_seconds += o.cpu_seconds;
  if (first_failure.empty()) first_failure = o.first_failure;
  const size_t had = seconds.size();
  if (seconds.size() < o.seconds.size()) seconds.resize(o.seconds.size());
  for (size_t i = 0; i < o.seconds.size(); ++i) {
    seconds[i].seconds = i < had ? std::max(seconds[i].seconds, o.seconds[i].seconds) : o.seconds[i].seconds;
    seconds[i].calls_ok += o.seconds[i].calls_ok;
    seconds[i].errors += o.seconds[i].errors;
    seconds[i].bytes_sent += o.seconds[i].bytes_sent;
    seconds[i].bytes_received += o.seconds[i].bytes_received;
    seconds[i].latency.Merge(o.seconds[i].latency);
  }
}

}  // namespace lather
