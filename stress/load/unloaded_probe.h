// ProbeUnloadedLatency: a short run at one connection, taken out of the warm-up, whose mean latency is
// the target's unloaded latency. The verdict holds it against the latency at N connections: a server
// whose latency grows N-fold while calls/s stay flat serializes its calls. Blocking; call from one thread.
#pragma once

#include "common/status.h"
#include "stress/load/load_runner.h"

namespace lather {

// Runs `load` with one connection, one thread, in the closed model for `seconds` (a tenth of it warm-up)
// and sets *mean_latency_seconds to the mean latency of its successful calls (-1 if none succeeded).
// Errors as LoadRunner::Run.
Status ProbeUnloadedLatency(const LoadOptions& load, double seconds, double* mean_latency_seconds);

}  // namespace lather
