#pragma once
// The scenario's fault schedule applied to one strategy run (docs/faults.md), and what the run
// measures around it: each fault starts and ends as simulator events that set conditions on the
// Redis server, partition instances or crash them; the oracle's counts are snapshotted at each
// fault's start, end and one window after, for the report's "faults" list, together with the
// per-node Redis figures ("redis_node") and the resilience policy's ("resilience").
#include <functional>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "core/simulator.h"
#include "oracle/oracle.h"
#include "redis/cluster.h"
#include "redis/server.h"
#include "scenario/model.h"
#include "strategy/strategy.h"
#include "world/deployment.h"
#include "world/instances.h"
#include "world/results.h"

namespace rlsim {

class ResilientStrategy;

// How active faults combine (docs/faults.md#overlapping-faults): the server is down if any
// redis_down (or partition of all instances) is active, black hole winning over refuse; latency
// multipliers multiply and added latency and jitter add; an instance is cut off if any active
// partition lists it. redis_slow is not a condition but a schedule: slow_periods().
RedisConditions compose_conditions(const std::vector<const FaultSpec*>& active);
// The same for the Redis of region `region`: only the Redis faults that hit it (its own, by
// `region`, or every region's) and partitions of all instances count.
RedisConditions compose_conditions(const std::vector<const FaultSpec*>& active,
                                   std::int32_t region);

// Whether a Redis fault hits cluster node `node`: the nodes its `nodes` lists, or every node.
bool fault_hits_node(const FaultSpec& fault, int node);

// Sets each node's conditions from the active faults that hit it (fault_hits_node).
void apply_to_cluster(const std::vector<const FaultSpec*>& active, RedisCluster& cluster);

// The stretches in which one Redis server runs slower: the redis_slow faults of `faults` that
// `hits` says reach it, their multipliers multiplied where they overlap (multiplier 1: none).
std::vector<SlowPeriod> slow_periods(const std::vector<FaultSpec>& faults,
                                     const std::function<bool(const FaultSpec&)>& hits);

class FaultSchedule final : public EventTarget, public DecisionObserver {
 public:
  // Everything referenced outlives the schedule. `instance_counts` receives the active instance
  // count after each crash or restart. Redis faults hit each region's Redis (by `region`) and,
  // with a cluster (docs/cluster.md), its nodes (all, or those a fault's `nodes` lists);
  // partitions cut instances off from every node.
  FaultSchedule(const Scenario& scenario, Simulator& sim, Deployment& deployment,
                InstancePool& pool, Strategy& strategy, const Oracle& oracle,
                std::vector<std::pair<TimeUs, int>>& instance_counts);

  // Sets the pool size and schedules every fault's start and end. Call once, at time 0, after
  // the initial instances started.
  void start();

  // A decision the oracle (earlier in the run's observer list) counted: timeouts waited, fallback
  // decisions per bucket, the last excess after each fault.
  void on_decided(const DecidedRequest& decided) override;
  // True when `instance` crashed: a request still in flight on it failed.
  bool crashed(const Instance& instance) const {
    return instance.id < crashed_.size() && crashed_[instance.id];
  }

  // The Redis side of the run (the node or the cluster's nodes, the error policy, the fault
  // windows); `end_us` is the end of the run.
  RedisSideResult report(TimeUs end_us) const;

  void on_event(std::uint64_t arg) override;

 private:
  // What the oracle and the run had counted at one moment.
  struct Snapshot {
    std::int64_t offered = 0, allowed = 0, denied = 0, errors = 0, excess = 0, false_denials = 0,
                 waited_full_timeout = 0, fallback_decisions = 0;
  };
  enum Phase : std::uint64_t { kBegin = 0, kEnd = 1, kAfter = 2 };
  struct Window {
    Snapshot at_begin, at_end, at_after;
    bool ended = false, after_taken = false;
    TimeUs last_excess_us = -1;  // the last admission beyond the limit after the end
  };

  Snapshot snapshot() const;
  void apply();  // sets the server's conditions and partitions from the active faults
  void crash(const FaultSpec& fault, std::size_t index);
  void restart(std::size_t index);

  const Scenario& scenario_;
  Simulator& sim_;
  RedisServer& server_;                // the deployment's front
  RedisCluster* cluster_;              // the deployment's cluster, or null
  std::vector<RedisServer*> servers_;  // by region; {&server_} without regions
  InstancePool& pool_;
  Strategy& strategy_;
  const Oracle& oracle_;
  std::vector<std::pair<TimeUs, int>>& instance_counts_;
  std::vector<bool> active_;             // per fault
  std::vector<Window> windows_;          // per fault
  std::vector<int> stopped_;             // per fault: instances an instance_crash stopped
  std::vector<bool> crashed_;            // per instance id
  std::vector<std::uint32_t> cut_off_;   // instance ids any partition ever listed
  std::vector<std::size_t> recovering_;  // ended faults whose recovery is still measured
  std::int64_t excess_seen_ = 0;
  std::int64_t waited_full_timeout_ = 0;
  // Decisions the on_error policy made instead of Redis, per bucket of the Redis node's ops/s
  // series (for the report's fallback chart); null when the strategy has no policy.
  const ResilientStrategy* resilient_ = nullptr;
  std::int64_t fallback_seen_ = 0;
  std::vector<std::int64_t> fallback_per_bucket_;
};

}  // namespace rlsim
