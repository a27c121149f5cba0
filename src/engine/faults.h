#pragma once
// The scenario's fault schedule on one strategy run (docs/faults.md), and what the run measures
// around it: each fault starts and ends as a simulator event handed to the FaultInjector
// (world/fault_injection.h: what each fault type does to the nodes and instances); the oracle's
// counts are snapshotted at each fault's start, end and one window after, for the report's
// "faults" list, together with the per-node Redis figures and the resilience policy's.
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/simulator.h"
#include "oracle/oracle.h"
#include "redis/cluster.h"
#include "redis/server.h"
#include "scenario/model.h"
#include "strategy/strategy.h"
#include "world/deployment.h"
#include "world/fault_injection.h"
#include "world/instances.h"
#include "world/results.h"

namespace rlsim {

class ResilientStrategy;

// The store of a run's front Redis node: a ReplicatedStore (redis/replicated_store.h) when a
// redis_failover hits the single embedded node, the installed store source's otherwise. Throws
// RunError (kBadInput) for a redis_failover on a real Redis (--redis): it is embedded-only.
std::unique_ptr<DataStore> make_front_store(const Scenario& scenario);

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
  bool crashed(const Instance& instance) const { return injector_.crashed(instance.id); }

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

  const Scenario& scenario_;
  Simulator& sim_;
  RedisServer& server_;    // the deployment's front
  RedisCluster* cluster_;  // the deployment's cluster, or null
  InstancePool& pool_;
  const Oracle& oracle_;
  std::vector<std::pair<TimeUs, int>>& instance_counts_;
  FaultInjector injector_;               // what the faults do to the nodes and instances
  std::vector<Window> windows_;          // per fault
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
