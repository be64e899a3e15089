// The HTML page of `lather-stress compare`: the table of the text report, bars of each target's median
// calls/s and p99 with their ranges over the rounds, the latency spectra of each target's median round
// overlaid, and each target's verdict. Builds the HtmlDocument model (html_report.h renders it). Pure
// functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "stress/report/compare_report.h"
#include "stress/report/html_report.h"

namespace lather {

HtmlDocument CompareDocument(const std::vector<CompareTarget>& targets, int rounds);
Status WriteCompareHtml(const std::vector<CompareTarget>& targets, int rounds, const std::string& path);

}  // namespace lather
