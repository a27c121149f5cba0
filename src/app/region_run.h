#pragma once
// The multi-region part of one strategy run (docs/regions.md): a Redis (store and timing model)
// per region besides the home region's, which is the run's own server; the round trip between
// regions added to every cross-region client; and an oracle per region next to the run's global
// one. Inactive (every call a no-op) when the scenario declares no regions.
#include <deque>
#include <nlohmann/json.hpp>
#include <vector>

#include "oracle/oracle.h"
#include "redis/mock_store.h"
#include "redis/server.h"
#include "strategy/strategy.h"

namespace rlsim {

class RegionRun {
 public:
  // `home` is the run's server; it becomes the home region's Redis.
  RegionRun(const Scenario& scenario, Algorithm algorithm, const std::vector<BucketShape>& buckets,
            Simulator& sim, RedisServer& home, std::uint64_t seed);

  bool enabled() const { return !oracles_.empty(); }
  // Each region's Redis by region index (the home one is the run's server); empty without regions.
  const std::vector<RedisServer*>& servers() const { return world_.redis; }
  void attach(Strategy& strategy) const;
  void set_current_client(ClientId client);
  // The region's ideal limiter on a request that reached `request.region` (call in arrival order).
  bool ideal_admits(const Request& request);
  void on_decision(const Request& request, const Outcome& outcome, bool ideal_admitted,
                   TimeUs decided_us);
  std::size_t in_flight() const;
  // Adds the other regions' Redis counters to the run's (the home server's) totals.
  void add_redis_counts(std::uint64_t& commands, std::uint64_t& round_trips,
                        std::uint64_t& timeouts, std::size_t& keys) const;
  // regions[]: per region its name, instances, the region's oracle totals and latency; null
  // without regions.
  nlohmann::ordered_json report() const;

 private:
  const Scenario& scenario_;
  std::deque<MockStore> stores_;  // deques: servers refer to their stores
  std::deque<RedisServer> servers_;
  RegionWorld world_;
  std::deque<Oracle> oracles_;  // by region
};

}  // namespace rlsim
