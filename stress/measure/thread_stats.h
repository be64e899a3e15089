// ThreadStats: what one load thread measured, kept by that thread alone (no locks, no shared
// atomics per call) and merged after join, as LevelDB's db_bench does.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "stress/measure/call_outcome.h"
#include "stress/measure/latency_histogram.h"

namespace lather {

// Bytes of the calls counted in the window, at the socket, split by part.
struct ByteCounts {
  uint64_t request_head = 0;
  uint64_t request_body = 0;
  uint64_t response_head = 0;
  uint64_t response_body = 0;
  uint64_t request_payload = 0;   // text inside the request's SOAP Body
  uint64_t response_payload = 0;  // text inside the response's SOAP Body

  uint64_t sent() const { return request_head + request_body; }
  uint64_t received() const { return response_head + response_body; }
  void Merge(const ByteCounts& o);
};

// A per-second rate is drawn only from a second of at least this much of the window: the last second of
// a window that does not end on a whole second (a run of 10.1 s) holds too few calls to give a rate.
inline constexpr double kShortestRatedSecond = 0.25;

// One second of the run (window-relative), for --series. Its counts are of `seconds` of the window: 1,
// or less for the last second of a window that does not end on a whole second; a rate derived from a
// second divides by that length, and a second shorter than kShortestRatedSecond gives none.
struct SecondStats {
  uint64_t calls_ok = 0;
  uint64_t errors = 0;
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  LatencyHistogram latency;
  double seconds = 1;  // how much of this second lay in the measured window, 0..1

  // True when this second is long enough to give a rate (seconds >= kShortestRatedSecond).
  bool rated() const { return seconds >= kShortestRatedSecond; }
  // `count` per second of this second's real length; 0 when it has no length.
  double PerSecond(uint64_t count) const { return seconds > 0 ? static_cast<double>(count) / seconds : 0; }
};

// Sets the length of each second of a window of `window_seconds`: 1 for the whole ones, the remainder
// for the last (a window of 2.3 s: 1, 1 and 0.3), 0 for a second wholly after the window's end.
void SetSecondLengths(double window_seconds, std::vector<SecondStats>* seconds);

struct ThreadStats {
  LatencyHistogram latency;       // from the intended send time (open model) or the send (closed)
  LatencyHistogram service_time;  // from the actual send: what the server and network took
  // From the actual send to the kernel's receipt of the answer (--receive-stamps; else empty): the service
  // time less this harness's own lateness in reading answers (its core busy, a long batch of events).
  LatencyHistogram receipt_time;
  // --receive-stamps: answers whose read came without the kernel's stamp (stamping still being switched on
  // machine-wide as the run began, or a clock that went back): not in receipt_time, counted here.
  uint64_t unstamped_answers = 0;
  std::array<uint64_t, kCallOutcomeCount> outcomes{};
  ByteCounts bytes;
  uint64_t late_calls = 0;        // open model: sent more than 1 ms after their scheduled time
  // Calls of the window sent (or being sent) but not answered when the run ended: neither ok nor failed, and
  // the server may have served them (an IncCounter among them may have counted).
  uint64_t unanswered_at_end = 0;
  uint64_t max_lateness_ns = 0;
  uint64_t total_lateness_ns = 0;
  uint64_t connections_opened = 0;
  double cpu_seconds = 0;         // this thread's CPU in the window
  std::string first_failure;      // what the first failed call said
  std::vector<SecondStats> seconds;

  uint64_t calls_ok() const { return outcomes[0]; }
  uint64_t failures() const;
  // Adds `o` in. Seconds add up by index (runs that ran at the same time), each second keeping the
  // longer of the two lengths: the calls of both fell in the same stretch of wall time.
  void Merge(const ThreadStats& o);
};

}  // namespace lather
