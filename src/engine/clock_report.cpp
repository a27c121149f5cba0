#include "engine/clock_report.h"

#include <algorithm>
#include <cstdlib>

#include "report/rounding.h"

namespace rlsim {

ClockWatch::ClockWatch(const ClockSpec& spec, std::size_t limit_count)
    : spec_(spec), redis_clock_(0, spec, ClockModel::kRedisNode), limits_(limit_count) {}

void ClockWatch::attach(RedisServer& server) const {
  if (redis_clock_.exact()) return;
  server.set_clock([this](TimeUs true_us) { return redis_clock_.unix_us(true_us); });
}

void ClockWatch::attach_nodes(RedisServer& home, RedisCluster* cluster,
                              const std::vector<RedisServer*>& region_servers,
                              const RegionsSpec& regions) {
  const auto attach_node = [this](RedisServer& server, std::string name, std::int32_t region,
                                  std::int32_t node) {
    nodes_.push_back(NodeClock{std::move(name), ClockModel::redis_node(spec_, region, node)});
    const ClockModel& clock = nodes_.back().clock;
    if (!clock.exact())
      server.set_clock([&clock](TimeUs true_us) { return clock.unix_us(true_us); });
  };
  if (cluster != nullptr) {
    for (int n = 0; n < cluster->node_count(); ++n)
      attach_node(cluster->node(n), "node " + std::to_string(n), -1, n);
  }
  for (std::size_t r = 0; r < region_servers.size(); ++r) {
    attach_node(*region_servers[r], regions.list[r].name, static_cast<std::int32_t>(r), 0);
  }
  if (nodes_.empty()) {
    attach(home);
    return;
  }
  // The report's `series.redis` stays the one a single-node run shows: the home region's Redis,
  // or cluster node 0 (the run's own server only routes to the nodes).
  redis_clock_ = nodes_[region_servers.empty() ? 0 : regions.home].clock;
  if (cluster != nullptr) attach(home);
}

DurationUs ClockWatch::max_active_error_us(const InstancePool& pool, TimeUs now_us) {
  DurationUs worst = 0;
  for (const std::uint32_t id : pool.active_ids())
    worst = std::max(worst, std::abs(pool.get(id).local_unix_us(now_us) - kEpochUnixUs - now_us));
  return worst;
}

void ClockWatch::after_decision(const OracleTotals& totals, const InstancePool& pool,
                                TimeUs now_us) {
  if (!spec_.configured) return;
  // Both counters only grow, by at most one per decision and limit; the clocks are read only when
  // one did (a few decisions in a run), not on every decision.
  int off = -1;  // unknown until needed
  for (std::size_t i = 0; i < limits_.size(); ++i) {
    const LimitMetrics& metrics = totals.limits[i];
    LimitCounts& counts = limits_[i];
    const std::int64_t new_excess = metrics.excess - counts.excess;
    const std::int64_t new_wrong = metrics.wrongly_allowed - counts.wrongly_allowed;
    if (new_excess == 0 && new_wrong == 0) continue;
    if (off < 0) {
      // With thousands of instances and excess on most decisions, reading every clock each time
      // would dominate the run: the largest error is read at most once per millisecond of true
      // time (and again when the active set changes).
      const std::int64_t ms = now_us / kUsPerMs;
      if (ms != cached_ms_ || pool.active_ids().size() != cached_active_) {
        cached_ms_ = ms;
        cached_active_ = pool.active_ids().size();
        cached_off_ = max_active_error_us(pool, now_us) > spec_.attribution_threshold_us;
      }
      off = cached_off_ ? 1 : 0;
    }
    counts.excess = metrics.excess;
    counts.wrongly_allowed = metrics.wrongly_allowed;
    if (off == 1) {
      counts.excess_while_off += new_excess;
      counts.wrongly_allowed_while_off += new_wrong;
    }
  }
}

namespace {

double share(std::int64_t part, std::int64_t whole) {
  if (whole == 0) return 0.0;
  return round4(static_cast<double>(part) / static_cast<double>(whole));
}

// Errors of `clock` at each series point, and the largest in magnitude.
ClockErrors error_series(const ClockModel& clock, DurationUs step_us, std::int64_t points) {
  ClockErrors out;
  for (std::int64_t k = 0; k < points; ++k) {
    const DurationUs error = clock.error_us(k * step_us);
    out.max_abs_error_us = std::max(out.max_abs_error_us, std::abs(error));
    out.error_us.push_back(error);
  }
  return out;
}

}  // namespace

std::optional<ClockResult> ClockWatch::report(const InstancePool& pool,
                                              DurationUs duration_us) const {
  if (!spec_.configured) return std::nullopt;
  ClockResult out;
  out.attribution_threshold_us = spec_.attribution_threshold_us;
  LimitCounts all;
  for (const LimitCounts& counts : limits_) {
    all.excess += counts.excess;
    all.excess_while_off += counts.excess_while_off;
    all.wrongly_allowed += counts.wrongly_allowed;
    all.wrongly_allowed_while_off += counts.wrongly_allowed_while_off;
  }
  out.excess = all.excess;
  out.excess_while_off = all.excess_while_off;
  out.excess_while_off_share = share(all.excess_while_off, all.excess);
  out.wrongly_allowed = all.wrongly_allowed;
  out.wrongly_allowed_while_off = all.wrongly_allowed_while_off;
  out.wrongly_allowed_while_off_share = share(all.wrongly_allowed_while_off, all.wrongly_allowed);

  // Whole milliseconds, about kSeriesPoints points over the run.
  const DurationUs step_us = std::max<DurationUs>(
      kUsPerMs, (duration_us / kSeriesPoints + kUsPerMs - 1) / kUsPerMs * kUsPerMs);
  const std::int64_t points = duration_us / step_us + 1;
  out.step_s = static_cast<double>(step_us) / kUsPerS;
  const std::size_t shown = std::min(pool.started_count(), kMaxSeriesInstances);
  for (std::uint32_t id = 0; id < shown; ++id) {
    const ClockModel exact;
    const Instance& instance = pool.get(id);
    out.instances.push_back(
        {id, error_series(instance.clock != nullptr ? *instance.clock : exact, step_us, points)});
  }
  out.instances_truncated = pool.started_count() > shown;
  out.redis = error_series(redis_clock_, step_us, points);
  if (nodes_.size() > 1) {
    for (const NodeClock& node : nodes_)
      out.redis_nodes.push_back({node.name, error_series(node.clock, step_us, points)});
  }
  return out;
}

}  // namespace rlsim
