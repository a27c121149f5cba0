#pragma once
// The multi-region parts of a scenario file (docs/regions.md): the top-level `regions` object and
// each traffic group's `region` and `roaming`. Kept apart from load.cpp, which calls these.
#include <nlohmann/json.hpp>
#include <string>

#include "scenario/model.h"

namespace rlsim {

// A traffic group's `region` (a name, resolved by read_regions) and `roaming` (a share from 0 to
// 1); null when absent.
void read_traffic_region(const nlohmann::json* region, const nlohmann::json* roaming,
                         const std::string& group_path, const std::string& file,
                         TrafficGroup& group);

// The top-level `regions` (null when absent). Call after instances and traffic are read: checks
// that the regions' instances add up to instances.count, gives every instance its region and
// resolves each group's region name.
void read_regions(const nlohmann::json* regions, const std::string& file, Scenario& scenario);

}  // namespace rlsim
