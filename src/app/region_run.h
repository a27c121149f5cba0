#pragma once
// The multi-region accounting of one strategy run (docs/regions.md): an oracle per region next to
// the run's global one (each region's Redis is in the run's Deployment). Inactive (every call a
// no-op) when the scenario declares no regions.
#include <deque>
#include <nlohmann/json.hpp>
#include <vector>

#include "oracle/oracle.h"
#include "scenario/model.h"

namespace rlsim {

class RegionRun {
 public:
  RegionRun(const Scenario& scenario, Algorithm algorithm, const std::vector<BucketShape>& buckets);

  bool enabled() const { return !oracles_.empty(); }
  // The region's ideal limiter on a request that reached `request.region` (call in arrival order).
  bool ideal_admits(const Request& request);
  void on_decision(const Request& request, const Outcome& outcome, bool ideal_admitted,
                   TimeUs decided_us);
  // regions[]: per region its name, instances, the region's oracle totals and latency; null
  // without regions.
  nlohmann::ordered_json report() const;

 private:
  const Scenario& scenario_;
  std::deque<Oracle> oracles_;  // by region
};

}  // namespace rlsim
