#include "stress/load/gsoap_runner.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "client/data_sample.h"
#include "client/soap_client.h"

namespace lather {
namespace {

double ThreadCpu() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

CallOutcome OutcomeOf(const Status& s) {
  switch (s.kind()) {
    case Status::Kind::kOk: return CallOutcome::kOk;
    case Status::Kind::kFault: return CallOutcome::kFault;
    case Status::Kind::kTimeout: return CallOutcome::kTimeout;
    case Status::Kind::kIOError: return CallOutcome::kIo;
    default: return CallOutcome::kMalformed;
  }
}

struct Worker {
  ThreadStats stats;
  std::atomic<uint64_t> live_ok{0}, live_failed{0};
  LiveLatency live_latency;
  std::atomic<bool> done{false};
  uint64_t finished_ns = 0;
};

void RunWorker(const GsoapLoadOptions& o, int index, uint64_t quota, uint64_t warm_end, uint64_t end, Worker* w) {
  ClientOptions client_options;
  client_options.url = o.url;
  client_options.soap12 = o.soap12;
  client_options.user = o.user;
  client_options.password = o.password;
  client_options.timeout_seconds = std::max(1, static_cast<int>(o.timeout_seconds));
  client_options.ca_file = o.ca_file;
  client_options.insecure = o.insecure;
  Client client(client_options);
  SampleShape shape;
  shape.count = o.samples;
  const SampleSet samples = o.op == "echo" ? GenerateSamples(shape) : SampleSet();
  SampleSet echoed;
  uint64_t n = o.first_call_number + static_cast<uint64_t>(index);
  uint64_t counted = 0;
  double cpu_start = -1;
  std::string greeting;
  for (;;) {
    const uint64_t start = NowNanos();
    if (cpu_start < 0 && start >= warm_end) cpu_start = ThreadCpu();
    if (o.total_calls > 0 ? counted >= quota : start >= end) break;
    const uint64_t value = n % 2000000000;
    n += static_cast<uint64_t>(o.connections);
    Status s;
    bool expected = true;
    if (o.op == "increment") {
      int32_t result = 0;
      s = client.Increment(static_cast<int32_t>(value), &result);
      expected = result == static_cast<int32_t>(value) + 1;
    } else if (o.op == "hello") {
      s = client.HelloWorld(&greeting);
      expected = greeting == "Hello World";
    } else if (o.op == "inc-counter") {
      int64_t result = 0;
      s = client.IncCounter(o.counter_name, &result);
      expected = result > 0;
    } else {
      s = client.EchoDataSamples(samples, &echoed);
      expected = echoed.samples.size() == samples.samples.size();
    }
    const uint64_t now = NowNanos();
    if (start < warm_end || (o.total_calls == 0 && now > end)) continue;
    ++counted;
    CallOutcome outcome = OutcomeOf(s);
    if (outcome == CallOutcome::kOk && !expected) outcome = CallOutcome::kMismatch;
    ++w->stats.outcomes[static_cast<size_t>(outcome)];
    w->stats.bytes.request_body += client.last_bytes_sent();
    w->stats.bytes.response_body += client.last_bytes_received();
    if (outcome == CallOutcome::kOk) {
      w->stats.latency.Record(now - start);
      w->stats.service_time.Record(now - start);
      w->live_latency.Record(now - start);
      w->live_ok.store(w->live_ok.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    } else {
      w->live_failed.store(w->live_failed.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      if (w->stats.first_failure.empty()) {
        w->stats.first_failure = std::string(CallOutcomeName(outcome)) + ": " + (s.ok() ? "unexpected result" : s.ToString());
      }
      if (s.kind() == Status::Kind::kIOError) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  w->finished_ns = NowNanos();
  if (cpu_start >= 0) w->stats.cpu_seconds = ThreadCpu() - cpu_start;
  w->done = true;
}

}  // namespace

Status RunGsoapLoad(const GsoapLoadOptions& o, const LoadObserver& observer, LoadResult* result) {
  if (o.op != "increment" && o.op != "hello" && o.op != "inc-counter" && o.op != "echo") {
    return Status::InvalidArgument("--client gsoap supports --op increment, hello, inc-counter and echo");
  }
  const uint64_t start = NowNanos();
  const uint64_t warm_end = start + static_cast<uint64_t>(o.warmup_seconds * 1e9);
  const uint64_t end = o.total_calls > 0 ? UINT64_MAX : warm_end + static_cast<uint64_t>(o.duration_seconds * 1e9);
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::thread> threads;
  for (int i = 0; i < o.connections; ++i) {
    workers.push_back(std::make_unique<Worker>());
    const uint64_t quota = o.total_calls / static_cast<uint64_t>(o.connections) +
                           (static_cast<uint64_t>(i) < o.total_calls % static_cast<uint64_t>(o.connections) ? 1 : 0);
    threads.emplace_back(RunWorker, std::cref(o), i, quota, warm_end, end, workers.back().get());
  }
  ObserveWindow(warm_end, end, observer, ProgressOf(workers));
  for (std::thread& t : threads) t.join();
  LoadResult merged;
  uint64_t last_end = warm_end;
  for (const auto& w : workers) {
    merged.total.Merge(w->stats);
    merged.thread_cpu_seconds.push_back(w->stats.cpu_seconds);
    last_end = std::max(last_end, w->finished_ns);
  }
  merged.window_seconds = o.total_calls > 0 ? static_cast<double>(last_end - warm_end) / 1e9 : o.duration_seconds;
  *result = std::move(merged);
  return Status::Ok();
}

}  // namespace lather
