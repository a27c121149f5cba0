#include "app/cluster_run.h"

#include <algorithm>
#include <cmath>

#include "app/exit_codes.h"
#include "redis/mock_store.h"
#include "report/rounding.h"

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
        exit_code::kBadInput);
  // Each node its own keyspace and Lua state: a script is loaded per node, as on real masters.
  const NodeStoreFactory embedded = [](int) { return std::make_shared<MockStore>(); };
  ClusterLayout layout = ClusterLayout::even(scenario.redis.cluster_nodes);
  const auto& ranges = scenario.redis.cluster_slots;  // checked by the loader
  for (std::size_t node = 0; node < ranges.size(); ++node)
    for (int slot = ranges[node].first; slot <= ranges[node].second; ++slot)
      layout.slot_owner[static_cast<std::size_t>(slot)] = static_cast<std::uint16_t>(node);
  return std::make_unique<RedisCluster>(sim, std::move(layout), embedded, timing, seed);
}

nlohmann::ordered_json node_report_json(const RedisStats& stats, const NodeStats& node,
                                        int pool_size, TimeUs end_us) {
  nlohmann::ordered_json commandstats = nlohmann::ordered_json::object();
  for (const auto& [name, calls] : node.commandstats()) commandstats[name] = calls;
  nlohmann::ordered_json hot_keys = nlohmann::ordered_json::array();
  for (const auto& [key, ops] : node.hot_keys(kHotKeysReported))
    hot_keys.push_back(
        {{"key", key}, {"ops", ops}, {"ops_min", ops - node.hot_key_overcount(key)}});
  const double bucket_s = to_seconds(node.bucket_us());
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  for (std::uint64_t count : node.ops_per_bucket())
    ops.push_back(round4(static_cast<double>(count) / bucket_s));
  nlohmann::ordered_json utilization = nlohmann::ordered_json::array();
  for (DurationUs busy_us : node.busy_per_bucket())
    utilization.push_back(round4(static_cast<double>(busy_us) / (bucket_s * kUsPerS)));
  const double span_us = static_cast<double>(std::max<TimeUs>(end_us, 1));
  return {{"commands", stats.commands},
          {"commandstats", commandstats},
          {"hot_keys", hot_keys},
          {"utilization", round4(static_cast<double>(node.busy_us()) / span_us)},
          {"queue_length_p99", node.queue_length().quantile(0.99)},
          {"max_queue_wait_us", stats.max_queue_wait_us},
          {"call_latency_us",
           {{"p50", node.call_latency_us().quantile(0.5)},
            {"p99", node.call_latency_us().quantile(0.99)},
            {"max", node.call_latency_us().max()}}},
          {"errors",
           {{"timeouts", stats.timeouts},
            {"refused", stats.refused},
            {"lost", stats.lost},
            {"error_replies", stats.error_replies}}},
          {"pool",
           {{"size", pool_size},
            {"waits", stats.pool_waits},
            {"wait_total_us", stats.pool_wait_total_us},
            {"max_wait_us", stats.max_pool_wait_us}}},
          {"ops_per_s", {{"bucket_s", bucket_s}, {"values", ops}}},
          {"utilization_series", {{"bucket_s", bucket_s}, {"values", utilization}}},
          {"queue_length_max_series",
           {{"bucket_s", bucket_s}, {"values", node.max_queue_per_bucket()}}}};
}

void add_cluster_report(const RedisCluster& cluster, int pool_size, TimeUs end_us,
                        nlohmann::ordered_json& out) {
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  std::uint64_t total_commands = 0, max_commands = 0;
  int hottest = 0;
  double max_utilization = 0;
  for (int n = 0; n < cluster.node_count(); ++n) {
    const RedisServer& server = cluster.node(n);
    nlohmann::ordered_json slots = nlohmann::ordered_json::array();
    for (const auto& [first, last] : cluster.layout().ranges_of(n)) slots.push_back({first, last});
    nlohmann::ordered_json entry = {{"node", n}, {"slots", slots}};
    entry.update(node_report_json(server.stats(), server.node_stats(), pool_size, end_us));
    entry["errors"]["crossslot"] = cluster.crossslot_errors(n);
    const std::uint64_t commands = server.stats().commands;
    total_commands += commands;
    if (commands > max_commands) {
      max_commands = commands;
      hottest = n;
    }
    max_utilization = std::max(max_utilization, entry["utilization"].get<double>());
    nodes.push_back(std::move(entry));
  }
  const double mean = static_cast<double>(total_commands) / cluster.node_count();
  // Per time bucket: a fixed window's key moves to another slot every window, so the hot node
  // moves too; the busiest bucket of any node and the imbalance within each bucket show it.
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
      peak_utilization =
          std::max(peak_utilization, static_cast<double>(stats.busy_per_bucket()[b]) /
                                         static_cast<double>(stats.bucket_us()));
    }
    if (!any) break;
    if (bucket_total == 0) continue;
    imbalance_sum +=
        static_cast<double>(bucket_max) * cluster.node_count() / static_cast<double>(bucket_total);
    ++busy_buckets;
  }
  out["redis_cluster"] = {
      {"nodes", cluster.node_count()},
      {"commands", total_commands},
      {"crossslot_errors", cluster.crossslot_errors()},
      {"hottest_node", hottest},
      {"max_utilization", max_utilization},
      // The busiest node's commands over the mean: 1 is perfectly even, K is all on one node.
      {"ops_imbalance", mean > 0 ? round4(static_cast<double>(max_commands) / mean) : 0.0},
      {"peak_utilization", round4(peak_utilization)},
      // The busiest node's share of each bucket's commands over the mean, averaged over buckets.
      {"bucket_ops_imbalance",
       busy_buckets > 0 ? round4(imbalance_sum / static_cast<double>(busy_buckets)) : 0.0}};
  out["redis_nodes"] = std::move(nodes);
}

}  // namespace rlsim
