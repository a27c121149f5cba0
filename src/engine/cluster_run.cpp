#include "engine/cluster_run.h"

#include <algorithm>
#include <cmath>

#include "engine/run_error.h"
#include "redis/mock_store.h"
#include "redis/replicated_store.h"
#include "report/rounding.h"
#include "world/fault_injection.h"

namespace rlsim {

namespace {

// Hot keys listed in the report.
constexpr std::size_t kHotKeysReported = 10;

}  // namespace

std::unique_ptr<RedisCluster> make_embedded_cluster(const Scenario& scenario, Simulator& sim,
                                                    const RedisTiming& timing, std::uint64_t seed) {
  if (scenario.redis.cluster_nodes <= 0) return nullptr;
  if (!scenario.redis.url.empty())
    throw RunError(
        "redis.cluster is the embedded cluster and cannot run against one real Redis (--redis)",
        RunErrorKind::kBadInput);
  // Each node its own keyspace and Lua state: a script is loaded per node, as on real masters.
  // A node a redis_failover hits is a primary with its replica (redis/replicated_store.h).
  const NodeStoreFactory embedded = [&scenario](int node) -> std::shared_ptr<DataStore> {
    if (const auto lag_us = failover_replication_lag(scenario, node))
      return std::make_shared<ReplicatedStore>(*lag_us);
    return std::make_shared<MockStore>();
  };
  ClusterLayout layout = ClusterLayout::even(scenario.redis.cluster_nodes);
  const auto& ranges = scenario.redis.cluster_slots;  // checked by the loader
  for (std::size_t node = 0; node < ranges.size(); ++node)
    for (int slot = ranges[node].first; slot <= ranges[node].second; ++slot)
      layout.slot_owner[static_cast<std::size_t>(slot)] = static_cast<std::uint16_t>(node);
  return std::make_unique<RedisCluster>(sim, std::move(layout), embedded, timing, seed);
}

NodeResult node_result(const RedisStats& stats, const NodeStats& node, int pool_size,
                       TimeUs end_us) {
  NodeResult out;
  out.commands = stats.commands;
  out.commandstats = node.commandstats();
  for (const auto& [key, ops] : node.hot_keys(kHotKeysReported))
    out.hot_keys.push_back({key, ops, ops - node.hot_key_overcount(key)});
  const double bucket_s = to_seconds(node.bucket_us());
  out.ops_per_s.bucket_s = out.utilization_series.bucket_s = bucket_s;
  out.queue_length_max_series.bucket_s = bucket_s;
  for (std::uint64_t count : node.ops_per_bucket())
    out.ops_per_s.values.push_back(round4(static_cast<double>(count) / bucket_s));
  for (DurationUs busy_us : node.busy_per_bucket())
    out.utilization_series.values.push_back(
        round4(static_cast<double>(busy_us) / (bucket_s * kUsPerS)));
  out.queue_length_max_series.values = node.max_queue_per_bucket();
  const double span_us = static_cast<double>(std::max<TimeUs>(end_us, 1));
  // Over the run only: work done after `end_us` is the backlog draining, reported as drain_us
  // (counting it here read 1.20 at 60k/s with 20 us of service per call).
  // A run stopped early (SIGINT) ends before the scenario's duration: its busy time after the stop
  // still counts as in the run, so the ratio is capped at the one thread's 1.
  out.utilization = round4(std::min(1.0, static_cast<double>(node.busy_in_run_us()) / span_us));
  out.drain_us = std::max<TimeUs>(0, node.free_at_us() - end_us);
  out.queue_length_p99 = node.queue_length().quantile(0.99);
  out.max_queue_wait_us = stats.max_queue_wait_us;
  out.call_latency_us = {node.call_latency_us().quantile(0.5),
                         node.call_latency_us().quantile(0.99), node.call_latency_us().max()};
  out.errors = {stats.timeouts, stats.refused, stats.lost, stats.error_replies, std::nullopt};
  out.pool = {pool_size, stats.pool_waits, stats.pool_wait_total_us, stats.max_pool_wait_us};
  return out;
}

namespace {

// Per time bucket: a fixed window's key moves to another slot every window, so the hot node
// moves too; the busiest bucket of any node and the imbalance within each bucket show it.
void add_bucket_balance(const RedisCluster& cluster, ClusterResult& out) {
  double peak_utilization = 0, imbalance_sum = 0;
  std::size_t busy_buckets = 0;
  for (std::size_t b = 0;; ++b) {
    std::uint64_t bucket_total = 0, bucket_max = 0;
    bool any = false;
    for (int n = 0; n < cluster.node_count(); ++n) {
      const NodeStats& stats = cluster.node(n).node_stats();
      if (b >= stats.ops_per_bucket().size()) continue;
      any = true;
      bucket_total += stats.ops_per_bucket()[b];
      bucket_max = std::max(bucket_max, stats.ops_per_bucket()[b]);
      // A node with no service time records no busy spans: its list is shorter, or empty.
      const DurationUs busy_us =
          b < stats.busy_per_bucket().size() ? stats.busy_per_bucket()[b] : 0;
      peak_utilization = std::max(
          peak_utilization, static_cast<double>(busy_us) / static_cast<double>(stats.bucket_us()));
    }
    if (!any) break;
    if (bucket_total == 0) continue;
    imbalance_sum +=
        static_cast<double>(bucket_max) * cluster.node_count() / static_cast<double>(bucket_total);
    ++busy_buckets;
  }
  out.peak_utilization = round4(peak_utilization);
  // The busiest node's share of each bucket's commands over the mean, averaged over buckets.
  out.bucket_ops_imbalance =
      busy_buckets > 0 ? round4(imbalance_sum / static_cast<double>(busy_buckets)) : 0.0;
}

}  // namespace

void add_cluster_result(const RedisCluster& cluster, int pool_size, TimeUs end_us,
                        RedisSideResult& out) {
  ClusterResult& balance = out.redis_cluster.emplace();
  balance.nodes = cluster.node_count();
  balance.crossslot_errors = cluster.crossslot_errors();
  std::uint64_t max_commands = 0;
  for (int n = 0; n < cluster.node_count(); ++n) {
    const RedisServer& server = cluster.node(n);
    NodeResult& node = out.redis_nodes.emplace_back(
        node_result(server.stats(), server.node_stats(), pool_size, end_us));
    node.node = n;
    node.slots = cluster.layout().ranges_of(n);
    node.errors.crossslot = cluster.crossslot_errors(n);
    balance.commands += node.commands;
    if (node.commands > max_commands) {
      max_commands = node.commands;
      balance.hottest_node = n;
    }
    balance.max_utilization = std::max(balance.max_utilization, node.utilization);
  }
  const double mean = static_cast<double>(balance.commands) / cluster.node_count();
  // The busiest node's commands over the mean: 1 is perfectly even, K is all on one node.
  balance.ops_imbalance = mean > 0 ? round4(static_cast<double>(max_commands) / mean) : 0.0;
  add_bucket_balance(cluster, balance);
}

}  // namespace rlsim
