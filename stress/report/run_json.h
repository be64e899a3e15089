// RunJson: the parts of lather-stress's JSON (schema lather-stress/2) that let a saved run be read back
// whole: the full latency histograms (sparse: the buckets that hold values, with the exact count, sum,
// min, max and overflow), the per-second series, the raw counters and the verdict's inputs, the machine
// and the window's wall-clock times. ReportJson() writes them through AddRunDetail(); ParseRunJson()
// rebuilds a RunReport from the document, so that `report` and `merge` work on saved runs exactly as on
// a live one (the same histograms, counts, figures and verdict). Schema: docs/stress.md.
// Pure functions; thread-safe.
#pragma once

#include <Poco/JSON/Object.h>

#include <string>

#include "common/status.h"
#include "stress/measure/latency_histogram.h"
#include "stress/report/report.h"

namespace lather {

// Adds to the document that ReportJson() built: latency.histogram and service_time.histogram, the
// counters, the figures the verdict was judged on, the verdict's remaining fields, the per-second series,
// the run's context (times, name, what a merge was made of) and the machine (from report.context, or
// this machine's when it was not filled).
void AddRunDetail(const RunReport& report, Poco::JSON::Object* root);

// The sparse JSON form of a histogram, and back. HistogramFromJson returns InvalidArgument saying what
// does not add up.
Poco::JSON::Object HistogramJson(const LatencyHistogram& histogram);
Status HistogramFromJson(const Poco::JSON::Object& json, LatencyHistogram* histogram);

// Rebuilds the run that `text` (a --json document of schema lather-stress/2) describes. InvalidArgument
// names the first field that is missing or wrong, or says the schema is another one.
Status ParseRunJson(const std::string& text, RunReport* report);

// Reads and parses the file at `path`; the run's context.name becomes the file's name without its
// folder and ".json" when the document has none. IOError when unreadable; messages start with the path.
Status ReadRunFile(const std::string& path, RunReport* report);

}  // namespace lather
