#pragma once
// The embedded Redis Cluster of one strategy run (docs/cluster.md), built from the scenario's
// "redis.cluster", and the figures of each Redis node (a cluster's or the one server's) for the
// report (the Redis faults per node are in world/fault_injection.h).
#include <memory>
#include <vector>

#include "core/simulator.h"
#include "redis/cluster.h"
#include "redis/node_stats.h"
#include "redis/server.h"
#include "scenario/model.h"
#include "world/results.h"

namespace rlsim {

// A cluster of scenario.redis.cluster_nodes masters with embedded stores (a MockStore each), or
// null when the scenario has one plain server. Throws RunError (kBadInput) when the
// scenario also names a real Redis (--redis): one real server cannot stand in for a cluster.
std::unique_ptr<RedisCluster> make_embedded_cluster(const Scenario& scenario, Simulator& sim,
                                                    const RedisTiming& timing, std::uint64_t seed);

// One Redis node's figures ("redis_node", and each entry of "redis_nodes"): its counters,
// commandstats, hot keys, utilization, queue and series, over a run ending at `end_us`.
NodeResult node_result(const RedisStats& stats, const NodeStats& node, int pool_size,
                       TimeUs end_us);

// Sets the cluster's balance (CROSSSLOT errors, the hottest node, the ops imbalance) and one
// node_result per node, with its slots and CROSSSLOT errors, in `out`.
void add_cluster_result(const RedisCluster& cluster, int pool_size, TimeUs end_us,
                        RedisSideResult& out);

}  // namespace rlsim
