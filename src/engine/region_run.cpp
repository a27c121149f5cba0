#include "engine/region_run.h"

#include "report/rounding.h"

namespace rlsim {

RegionRun::RegionRun(const Scenario& scenario, Algorithm algorithm,
                     const std::vector<BucketShape>& buckets)
    : scenario_(scenario) {
  if (!scenario.regions.enabled()) return;
  for (std::size_t r = 0; r < scenario.regions.list.size(); ++r)
    oracles_.emplace_back(scenario.limits, algorithm, buckets);
}

bool RegionRun::on_arrival(const Request& request) {
  return enabled() && oracles_[request.region].ideal_admits(request);
}

void RegionRun::on_decided(const DecidedRequest& decided) {
  if (!enabled()) return;
  const std::uint32_t region = decided.request.region;
  oracles_[region].on_decision(decided.request, decided.outcome, decided.arrival_mark,
                               decided.decided_us, scenario_.regions.list[region].instances);
}

std::optional<std::vector<RegionResult>> RegionRun::report() const {
  if (!enabled()) return std::nullopt;
  std::vector<RegionResult> out;
  for (std::size_t r = 0; r < oracles_.size(); ++r) {
    const OracleTotals& totals = oracles_[r].totals();
    RegionResult& region = out.emplace_back();
    region.name = scenario_.regions.list[r].name;
    region.instances = scenario_.regions.list[r].instances;
    region.home = r == scenario_.regions.home;
    region.offered = totals.offered;
    region.allowed = totals.allowed;
    region.denied = totals.denied;
    region.errors = totals.errors;
    double overshoot = 0;
    for (const LimitMetrics& limit : totals.limits) {
      overshoot = std::max(overshoot, limit.overshoot);
      region.excess = std::max(region.excess, limit.excess);
    }
    region.overshoot = round4(overshoot);
    region.latency_us = {totals.latency_us.quantile(0.5), totals.latency_us.quantile(0.99),
                         totals.latency_us.max()};
    // The region's own per-window view of the first limit, for the report's per-region chart.
    region.window_s = static_cast<double>(scenario_.limits.front().window_us) / kUsPerS;
    for (const SeriesPoint& point : totals.series)
      region.windows.push_back(
          {static_cast<double>(point.start_us) / kUsPerS, point.admitted, point.max_per_key});
  }
  return out;
}

}  // namespace rlsim
