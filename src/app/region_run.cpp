#include "app/region_run.h"

#include "report/rounding.h"

namespace rlsim {

namespace {

RedisTiming timing_of(const RedisSpec& spec) {
  return RedisTiming{spec.rtt.p50_us, spec.rtt.p99_us, spec.service_time_us, spec.timeout_us};
}

}  // namespace

RegionRun::RegionRun(const Scenario& scenario, Algorithm algorithm,
                     const std::vector<BucketShape>& buckets, Simulator& sim, RedisServer& home,
                     std::uint64_t seed)
    : scenario_(scenario) {
  const RegionsSpec& regions = scenario.regions;
  if (!regions.enabled()) return;
  for (std::uint32_t r = 0; r < regions.list.size(); ++r) {
    oracles_.emplace_back(scenario.limits, algorithm, buckets);
    if (r == regions.home) {
      world_.redis.push_back(&home);
      continue;
    }
    stores_.emplace_back();
    // Each region's network has its own stream; the home region keeps the run's.
    servers_.emplace_back(sim, stores_.back(), timing_of(scenario.redis), Rng(seed, "network", r));
    world_.redis.push_back(&servers_.back());
  }
  world_.home = regions.home;
  // The round trip between regions, added to every call from an instance to another region's
  // Redis (and rtt[r][r], normally 0, inside a region).
  const auto& instance_regions = scenario.instances.regions;
  for (std::uint32_t id = 0; id < instance_regions.size(); ++id) {
    for (std::uint32_t r = 0; r < world_.redis.size(); ++r)
      world_.redis[r]->set_client_added_rtt(id, regions.rtt[instance_regions[id]][r]);
  }
}

void RegionRun::attach(Strategy& strategy) const {
  if (enabled()) strategy.attach_regions(world_);
}

void RegionRun::set_current_client(ClientId client) {
  for (RedisServer* server : world_.redis) server->set_current_client(client);
}

bool RegionRun::ideal_admits(const Request& request) {
  return enabled() && oracles_[request.region].ideal_admits(request);
}

void RegionRun::on_decision(const Request& request, const Outcome& outcome, bool ideal_admitted,
                            TimeUs decided_us) {
  if (!enabled()) return;
  oracles_[request.region].on_decision(request, outcome, ideal_admitted, decided_us,
                                       scenario_.regions.list[request.region].instances);
}

std::size_t RegionRun::in_flight() const {
  std::size_t total = 0;
  for (const RedisServer& server : servers_) total += server.in_flight();
  return total;
}

void RegionRun::add_redis_counts(std::uint64_t& commands, std::uint64_t& round_trips,
                                 std::uint64_t& timeouts, std::size_t& keys) const {
  for (const RedisServer& server : servers_) {
    commands += server.stats().commands;
    round_trips += server.stats().round_trips;
    timeouts += server.stats().timeouts;
  }
  for (const MockStore& store : stores_) keys += store.key_count();
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
