#pragma once
// Fault injection over a run's deployment (docs/faults.md): what each fault type does while it is
// active, one row per type, and the FaultInjector that sets the Redis nodes' conditions and slow
// periods, cuts instances off and crashes them. The scenario's row of a type (scenario/faults.cpp)
// says how it is read; its row here how it acts. What a run measures around faults (the windows,
// the report) is the app's (engine/faults.h).
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "redis/cluster.h"
#include "redis/server.h"
#include "scenario/model.h"
#include "world/deployment.h"
#include "world/instances.h"

namespace rlsim {

// What one fault type does while active.
struct FaultEffectRow {
  FaultType type;
  // Adds an active fault to the conditions of a Redis node it hits; overlapping faults compose
  // in list order (docs/faults.md#overlapping-faults). Null: the type sets no node condition.
  void (*compose)(const FaultSpec& fault, RedisConditions& conditions);
  // Slows the service of the nodes it hits (redis_slow): a schedule set once (slow_periods),
  // since a call's service, computed as it joins the queue, may outlast the fault.
  bool slows_service;
  // Cuts listed instances off from every node (partition with a list of instances).
  bool cuts_instances_off;
  // Stops instances at its start and, with restart_after, starts as many at its end.
  bool crashes_instances;
  // Empties the nodes it hits at its start: their keys and scripts are gone (redis_restart).
  bool loses_data;
  // Cuts the links between the instances it lists and the others (peer_partition): the
  // deployment's PeerLinks.
  bool cuts_peer_links;
  // Promotes the replica of the nodes it hits at its start, losing the writes not yet replicated
  // (redis_failover; the nodes' stores are ReplicatedStores, engine/run.cpp).
  bool fails_over;
};

// The row of `type`. Clock faults have rows that do nothing here: clocks are functions of time
// (world/clock.h).
const FaultEffectRow& fault_effect(FaultType type);

// How active faults combine: the server is down if any redis_down (or partition of all
// instances) is active, black hole winning over refuse; latency multipliers multiply and added
// latency and jitter add.
RedisConditions compose_conditions(const std::vector<const FaultSpec*>& active);
// The same for the Redis of region `region`: only the Redis faults that hit it (its own, by
// `region`, or every region's) and partitions of all instances count.
RedisConditions compose_conditions(const std::vector<const FaultSpec*>& active,
                                   std::int32_t region);

// Whether a Redis fault hits cluster node `node`: the nodes its `nodes` lists, or every node.
bool fault_hits_node(const FaultSpec& fault, int node);

// The replication lag of the redis_failover that hits Redis node `node` (0 without a cluster), or
// nullopt when none does: that node's store is then a primary with a replica
// (redis/replicated_store.h).
std::optional<DurationUs> failover_replication_lag(const Scenario& scenario, int node);

// The stretches in which one Redis server runs slower: the slowing faults of `faults` that
// `hits` says reach it, their multipliers multiplied where they overlap (multiplier 1: none).
std::vector<SlowPeriod> slow_periods(const std::vector<FaultSpec>& faults,
                                     const std::function<bool(const FaultSpec&)>& hits);

// Applies the scenario's faults to one run's deployment and instances. Redis faults hit each
// region's Redis (by `region`) and, with a cluster (docs/cluster.md), its nodes (all, or those a
// fault's `nodes` lists); partitions cut instances off from every node, peer partitions cut the
// links between instances.
class FaultInjector {
 public:
  // Everything referenced outlives the injector. `observer` is told of crashed and restarted
  // instances (the strategy: it drops or creates their local state).
  FaultInjector(const Scenario& scenario, Deployment& deployment, InstancePool& pool,
                InstanceObserver& observer);

  // Sets every node's pool size and slow periods. Call once, before the first call to Redis.
  void prepare();
  // Fault `index` of the scenario starts or ends at `now_us`. Returns whether the active
  // instance count changed (a crash or a restart).
  bool begin(std::size_t index);
  bool end(std::size_t index, TimeUs now_us);

  // True when instance `id` crashed: a request still in flight on it failed.
  bool crashed(std::uint32_t id) const { return id < crashed_.size() && crashed_[id]; }
  // What fault `index` (a redis_failover that started) lost, summed over the nodes it hit;
  // nullopt for other faults and before the start.
  const std::optional<FailoverLoss>& failover_loss(std::size_t index) const {
    return failover_losses_[index];
  }

 private:
  void apply();  // sets the nodes' conditions and the partitions from the active faults
  bool crash(const FaultSpec& fault, std::size_t index);
  void lose_data(const FaultSpec& fault);  // empties the Redis nodes `fault` hits
  void fail_over(const FaultSpec& fault, std::size_t index);  // promotes their replicas
  bool restart(std::size_t index, TimeUs now_us);

  const Scenario& scenario_;
  RedisServer& server_;                // the deployment's front
  RedisCluster* cluster_;              // the deployment's cluster, or null
  PeerLinks& peer_links_;              // the deployment's instance-to-instance links
  std::vector<RedisServer*> servers_;  // by region; {&server_} without regions
  InstancePool& pool_;
  InstanceObserver& observer_;
  std::vector<bool> active_;            // per fault
  std::vector<int> stopped_;            // per fault: instances a crash stopped
  std::vector<bool> crashed_;           // per instance id
  std::vector<std::uint32_t> cut_off_;  // instance ids any partition ever listed
  std::vector<std::optional<FailoverLoss>> failover_losses_;  // per fault
};

}  // namespace rlsim
