#include "report/fault_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "report/sparkline.h"

namespace rlsim {

namespace {

// The lesson's alert: page someone when the rate check's p99 passes 5 ms.
constexpr std::int64_t kRateCheckAlertUs = 5000;
constexpr std::size_t kSparkWidth = 40;
constexpr std::size_t kCommandsShown = 5;
constexpr std::size_t kHotKeysShown = 3;

// Two lines per Redis node: load, rate-check latency (flagged past the 5 ms alert), errors by kind
// and pool waits; then ops/s over time, commands by type (INFO commandstats) and the hottest keys.
std::string node_lines(const std::string& label, const NodeResult& node) {
  const std::int64_t p99_us = node.call_latency_us.p99;
  std::string out = fmt::format(
      "{}: redis: utilization {:.2f}{}, queue p99 {} cmds, rate-check p50/p99 {}/{} us{}, "
      "errors: timeouts {}, refused {}, lost {}, error replies {}; pool waits {}\n",
      label, node.utilization,
      // A backlog left at the end: how long it kept the thread busy (not in the utilization).
      node.drain_us >= kUsPerMs
          ? fmt::format(" (+{} ms draining after the end)", node.drain_us / kUsPerMs)
          : "",
      node.queue_length_p99, node.call_latency_us.p50, p99_us,
      p99_us > kRateCheckAlertUs ? " (ALERT: p99 above the lesson's 5 ms)" : "",
      node.errors.timeouts, node.errors.refused, node.errors.lost, node.errors.error_replies,
      node.pool.waits);
  const std::vector<double>& values = node.ops_per_s.values;
  const double peak = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
  out += fmt::format("{}: redis ops/s {} (peak {:.0f}, {} s buckets)", label,
                     sparkline(values, peak, kSparkWidth), peak, node.ops_per_s.bucket_s);
  // Commands by type, most executed first (ties by name, as commandstats is sorted by name).
  std::vector<std::pair<std::string, std::uint64_t>> commands = node.commandstats;
  std::stable_sort(commands.begin(), commands.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (std::size_t i = 0; i < std::min(commands.size(), kCommandsShown); ++i)
    text += fmt::format("{}{} {}", i == 0 ? "" : ", ", commands[i].first, commands[i].second);
  if (commands.size() > kCommandsShown)
    text += fmt::format(", {} more", commands.size() - kCommandsShown);
  if (!text.empty()) out += "; commands: " + text;
  text.clear();
  for (std::size_t i = 0; i < std::min(node.hot_keys.size(), kHotKeysShown); ++i) {
    // A key that took over another's counter may be counted high: say what is certain.
    const NodeResult::HotKey& hot = node.hot_keys[i];
    text += fmt::format("{}{} ({} ops{})", i == 0 ? "" : ", ", hot.key, hot.ops,
                        hot.ops_min < hot.ops ? fmt::format(", at least {}", hot.ops_min) : "");
  }
  if (!text.empty()) out += "; hot keys: " + text;
  return out + "\n";
}

// How many instances' breakers were not closed (open or half-open) over the run, the most in each
// of kSparkWidth equal slices of the scenario's duration, from the breaker's timeline.
std::vector<double> breakers_not_closed(const std::vector<BreakerTransition>& timeline,
                                        TimeUs duration_us) {
  std::vector<double> cells(kSparkWidth, 0);
  std::set<std::int64_t> not_closed;
  std::size_t next = 0;
  for (std::size_t c = 0; c < kSparkWidth; ++c) {
    const double end_s = static_cast<double>(duration_us) * static_cast<double>(c + 1) /
                         static_cast<double>(kSparkWidth) / kUsPerS;
    auto peak = static_cast<double>(not_closed.size());
    for (; next < timeline.size() && timeline[next].at_s < end_s; ++next) {
      if (timeline[next].to == "closed") {
        not_closed.erase(timeline[next].instance);
      } else {
        not_closed.insert(timeline[next].instance);
      }
      peak = std::max(peak, static_cast<double>(not_closed.size()));
    }
    cells[c] = peak;
  }
  return cells;
}

std::string resilience_lines(const std::string& label, const ResilienceResult& r,
                             TimeUs duration_us) {
  std::string line =
      fmt::format("{}: on_error {}: fallback decisions {} ({:.2f}%), denied by the policy {}",
                  label, r.policy, r.fallback_decisions, r.fallback_rate * 100, r.fallback_denied);
  if (!r.breaker) return line + "\n";
  const BreakerResult& breaker = *r.breaker;
  line += fmt::format(
      "; breaker transitions {} (opened {}x), short-circuited {}, instance-seconds "
      "closed/open/half-open {:.1f}/{:.1f}/{:.1f}\n",
      breaker.transitions, breaker.opened, r.short_circuited, breaker.closed_s, breaker.open_s,
      breaker.half_open_s);
  const auto& timeline = breaker.timeline;
  if (timeline.empty()) return line;
  const std::vector<double> cells = breakers_not_closed(timeline, duration_us);
  const double peak = *std::max_element(cells.begin(), cells.end());
  line += fmt::format(
      "{}: breaker timeline: instances not closed {} (peak {:.0f}); first transition {:.2f}s "
      "{}->{}, last {:.2f}s {}->{}{}\n",
      label, sparkline(cells, peak, kSparkWidth), peak, timeline.front().at_s,
      timeline.front().from, timeline.front().to, timeline.back().at_s, timeline.back().from,
      timeline.back().to, breaker.timeline_truncated ? " (timeline truncated)" : "");
  return line;
}

// One short line for a redis_failover: its phases and what the promoted replica lacked.
std::string failover_line(const std::string& label, const FaultWindowResult& fault) {
  if (!fault.failover) return "";
  const FaultWindowResult::Failover& f = *fault.failover;
  return fmt::format(
      "{}: failover: lag {} ms; detected {}s, promoted {}s, clients back {}s; lost {} writes, {} "
      "increments\n",
      label, f.replication_lag_ms, f.detected_s, f.promoted_s, f.clients_back_s, f.lost_writes,
      f.lost_increments);
}

std::string fault_line(const std::string& label, const FaultWindowResult& fault) {
  return fmt::format(
             "{}: {} at {}s for {}s: during: allowed {}/{}, excess {}, false denials {}, waited a "
             "full "
             "timeout {}; next window: excess {}, false denials {}; back within the limit {:.2f}s "
             "after\n",
             label, fault.type, fault.at_s, fault.for_s, fault.during.allowed, fault.during.offered,
             fault.during.excess, fault.during.false_denials, fault.during.waited_full_timeout,
             fault.after.excess, fault.after.false_denials, fault.recovery_s) +
         failover_line(label, fault);
}

}  // namespace

std::vector<ChartBand> fault_bands(const Scenario& scenario, double divisor_us) {
  std::vector<ChartBand> bands;
  for (const FaultSpec& fault : scenario.faults) {
    bands.push_back(ChartBand{static_cast<double>(fault.at_us) / divisor_us,
                              static_cast<double>(fault.at_us + fault.for_us) / divisor_us,
                              to_string(fault.type)});
  }
  // Clock faults happen at an instant (a jump, or the start of an offset or a drift): a thin mark.
  for (const ClockFault& fault : scenario.instances.clock.faults) {
    const double at = static_cast<double>(fault.at_us) / divisor_us;
    bands.push_back(ChartBand{at, at, to_string(fault.type)});
  }
  return bands;
}

std::string fault_notes(const RunResult& result) {
  std::string out;
  for (const auto& strategy : result.strategies) {
    if (!strategy.redis_side) continue;
    const RedisSideResult& side = *strategy.redis_side;
    if (side.redis_node) out += node_lines(strategy.label, *side.redis_node);
    if (side.redis_cluster) {  // an embedded cluster: one line per node
      for (const NodeResult& node : side.redis_nodes)
        out += node_lines(fmt::format("{} node {}", strategy.label, node.node.value_or(0)), node);
      const ClusterResult& cluster = *side.redis_cluster;
      out += fmt::format(
          "{}: cluster: CROSSSLOT errors {}, peak node utilization {:.2f}, ops imbalance per "
          "second {:.2f} (1 = even)\n",
          strategy.label, cluster.crossslot_errors, cluster.peak_utilization,
          cluster.bucket_ops_imbalance);
    }
    if (side.redis_node || side.redis_cluster) {
      const TimeUs timeout_us = strategy.redis_timeout ? strategy.redis_timeout->timeout_us
                                                       : result.scenario->redis.timeout_us;
      out += fmt::format("{}: requests that waited a full Redis timeout ({} ms{}): {}\n",
                         strategy.label, timeout_us / kUsPerMs,
                         strategy.redis_timeout ? ", " + strategy.redis_timeout->from : "",
                         side.waited_full_timeout);
    }
    if (side.resilience)
      out += resilience_lines(strategy.label, *side.resilience, result.scenario->duration_us);
    if (side.faults)
      for (const FaultWindowResult& fault : *side.faults) out += fault_line(strategy.label, fault);
  }
  return out.empty() ? out : "\n" + out;
}

}  // namespace rlsim
