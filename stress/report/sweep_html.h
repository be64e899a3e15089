// The HTML page of `lather-stress sweep`: the steps' table, calls/s against the load with the USL fit
// (closed model), p99 against the load, client and server CPU and the link's share each way against the
// load, the knee, the highest rate meeting the SLO, and each step's verdict. Builds the HtmlDocument model
// (html_report.h renders it). Pure functions; thread-safe.
#pragma once

#include <string>

#include "common/status.h"
#include "stress/report/html_report.h"
#include "stress/report/sweep_report.h"

namespace lather {

HtmlDocument SweepDocument(const SweepResult& result);
Status WriteSweepHtml(const SweepResult& result, const std::string& path);

}  // namespace lather
