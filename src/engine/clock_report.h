#pragma once
// The clock part of one strategy run (docs/clocks.md, docs/metrics.md#clock): the Redis node's
// clock model, violation attribution (how much of the excess was admitted while some active
// instance's clock was off by more than the threshold) and the per-instance clock error series.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "oracle/oracle.h"
#include "redis/cluster.h"
#include "redis/server.h"
#include "scenario/region_spec.h"
#include "world/clock.h"
#include "world/instances.h"
#include "world/results.h"

namespace rlsim {

class ClockWatch {
 public:
  static constexpr std::size_t kMaxSeriesInstances = 32;
  static constexpr std::int64_t kSeriesPoints = 100;

  ClockWatch(const ClockSpec& spec, std::size_t limit_count);

  // Gives the server the Redis node's clock when it is not exact. `this` must outlive `server`'s
  // use of it.
  void attach(RedisServer& server) const;
  // Every Redis node of a run its own clock (each node's faults, redis.clock.ntp): the run's
  // server `home` (with regions, the home region's), each node of `cluster` (may be null) and
  // each region's server (`region_servers` by region index, empty without regions).
  void attach_nodes(RedisServer& home, RedisCluster* cluster,
                    const std::vector<RedisServer*>& region_servers, const RegionsSpec& regions);
  // Call after every Oracle::on_decision: admissions the oracle just counted as excess (aligned
  // windows) or as wrongly allowed (against an exact sliding log) are attributed to the clocks
  // when some active instance's clock is off by more than the threshold at `now_us`.
  void after_decision(const OracleTotals& totals, const InstancePool& pool, TimeUs now_us);
  // The report's clock figures, or none when the scenario says nothing about clocks.
  std::optional<ClockResult> report(const InstancePool& pool, DurationUs duration_us) const;

  // The largest |clock error| over the active instances at `now_us`.
  static DurationUs max_active_error_us(const InstancePool& pool, TimeUs now_us);

 private:
  struct LimitCounts {
    std::int64_t excess = 0;
    std::int64_t excess_while_off = 0;
    std::int64_t wrongly_allowed = 0;
    std::int64_t wrongly_allowed_while_off = 0;
  };
  struct NodeClock {
    std::string name;  // "node 2" on a cluster, the region's name with regions
    ClockModel clock;
  };
  const ClockSpec& spec_;
  ClockModel redis_clock_;  // the one node's; with regions the home region's, on a cluster node 0's
  std::deque<NodeClock> nodes_;  // with regions or a cluster: every node's (a deque: servers
                                 // keep pointers)
  std::vector<LimitCounts> limits_;
  std::int64_t cached_ms_ = -1;  // the millisecond of true time cached_off_ was read at
  std::size_t cached_active_ = 0;
  bool cached_off_ = false;
};

// The clock watch as a decision observer: placed after the oracle in the run's list, it attributes
// what the oracle just counted (ClockWatch::after_decision).
class ClockAttribution final : public DecisionObserver {
 public:
  // All three outlive the observer.
  ClockAttribution(ClockWatch& watch, const Oracle& oracle, const InstancePool& pool)
      : watch_(watch), oracle_(oracle), pool_(pool) {}
  void on_decided(const DecidedRequest& decided) override {
    watch_.after_decision(oracle_.totals(), pool_, decided.decided_us);
  }

 private:
  ClockWatch& watch_;
  const Oracle& oracle_;
  const InstancePool& pool_;
};

}  // namespace rlsim
