#pragma once
// The embedded Redis Cluster of one strategy run (docs/cluster.md): built from the scenario's
// "redis.cluster", the Redis faults applied per node, and its figures for the report.
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/simulator.h"
#include "redis/cluster.h"
#include "scenario/model.h"

namespace rlsim {

// A cluster of scenario.redis.cluster_nodes masters with embedded stores (a MockStore each), or
// null when the scenario has one plain server. Throws RunError (exit_code::kBadInput) when the
// scenario also names a real Redis (--redis): one real server cannot stand in for a cluster.
std::unique_ptr<RedisCluster> make_embedded_cluster(const Scenario& scenario, Simulator& sim,
                                                    const RedisTiming& timing, std::uint64_t seed);

// Whether a Redis fault hits cluster node `node`: the nodes its `nodes` lists, or every node.
bool fault_hits_node(const FaultSpec& fault, int node);

// Sets each node's conditions from the active faults that hit it (fault_hits_node).
void apply_to_cluster(const std::vector<const FaultSpec*>& active, RedisCluster& cluster);

// Adds "redis_cluster" (nodes, slot ranges, CROSSSLOT errors, the hottest node and the ops
// imbalance) and "redis_nodes" (one node_report_json per node, with its slots) to `out`.
void add_cluster_report(const RedisCluster& cluster, int pool_size, TimeUs end_us,
                        nlohmann::ordered_json& out);

}  // namespace rlsim
