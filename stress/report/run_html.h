// RunHtml: the HTML report of one saved or finished run, or of several side by side (`--html`, `report`,
// `merge`): calls/s and p99 per second, client and server CPU per second, the latency percentile spectrum
// (HdrHistogram's plot), the verdict with its evidence (each resource's share and ceiling), the settings and
// the machine; several runs get overlaid spectra and series and a bar chart of their calls/s. Builds the
// HtmlDocument model only (html_report.h renders it). Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "stress/report/html_report.h"
#include "stress/report/report.h"

namespace lather {

// The page's model for `runs` (one or more; each named by its context.name, or "run N").
HtmlDocument RunsDocument(const std::vector<RunReport>& runs);

// Renders RunsDocument(runs) into `path`.
Status WriteRunsHtml(const std::vector<RunReport>& runs, const std::string& path);

// The spectrum chart's points for a histogram: (percentile, ms) at HdrHistogram's steps, without the 100%.
ChartSeries SpectrumSeries(const std::string& name, const LatencyHistogram& histogram);

}  // namespace lather
