#include "stress/load/unloaded_probe.h"

namespace lather {

Status ProbeUnloadedLatency(const LoadOptions& load, double seconds, double* mean_latency_seconds) {
  LoadOptions probe = load;
  probe.threads = 1;
  probe.connections = 1;
  probe.pipeline = 1;
  probe.rate = 0;
  probe.total_calls = 0;
  probe.series = false;
  probe.warmup_seconds = seconds / 10;
  probe.duration_seconds = seconds - probe.warmup_seconds;
  LoadResult result;
  const Status s = LoadRunner(probe).Run(LoadObserver{}, &result);
  if (!s.ok()) return s;
  *mean_latency_seconds = result.total.calls_ok() > 0 ? result.total.service_time.Mean() / 1e9 : -1;
  return Status::Ok();
}

}  // namespace lather
