#pragma once
// Report renderers: the JSON report (a stable contract: later versions add fields, never rename)
// and the human-readable table. Pure functions of the results; same input, same bytes.
#include <nlohmann/json.hpp>
#include <string>

#include "report/results.h"

namespace rlsim {

nlohmann::ordered_json report_json(const RunResult& result);

// The lines under the table's verdicts, in full: each strategy's own metrics and the staleness
// of the counts it read, clock attribution, regions, retrying clients, the real backend, the
// Redis side and fault windows, the shadow comparison and the alerts. report.md's "Details";
// `rlsim run` prints them cut to 120 columns.
std::string detail_notes(const RunResult& result);

// The table printed by `rlsim run`, every line at most 120 columns for labels up to 22
// characters (tests/run-width.sh); ANSI colour only when `color`.
std::string report_table(const RunResult& result, bool color);

}  // namespace rlsim
