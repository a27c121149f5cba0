#pragma once
// Every Redis node of one strategy run, and which node serves what (docs/architecture.md): the
// run's server (the front every strategy call is made on), the cluster behind it when the scenario
// has one (embedded or real; the front then only routes), and with regions one server per other
// region (the home region's is the front). Strategies reach it through StrategyEnv, faults act on
// its nodes, the report sums its statistics. It also holds the links between the app instances
// (world/peer_links.h), which peer_partition faults cut.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "core/simulator.h"
#include "redis/cluster.h"
#include "redis/mock_store.h"
#include "redis/server.h"
#include "scenario/model.h"
#include "world/peer_links.h"

namespace rlsim {

// The timing model of the scenario's Redis (every node of a run has it).
RedisTiming redis_timing(const RedisSpec& spec);

// The counters of every node of a run added up.
struct DeploymentTotals {
  std::uint64_t commands = 0;
  std::uint64_t round_trips = 0;
  std::uint64_t timeouts = 0;
  std::size_t keys = 0;  // keys held at the end, over every store
};

class Deployment {
 public:
  // Builds the cluster behind the front from the front's store (null: no cluster).
  using ClusterFactory = std::function<std::unique_ptr<RedisCluster>(DataStore& store)>;

  // `store` is the front's data store (the embedded Redis or a real one); `make_cluster` is called
  // once. Each other region gets an embedded store and its own network stream; every client's
  // calls to another region's Redis get the round trip between the regions added.
  Deployment(const Scenario& scenario, Simulator& sim, std::unique_ptr<DataStore> store,
             const ClusterFactory& make_cluster, std::uint64_t seed);
  Deployment(const Deployment&) = delete;
  Deployment& operator=(const Deployment&) = delete;

  // The server every strategy call is made on (with a cluster it routes to the nodes).
  RedisServer& front() { return server_; }
  const RedisServer& front() const { return server_; }
  const DataStore& store() const { return *store_; }
  // The cluster behind the front, or null.
  RedisCluster* cluster() { return cluster_.get(); }
  const RedisCluster* cluster() const { return cluster_.get(); }

  // Regions (docs/regions.md): 1 without regions, whose Redis is the front.
  std::size_t region_count() const { return regions_.size(); }
  std::uint32_t home_region() const { return home_; }
  // The Redis an instance of region `region` reaches without crossing regions.
  RedisServer& region_server(std::uint32_t region) const { return *regions_[region]; }
  // Each region's Redis by region index; empty without regions.
  std::vector<RedisServer*> region_servers() const;

  // The node that holds `key`: a cluster node, or the front.
  RedisServer& node_of_key(std::string_view key);
  // Every node that serves calls, for faults and per-node figures: each region's server (the
  // front alone without regions), then each cluster node.
  std::vector<RedisServer*> nodes();

  // The calls made from now on are made on client `client`'s connections, on every server.
  void set_current_client(ClientId client);
  // The instance-to-instance links (peer_partition faults).
  PeerLinks& peer_links() { return peer_links_; }
  const PeerLinks& peer_links() const { return peer_links_; }

  // Calls not answered yet, over every server and the cluster.
  std::size_t in_flight() const;
  DeploymentTotals totals() const;

 private:
  std::unique_ptr<DataStore> store_;
  RedisServer server_;
  std::unique_ptr<RedisCluster> cluster_;
  std::deque<MockStore> region_stores_;  // deques: servers refer to their stores
  std::deque<RedisServer> region_own_;   // the other regions' servers
  std::vector<RedisServer*> regions_;    // by region index; {&server_} without regions
  std::uint32_t home_ = 0;
  bool has_regions_ = false;
  PeerLinks peer_links_;
};

}  // namespace rlsim
