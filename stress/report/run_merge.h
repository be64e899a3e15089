// RunMerge: one run made of several that ran at the same time against one target from several load hosts
// (`lather-stress merge`). Histograms merge bucket by bucket (never an average of percentiles), counters
// add up, and the combined verdict is Judge() over the combined figures: the merged run is what one
// harness would have measured with all the connections and all the load hosts' cores (docs/stress.md,
// "Runs from several load hosts"). Pure function; thread-safe.
#pragma once

#include <vector>

#include "common/status.h"
#include "stress/report/report.h"

namespace lather {

// Merges `runs` (two or more, each with context.name set) into *merged. InvalidArgument, in one line
// naming the two runs and what differs, when they cannot be merged: another target, operation, client,
// SOAP version, echo size, load model or arrival, pipeline, keep-alive, planned duration or call count,
// declared link, a run against its own embedded service, or windows that did not overlap.
Status MergeRuns(const std::vector<RunReport>& runs, RunReport* merged);

// One line per input run for the merged report: its name, load host, calls/s, p99 and limit.
void PrintMergedFrom(const std::vector<RunReport>& runs, std::FILE* out);

}  // namespace lather
