#pragma once
// The clock parts of a scenario file (docs/clocks.md): `instances.clock.ntp`,
// `instances.clock.attribution_threshold` and the top-level `clock_faults` list. Kept apart from
// load.cpp, which calls these. Throw ScenarioError like the rest of the loader.
#include <nlohmann/json.hpp>
#include <string>

#include "scenario/model.h"

namespace rlsim {

// `ntp` and `threshold` are the fields of instances.clock (null when absent).
void read_clock_settings(const nlohmann::json* ntp, const nlohmann::json* threshold,
                         const std::string& file, ClockSpec& spec);

// The top-level `clock_faults` list (null when absent), appended to spec.faults in time order.
void read_clock_faults(const nlohmann::json* faults, const std::string& file,
                       DurationUs duration_us, ClockSpec& spec);

}  // namespace rlsim
