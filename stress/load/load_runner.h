// LoadRunner: drives the target with N threads, each running one epoll loop over its share of the
// connections (no thread per connection). Closed model: every connection keeps `pipeline` calls
// in flight. Open model: calls are scheduled at a fixed rate (uniform or Poisson gaps) and latency
// is measured from the scheduled time, so a stalled server is not hidden (coordinated omission);
// calls that could not be sent on time are counted as late, never dropped.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "stress/load/request_template.h"
#include "stress/load/response_checker.h"
#include "stress/measure/clock.h"
#include "stress/measure/live_latency.h"
#include "stress/measure/thread_stats.h"

namespace lather {

class TlsContext;

struct LoadOptions {
  sockaddr_storage address{};          // resolved target
  socklen_t address_length = 0;
  const RequestTemplate* request = nullptr;
  Expectation expectation;
  size_t request_payload_bytes = 0;    // text inside the request Body for a 1-digit call number
  size_t payload_placeholders = 0;     // ${n} occurrences inside the Body text
  int threads = 1;
  int connections = 10;
  double duration_seconds = 10;        // measured window; ignored when total_calls > 0
  uint64_t total_calls = 0;            // stop after this many counted calls (0: run for the duration)
  double warmup_seconds = 2;
  double rate = 0;                     // calls/s for the open model; 0 for the closed model
  bool poisson = false;                // open model: exponential gaps instead of uniform
  int pipeline = 1;                    // calls in flight per connection
  bool keep_alive = true;              // false: a new connection per call
  double timeout_seconds = 10;         // a call without a response after this is a timeout
  bool series = false;                 // keep per-second figures
  // Plain TCP: also time each answer at the kernel's receipt of its last bytes (SO_TIMESTAMPNS), into
  // ThreadStats::receipt_time: what the server and the network took, without this harness's own late reads.
  bool receive_stamps = false;
  uint64_t first_call_number = 0;      // call numbers start here (each call gets its own)
  uint64_t call_number_modulus = 2000000000;  // and wrap below this (keeps Increment's value an xsd:int)
  // https: every connection speaks TLS with a context made as this one (its handshake is part of
  // connecting), and `tls_host` is the name the certificate must show. Null: plain TCP. Each load
  // thread makes its own context from `tls_verify` and `tls_ca_file` (what `tls` was made with):
  // OpenSSL 3.0's certificate lookup, shared between threads, read a cached certificate while another
  // handshake wrote it (a ThreadSanitizer report in CI).
  const TlsContext* tls = nullptr;
  bool tls_verify = true;
  std::string tls_ca_file;
  std::string tls_host;
};

// Called on the coordinating thread while the load threads run.
struct LoadObserver {
  std::function<void()> on_window_start;                        // warm-up is over
  // About once a second: window time so far, calls so far, and the p99 (ns, about 19% coarse) of the
  // calls that completed since the previous tick (0 if none).
  std::function<void(double seconds, uint64_t ok, uint64_t failed, uint64_t recent_p99_ns)> on_tick;
  std::function<void()> on_window_end;                          // the measured window is over
};

struct LoadResult {
  ThreadStats total;                   // merged
  std::vector<double> thread_cpu_seconds;
  double window_seconds = 0;
};

class LoadRunner {
 public:
  explicit LoadRunner(const LoadOptions& options) : options_(options) {}

  // Runs the load and merges the threads' figures into *result. Returns InvalidArgument for
  // inconsistent options; failed calls are figures, not errors.
  Status Run(const LoadObserver& observer, LoadResult* result);

 private:
  const LoadOptions& options_;
};

// What the coordinating thread can see of running load threads.
struct LiveProgress {
  std::function<bool()> all_done;                                  // every load thread has finished
  std::function<void(uint64_t* ok, uint64_t* failed)> counts;      // calls so far (relaxed reads)
  std::function<void(LiveLatency::Counts* counts)> latency;        // cumulative live histograms
};

// The LiveProgress of a set of workers (unique_ptrs) that have atomic `live_ok`, `live_failed` and
// `done` and a LiveLatency `live_latency`, each written only by its own thread.
template <typename Workers>
LiveProgress ProgressOf(const Workers& workers) {
  LiveProgress progress;
  progress.all_done = [&workers] {
    for (const auto& w : workers) {
      if (!w->done.load()) return false;
    }
    return true;
  };
  progress.counts = [&workers](uint64_t* ok, uint64_t* failed) {
    for (const auto& w : workers) {
      *ok += w->live_ok.load(std::memory_order_relaxed);
      *failed += w->live_failed.load(std::memory_order_relaxed);
    }
  };
  progress.latency = [&workers](LiveLatency::Counts* counts) {
    for (const auto& w : workers) w->live_latency.AddTo(counts);
  };
  return progress;
}

// Calls the observer while load threads run: window start at `warm_end_ns`, a tick about every
// second, window end at `end_ns` or when all threads are done. Returns when the window is over.
void ObserveWindow(uint64_t warm_end_ns, uint64_t end_ns, const LoadObserver& observer, const LiveProgress& progress);

}  // namespace lather
