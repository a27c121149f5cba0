#pragma once
// The HTML report: one self-contained page (inline CSS and SVG, no script, no network) showing,
// for a projector as well as a laptop, what each strategy let through against the limit and what it
// cost. Pure function of the results; same input, same bytes.
#include <string>

#include "report/results.h"
#include "report/rounding.h"
#include "report/svg_chart.h"

namespace rlsim {

// `reproduce` is the command line that reproduces the run, shown at the top of the page.
std::string report_html(const RunResult& result, const std::string& reproduce);

// The time charts of a run (shared by the HTML and Markdown reports): the most admitted for one
// key per window of the first limit, per strategy, against the limit; and the active instances.
std::vector<Chart> report_charts(const RunResult& result);

// The per-strategy charts (report/detail_charts.cpp), appended to `charts`: admissions per window
// stacked by instance, one chart per strategy; and the limiter's latency p50 and p99 per window.
// Time in units of `divisor_us` named `unit` ("minutes").
void append_detail_charts(const RunResult& result, double divisor_us, const std::string& unit,
                          std::vector<Chart>& charts);

}  // namespace rlsim

namespace rlsim {

// The Markdown report (report.md): the same summary table, and the charts as SVG files beside it
// (`chart_files[i]` is the file name of report_charts(result)[i]), so that a report renders on a
// code host.
std::string report_markdown(const RunResult& result, const std::string& reproduce,
                            const std::vector<std::string>& chart_files);

}  // namespace rlsim
