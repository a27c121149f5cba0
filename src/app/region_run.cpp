#include "app/region_run.h"

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

nlohmann::ordered_json RegionRun::report() const {
  if (!enabled()) return nullptr;
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (std::size_t r = 0; r < oracles_.size(); ++r) {
    const OracleTotals& totals = oracles_[r].totals();
    double overshoot = 0;
    std::int64_t excess = 0;
    for (const LimitMetrics& limit : totals.limits) {
      overshoot = std::max(overshoot, limit.overshoot);
      excess = std::max(excess, limit.excess);
    }
    // The region's own per-window view of the first limit, for the report's per-region chart.
    nlohmann::ordered_json windows = nlohmann::ordered_json::array();
    for (const SeriesPoint& point : totals.series)
      windows.push_back({{"start_s", static_cast<double>(point.start_us) / kUsPerS},
                         {"admitted", point.admitted},
                         {"max_per_key", point.max_per_key}});
    out.push_back(
        {{"name", scenario_.regions.list[r].name},
         {"instances", scenario_.regions.list[r].instances},
         {"home", r == scenario_.regions.home},
         {"offered", totals.offered},
         {"allowed", totals.allowed},
         {"denied", totals.denied},
         {"errors", totals.errors},
         {"overshoot", round4(overshoot)},
         {"excess", excess},
         {"latency_us",
          {{"p50", totals.latency_us.quantile(0.5)},
           {"p99", totals.latency_us.quantile(0.99)},
           {"max", totals.latency_us.max()}}},
         {"series",
          {{"window_s", static_cast<double>(scenario_.limits.front().window_us) / kUsPerS},
           {"windows", windows}}}});
  }
  return out;
}

}  // namespace rlsim
