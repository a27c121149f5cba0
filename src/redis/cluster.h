#pragma once
// A Redis Cluster behind the one RedisServer a strategy talks to (docs/cluster.md).
//
// CONTRACT (stable: the real-cluster backend reuses it; names here are not renamed):
//  - ClusterLayout: the node count and the slot -> node owner table (kClusterSlots entries, node
//    indexes 0..nodes-1). ClusterLayout::even(K) splits the slots as `redis-cli --cluster create`
//    does (3 nodes: 0-5460, 5461-10922, 10923-16383).
//  - NodeStoreFactory: the DataStore of node i. The embedded cluster returns a fresh MockStore per
//    node; a real cluster may return the same shared store for every node (one client that routes
//    internally): RedisCluster never assumes the stores are distinct (key_count() counts each
//    distinct store once).
//  - RedisCluster owns one RedisServer per node (its own timing model, FIFO queue, fault
//    conditions, connection pool per client, NodeStats) built on that node's store, and routes
//    every call made on the `front` server given to attach(): strategies keep calling
//    `RedisServer::call` / `pipeline` unchanged.
//  - Routing, per command, as a cluster client splits a pipeline per node:
//      * a command whose keys hash to one slot goes to the slot's owner;
//      * a command whose keys span slots goes to the owner of its first key's slot; an embedded
//        node answers "CROSSSLOT Keys in request don't hash to the same slot" without executing
//        (a real node answers it itself). Counted in crossslot_errors() either way;
//      * SCRIPT (LOAD / EXISTS / FLUSH) goes to every node, as cluster clients broadcast script
//        loading; the reply is the first node's (node 0);
//      * any other key-less command (TIME, PING, EVALSHA with no keys) goes to the owner of slot
//        0 (node 0 with even()).
//    Each node gets one round trip with its commands in call order; the call's replies (in the
//    original order) are delivered when the slowest node has answered or timed out.
//  - The client (instance) of a call is the front server's current client; it is set on each
//    node, so pools and partitions apply per node and per client.
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "core/simulator.h"
#include "redis/cluster_slots.h"
#include "redis/server.h"
#include "redis/store.h"

namespace rlsim {

struct ClusterLayout {
  static constexpr int kMaxNodes = 64;

  int nodes = 0;
  std::vector<std::uint16_t> slot_owner;  // kClusterSlots entries: the node serving each slot

  // K masters, slots split as redis-cli --cluster create: node i ends at
  // round((i + 1) * 16384 / K - 1), the last at 16383 (3 nodes: 0-5460, 5461-10922, 10923-16383).
  static ClusterLayout even(int nodes);
  // The contiguous slot ranges (first, last) node `node` serves, in slot order.
  std::vector<std::pair<int, int>> ranges_of(int node) const;
};

using NodeStoreFactory = std::function<std::shared_ptr<DataStore>(int node)>;

class RedisCluster final : public CallRouter {
 public:
  static constexpr const char* kCrossSlotError =
      "CROSSSLOT Keys in request don't hash to the same slot";

  // Node i's network stream is Rng(seed, "network", i). REQUIRES: layout valid (1..kMaxNodes
  // nodes, every slot owned by one of them).
  RedisCluster(Simulator& sim, ClusterLayout layout, const NodeStoreFactory& make_store,
               const RedisTiming& timing, std::uint64_t seed);
  ~RedisCluster() override;

  // Routes every call made on `front` from now on (front's own store and timing are unused).
  void attach(RedisServer& front) {
    front_ = &front;
    front.set_router(this);
  }

  int node_count() const { return layout_.nodes; }
  const ClusterLayout& layout() const { return layout_; }
  RedisServer& node(int index) { return *nodes_[static_cast<std::size_t>(index)].server; }
  const RedisServer& node(int index) const {
    return *nodes_[static_cast<std::size_t>(index)].server;
  }
  int node_of_slot(int slot) const { return layout_.slot_owner[static_cast<std::size_t>(slot)]; }
  int node_of_key(std::string_view key) const { return node_of_slot(key_hash_slot(key)); }

  // Commands whose keys span slots (all nodes; per node: the node that was sent them).
  std::uint64_t crossslot_errors() const { return crossslot_total_; }
  std::uint64_t crossslot_errors(int node) const {
    return nodes_[static_cast<std::size_t>(node)].crossslot;
  }
  // Every node's counters added up (max_* fields: the largest).
  RedisStats total_stats() const;
  // Live keys over the distinct stores.
  std::size_t key_count() const;
  // Calls in flight at the front (each waits for its nodes).
  std::size_t in_flight() const { return joins_.size() - free_joins_.size(); }

  void route(RedisCallBase& call, std::coroutine_handle<> waiting, ClientId client) override;

 private:
  struct Node {
    std::shared_ptr<DataStore> store;    // from the factory (maybe shared between nodes)
    std::unique_ptr<DataStore> checked;  // the CROSSSLOT check in front of an embedded store
    std::unique_ptr<RedisServer> server;
    std::uint64_t crossslot = 0;
  };
  // One routed call waiting for its nodes.
  struct Join {
    RedisCluster* cluster = nullptr;
    RedisCallBase* call = nullptr;
    std::coroutine_handle<> waiting;
    ClientId client = 0;
    int pending = 0;
    // Per command of the call: (leg, position in the leg) whose reply it gets.
    std::vector<std::pair<int, int>> source;
    std::vector<std::vector<Reply>> leg_replies;  // by leg
  };
  static void leg_done(void* context, int&& leg);
  void finish(Join& join);

  ClusterLayout layout_;
  RedisServer* front_ = nullptr;
  std::vector<Node> nodes_;
  std::uint64_t crossslot_total_ = 0;
  std::vector<std::unique_ptr<Join>> joins_;
  std::vector<Join*> free_joins_;
  std::vector<std::vector<Command>> scratch_legs_;  // by node, reused per call
};

}  // namespace rlsim
