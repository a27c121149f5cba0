#pragma once
// Report renderers: the JSON report (a stable contract: later versions add fields, never rename)
// and the human-readable table. Pure functions of the results; same input, same bytes.
#include <nlohmann/json.hpp>
#include <string>

#include "report/results.h"

namespace rlsim {

nlohmann::ordered_json report_json(const RunResult& result);

// The table printed by `rlsim run`; ANSI colour only when `color`.
std::string report_table(const RunResult& result, bool color);

}  // namespace rlsim
