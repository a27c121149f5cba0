#include "report/result_json.h"

namespace rlsim {

namespace {

using ordered_json = nlohmann::ordered_json;

template <typename Value>
ordered_json series_json(const BucketSeries<Value>& series) {
  return {{"bucket_s", series.bucket_s}, {"values", series.values}};
}

ordered_json cluster_json(const ClusterResult& cluster) {
  return {{"nodes", cluster.nodes},
          {"commands", cluster.commands},
          {"crossslot_errors", cluster.crossslot_errors},
          {"hottest_node", cluster.hottest_node},
          {"max_utilization", cluster.max_utilization},
          {"ops_imbalance", cluster.ops_imbalance},
          {"peak_utilization", cluster.peak_utilization},
          {"bucket_ops_imbalance", cluster.bucket_ops_imbalance}};
}

ordered_json breaker_json(const BreakerResult& breaker) {
  ordered_json timeline = ordered_json::array();
  for (const auto& entry : breaker.timeline)
    timeline.push_back({{"at_s", entry.at_s},
                        {"instance", entry.instance},
                        {"from", entry.from},
                        {"to", entry.to}});
  return {{"failures", breaker.failures},
          {"window_s", breaker.window_s},
          {"cooldown_s", breaker.cooldown_s},
          {"probes", breaker.probes},
          {"transitions", breaker.transitions},
          {"opened", breaker.opened},
          {"time_s",
           {{"closed", breaker.closed_s},
            {"open", breaker.open_s},
            {"half_open", breaker.half_open_s}}},
          {"timeline", timeline},
          {"timeline_truncated", breaker.timeline_truncated}};
}

ordered_json counts_json(const FaultWindowResult::Counts& counts) {
  return {{"offered", counts.offered},
          {"allowed", counts.allowed},
          {"denied", counts.denied},
          {"errors", counts.errors},
          {"excess", counts.excess},
          {"false_denials", counts.false_denials},
          {"waited_full_timeout", counts.waited_full_timeout},
          {"fallback_decisions", counts.fallback_decisions}};
}

ordered_json fault_window_json(const FaultWindowResult& fault) {
  ordered_json out = {{"type", fault.type},
                      {"at_s", fault.at_s},
                      {"for_s", fault.for_s},
                      {"during", counts_json(fault.during)},
                      {"after", counts_json(fault.after)},
                      {"recovery_s", fault.recovery_s}};
  if (const auto& failover = fault.failover) {
    out["failover"] = {{"replication_lag_ms", failover->replication_lag_ms},
                       {"detected_s", failover->detected_s},
                       {"promoted_s", failover->promoted_s},
                       {"clients_back_s", failover->clients_back_s},
                       {"lost_writes", failover->lost_writes},
                       {"lost_increments", failover->lost_increments},
                       {"lost_commands", failover->lost_commands}};
  }
  return out;
}

ordered_json latency_json(const LatencyQuantiles& latency) {
  return {{"p50", latency.p50}, {"p99", latency.p99}, {"max", latency.max}};
}

// {max_abs_error_us, error_us} after the fields `out` already has.
ordered_json with_errors(ordered_json out, const ClockErrors& errors) {
  out["max_abs_error_us"] = errors.max_abs_error_us;
  out["error_us"] = errors.error_us;
  return out;
}

}  // namespace

ordered_json retries_json(const RetryResult& retries) {
  return {{"first_denied", retries.first_denied},
          {"sent", retries.sent},
          {"admitted", retries.admitted},
          {"gave_up", retries.gave_up},
          {"cut", retries.cut}};
}

ordered_json clock_json(const ClockResult& clock) {
  ordered_json out;
  out["attribution_threshold_us"] = clock.attribution_threshold_us;
  out["excess"] = clock.excess;
  out["excess_while_off"] = clock.excess_while_off;
  out["excess_while_off_share"] = clock.excess_while_off_share;
  out["wrongly_allowed"] = clock.wrongly_allowed;
  out["wrongly_allowed_while_off"] = clock.wrongly_allowed_while_off;
  out["wrongly_allowed_while_off_share"] = clock.wrongly_allowed_while_off_share;
  ordered_json instances = ordered_json::array();
  for (const auto& instance : clock.instances)
    instances.push_back(with_errors({{"id", instance.id}}, instance.errors));
  ordered_json series = {{"step_s", clock.step_s},
                         {"instances", instances},
                         {"instances_truncated", clock.instances_truncated},
                         {"redis", with_errors(ordered_json::object(), clock.redis)}};
  if (!clock.redis_nodes.empty()) {
    ordered_json nodes = ordered_json::array();
    for (const auto& node : clock.redis_nodes)
      nodes.push_back(with_errors({{"name", node.name}}, node.errors));
    series["redis_nodes"] = nodes;
  }
  out["series"] = series;
  return out;
}

ordered_json regions_json(const std::vector<RegionResult>& regions) {
  ordered_json out = ordered_json::array();
  for (const RegionResult& region : regions) {
    ordered_json windows = ordered_json::array();
    for (const auto& window : region.windows)
      windows.push_back({{"start_s", window.start_s},
                         {"admitted", window.admitted},
                         {"max_per_key", window.max_per_key}});
    out.push_back({{"name", region.name},
                   {"instances", region.instances},
                   {"home", region.home},
                   {"offered", region.offered},
                   {"allowed", region.allowed},
                   {"denied", region.denied},
                   {"errors", region.errors},
                   {"overshoot", region.overshoot},
                   {"excess", region.excess},
                   {"latency_us", latency_json(region.latency_us)},
                   {"series", {{"window_s", region.window_s}, {"windows", windows}}}});
  }
  return out;
}

ordered_json node_json(const NodeResult& node) {
  ordered_json out;
  if (node.node) {
    out["node"] = *node.node;
    ordered_json slots = ordered_json::array();
    for (const auto& [first, last] : node.slots) slots.push_back({first, last});
    out["slots"] = slots;
  }
  ordered_json commandstats = ordered_json::object();
  for (const auto& [name, calls] : node.commandstats) commandstats[name] = calls;
  ordered_json hot_keys = ordered_json::array();
  for (const auto& hot : node.hot_keys)
    hot_keys.push_back({{"key", hot.key}, {"ops", hot.ops}, {"ops_min", hot.ops_min}});
  ordered_json errors = {{"timeouts", node.errors.timeouts},
                         {"refused", node.errors.refused},
                         {"lost", node.errors.lost},
                         {"error_replies", node.errors.error_replies}};
  if (node.errors.crossslot) errors["crossslot"] = *node.errors.crossslot;
  out["commands"] = node.commands;
  out["commandstats"] = commandstats;
  out["hot_keys"] = hot_keys;
  out["utilization"] = node.utilization;
  out["drain_us"] = node.drain_us;
  out["queue_length_p99"] = node.queue_length_p99;
  out["max_queue_wait_us"] = node.max_queue_wait_us;
  out["call_latency_us"] = latency_json(node.call_latency_us);
  out["errors"] = errors;
  out["pool"] = {{"size", node.pool.size},
                 {"waits", node.pool.waits},
                 {"wait_total_us", node.pool.wait_total_us},
                 {"max_wait_us", node.pool.max_wait_us}};
  out["ops_per_s"] = series_json(node.ops_per_s);
  out["utilization_series"] = series_json(node.utilization_series);
  out["queue_length_max_series"] = series_json(node.queue_length_max_series);
  return out;
}

ordered_json resilience_json(const ResilienceResult& resilience) {
  ordered_json out;
  out["policy"] = resilience.policy;
  if (resilience.divisor) out["divisor"] = *resilience.divisor;
  out["decisions"] = resilience.decisions;
  out["error_decisions"] = resilience.error_decisions;
  out["fallback_decisions"] = resilience.fallback_decisions;
  out["fallback_rate"] = resilience.fallback_rate;
  out["fallback_denied"] = resilience.fallback_denied;
  out["short_circuited"] = resilience.short_circuited;
  out["breaker"] = resilience.breaker ? breaker_json(*resilience.breaker) : ordered_json(nullptr);
  if (resilience.fallback_series) out["fallback_series"] = series_json(*resilience.fallback_series);
  return out;
}

ordered_json redis_side_json(const RedisSideResult& result) {
  ordered_json out;
  out["waited_full_timeout"] = result.waited_full_timeout;
  if (result.redis_node) out["redis_node"] = node_json(*result.redis_node);
  if (result.redis_cluster) {
    out["redis_cluster"] = cluster_json(*result.redis_cluster);
    ordered_json nodes = ordered_json::array();
    for (const NodeResult& node : result.redis_nodes) nodes.push_back(node_json(node));
    out["redis_nodes"] = nodes;
  }
  if (result.resilience) out["resilience"] = resilience_json(*result.resilience);
  if (result.faults) {
    ordered_json faults = ordered_json::array();
    for (const FaultWindowResult& fault : *result.faults)
      faults.push_back(fault_window_json(fault));
    out["faults"] = faults;
  }
  return out;
}

ordered_json backend_json(const BackendReport& backend) {
  ordered_json out;
  out["redis"] = backend.cluster ? "real_cluster" : "real";
  if (const auto& cluster = backend.cluster) {
    out["url"] = cluster->seeds;
    ordered_json nodes = ordered_json::array();
    for (const auto& node : cluster->nodes)
      nodes.push_back(
          {{"address", node.address}, {"slots", node.slots}, {"commands", node.commands}});
    out["nodes"] = std::move(nodes);
    out["moved"] = cluster->moved;
    out["ask"] = cluster->ask;
    out["crossslot"] = cluster->crossslot;
    out["slot_map_reads"] = cluster->slot_map_reads;
  } else {
    out["url"] = backend.url;
  }
  out["calls_failed"] = backend.calls_failed;
  out["reconnects"] = backend.reconnects;
  out["failed"] = !backend.failure.empty();
  if (!backend.failure.empty()) out["failure"] = backend.failure;
  return out;
}

}  // namespace rlsim
