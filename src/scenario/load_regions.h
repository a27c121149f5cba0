#pragma once
// The multi-region parts of a scenario file (docs/regions.md): the top-level `regions` object and
// each traffic group's `region` and `roaming`. Kept apart from load.cpp, which calls these.
#include <nlohmann/json.hpp>
#include <string>

#include "scenario/model.h"

namespace rlsim {

class ObjectReader;

// A traffic group's `region` (a name, resolved by read_regions) and `roaming` (a share from 0 to
// 1), read by the group's reader (`group_reader`, which rejects unknown fields afterwards).
void read_traffic_region(ObjectReader& group_reader, TrafficGroup& group);

// The top-level `regions` of the file `root` reads (absent: no regions). Call after instances and
// traffic are read: checks that the regions' instances add up to instances.count, gives every
// instance its region and resolves each group's region name.
void read_regions(ObjectReader& root, Scenario& scenario);

}  // namespace rlsim
