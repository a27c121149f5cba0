#include "world/deployment.h"

namespace rlsim {

RedisTiming redis_timing(const RedisSpec& spec) {
  return RedisTiming{spec.rtt.p50_us, spec.rtt.p99_us, spec.service_time_us, spec.timeout_us};
}

Deployment::Deployment(const Scenario& scenario, Simulator& sim, std::unique_ptr<DataStore> store,
                       const ClusterFactory& make_cluster, std::uint64_t seed)
    : store_(std::move(store)),
      server_(sim, *store_, redis_timing(scenario.redis), Rng(seed, "network")),
      cluster_(make_cluster(*store_)) {
  if (cluster_ != nullptr) cluster_->attach(server_);  // the front's calls go to the nodes
  const RegionsSpec& regions = scenario.regions;
  if (!regions.enabled()) {
    regions_.push_back(&server_);
    return;
  }
  has_regions_ = true;
  home_ = regions.home;
  for (std::uint32_t r = 0; r < regions.list.size(); ++r) {
    if (r == regions.home) {
      regions_.push_back(&server_);
      continue;
    }
    region_stores_.emplace_back();
    // Each region's network has its own stream; the home region keeps the run's.
    region_own_.emplace_back(sim, region_stores_.back(), redis_timing(scenario.redis),
                             Rng(seed, "network", r));
    regions_.push_back(&region_own_.back());
  }
  // The round trip between regions, added to every call from an instance to another region's
  // Redis (and rtt[r][r], normally 0, inside a region).
  const auto& instance_regions = scenario.instances.regions;
  for (std::uint32_t id = 0; id < instance_regions.size(); ++id) {
    for (std::uint32_t r = 0; r < regions_.size(); ++r)
      regions_[r]->set_client_added_rtt(id, regions.rtt[instance_regions[id]][r]);
  }
}

std::vector<RedisServer*> Deployment::region_servers() const {
  return has_regions_ ? regions_ : std::vector<RedisServer*>{};
}

RedisServer& Deployment::node_of_key(std::string_view key) {
  return cluster_ != nullptr ? cluster_->node(cluster_->node_of_key(key)) : server_;
}

std::vector<RedisServer*> Deployment::nodes() {
  std::vector<RedisServer*> all = regions_;
  if (cluster_ != nullptr)
    for (int n = 0; n < cluster_->node_count(); ++n) all.push_back(&cluster_->node(n));
  return all;
}

void Deployment::set_current_client(ClientId client) {
  for (RedisServer* server : regions_) server->set_current_client(client);
}

std::size_t Deployment::in_flight() const {
  std::size_t total = server_.in_flight();
  for (const RedisServer& server : region_own_) total += server.in_flight();
  if (cluster_ != nullptr) total += cluster_->in_flight();
  return total;
}

DeploymentTotals Deployment::totals() const {
  DeploymentTotals totals;
  const RedisStats front = cluster_ != nullptr ? cluster_->total_stats() : server_.stats();
  totals.commands = front.commands;
  totals.round_trips = front.round_trips;
  totals.timeouts = front.timeouts;
  totals.keys = cluster_ != nullptr ? cluster_->key_count() : store_->key_count();
  for (const RedisServer& server : region_own_) {
    totals.commands += server.stats().commands;
    totals.round_trips += server.stats().round_trips;
    totals.timeouts += server.stats().timeouts;
  }
  for (const MockStore& store : region_stores_) totals.keys += store.key_count();
  return totals;
}

}  // namespace rlsim
