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

// The scenario's faults: the `faults` list (Redis, instance and clock faults) followed by the
// deprecated `clock_faults` list (either may be null), regions resolved and checked (call after
// the regions are read), and the clock faults copied, in time order, into the instances' clock
// spec. Throws ScenarioError.
void read_scenario_faults(const nlohmann::json* faults, const nlohmann::json* clock_faults,
                          const std::string& file, Scenario& scenario);

// "redis_down, redis_latency, ...": every fault type, for messages and docs.
std::string fault_type_names();

}  // namespace rlsim
