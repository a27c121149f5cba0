#pragma once
// Multi-region scenarios (docs/regions.md): regions, each with its own instances, load balancer
// and Redis, a round-trip matrix between regions, and the region that holds the global Redis.
#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"

namespace rlsim {

struct RegionSpec {
  std::string name;
  int instances = 0;  // instance ids are given out region by region, in list order
};

struct RegionsSpec {
  std::vector<RegionSpec> list;              // empty: one region, as in every older scenario
  std::vector<std::vector<DurationUs>> rtt;  // rtt[a][b]: round trip from region a to region b
  std::uint32_t home = 0;                    // the region whose Redis is the global one
  bool enabled() const { return !list.empty(); }
};

}  // namespace rlsim
