#pragma once
// The multi-region accounting of one strategy run (docs/regions.md): an oracle per region next to
// the run's global one (each region's Redis is in the run's Deployment). Inactive (every call a
// no-op) when the scenario declares no regions.
#include <deque>
#include <optional>
#include <vector>

#include "oracle/oracle.h"
#include "scenario/model.h"
#include "world/results.h"

namespace rlsim {

// A decision observer: each request is counted by its region's oracle.
class RegionRun final : public DecisionObserver {
 public:
  RegionRun(const Scenario& scenario, Algorithm algorithm, const std::vector<BucketShape>& buckets);

  bool enabled() const { return !oracles_.empty(); }
  // The region's ideal limiter on a request that reached `request.region`.
  bool on_arrival(const Request& request) override;
  void on_decided(const DecidedRequest& decided) override;
  // Per region its name, instances, the region's oracle totals, latency and windows; none
  // without regions.
  std::optional<std::vector<RegionResult>> report() const;

 private:
  const Scenario& scenario_;
  std::deque<Oracle> oracles_;  // by region
};

}  // namespace rlsim
