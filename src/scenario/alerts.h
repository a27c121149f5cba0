#pragma once
// Reading the scenario's `alerts` list (docs/scenario-format.md#alerts): alert rules over the
// run's per-interval series, evaluated per strategy run by report/alerts.h.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/model.h"

namespace rlsim {

// Validates `value` (the `alerts` array, or null when absent) for a run of `duration_us`. Throws
// ScenarioError naming the file and JSON path (alerts[i].field).
std::vector<AlertRule> read_alerts(const nlohmann::json* value, const std::string& file,
                                   DurationUs duration_us);

// "rate_check_p50_ms, rate_check_p99_ms, ...": every alert metric, for messages and docs.
std::string alert_metric_names();

}  // namespace rlsim
