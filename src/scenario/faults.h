#pragma once
// Reading the scenario's `faults` list (docs/scenario-format.md#faults). Each fault type is one row
// of a table in faults.cpp (its name, whether it targets instances, and a function that reads its
// own fields), so a new type is a row and a reader.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/model.h"

namespace rlsim {

// Validates `value` (the `faults` array, or null when absent) for a run of `duration_us`. Throws
// ScenarioError naming the file and JSON path.
std::vector<FaultSpec> read_faults(const nlohmann::json* value, const std::string& file,
                                   DurationUs duration_us);

// "redis_down, redis_latency, ...": every fault type, for messages and docs.
std::string fault_type_names();

}  // namespace rlsim
