#pragma once
// The real Redis Cluster backend as the app sees it (docs/real-redis.md#a-real-redis-cluster):
// building its store, its simulated nodes, and the hash-tagged corpus the
// conformance check runs on it.
#include <memory>
#include <string>

#include "core/simulator.h"
#include "real/real_store.h"
#include "redis/cluster.h"

namespace rlsim {

// A RealStore over the cluster at `seeds` ("host:port[,host:port...]"). Throws RunError:
// kBadInput for malformed seeds, kRedisUnavailable when no seed answers or a master is unreachable.
// `io_timeout_ms`: how long any node may take to answer (RLSIM_REDIS_IO_TIMEOUT_MS).
std::unique_ptr<RealStore> make_cluster_store(const std::string& seeds, bool keep_keys,
                                              int io_timeout_ms = 10'000);

// The simulated nodes of a real cluster run: one RedisServer per master, each with the timing of
// `redis` (as the embedded cluster's nodes), laid out by the real cluster's slot map, all sharing
// `store` (the one RealStore that routes to the real masters, through its node_view). REQUIRES:
// `store` is a cluster store (make_cluster_store) and outlives the result.
std::unique_ptr<RedisCluster> make_real_cluster_nodes(DataStore& store, Simulator& sim,
                                                      const RedisTiming& timing,
                                                      std::uint64_t seed);

// The real cluster's slot map as node indexes 0..K-1 (in the order of their first slot); a slot
// no master owns is given to node 0, whose server answers CLUSTERDOWN for it.
ClusterLayout cluster_layout(const DataStore& store);

// K when the real cluster's slot map is the even split of K nodes that the embedded cluster
// (redis.cluster.nodes) uses, as `redis-cli --cluster create` makes it; 0 otherwise.
int embedded_cluster_nodes(const DataStore& store);

// "host:port,host:port" without credentials, for printed commands.
std::string cluster_seeds_display(const std::string& seeds);

// `command` with every key K written "{tag}K": the conformance corpus uses several keys per
// command and script, which a cluster accepts only when they share a slot.
Command with_hash_tag(const Command& command, const std::string& tag);

}  // namespace rlsim
