// StartAt: `--start-at TIME`, so that harnesses started on several load hosts by any orchestrator (ssh,
// Ansible, a Kubernetes Job) begin their warm-up together: the time's parsing and the wait. Thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace lather {

// The furthest ahead --start-at may be, and how far in the past it may already be.
inline constexpr int64_t kMaxStartAheadNs = 24LL * 3600 * 1000000000;
inline constexpr int64_t kMaxStartLateNs = 1000000000;

// Parses TIME: RFC 3339 ("2024-05-01T12:00:00Z", "2024-05-01T14:00:00.5+02:00"), a Unix time in seconds
// ("1714564800", "1714564800.25") or "+SECONDS" from `now_unix_ns` ("+30", "+2.5"). InvalidArgument for
// another form, or for a time more than 24 h after `now_unix_ns` or more than 1 s before it.
Status ParseStartAt(const std::string& text, int64_t now_unix_ns, int64_t* at_unix_ns);

// Sleeps until the wall clock (CLOCK_REALTIME) reads `at_unix_ns`; returns at once if it is past.
void SleepUntilUnixNs(int64_t at_unix_ns);

}  // namespace lather
