#include "report/state_charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "report/alerts.h"
#include "report/chart_windows.h"
#include "report/fault_report.h"

namespace rlsim {
namespace {

// Everything a time chart of this run shares: the x axis and the shaded fault windows.
struct TimeFrame {
  const RunResult& result;
  double divisor_us;
  std::string unit;
};

Chart time_chart(const TimeFrame& frame, std::string id, std::string title, std::string y_label) {
  Chart chart;
  chart.id = std::move(id);
  chart.title = std::move(title);
  chart.x_label = fmt::format("time ({})", frame.unit);
  chart.y_label = std::move(y_label);
  chart.x_max = static_cast<double>(frame.result.scenario->duration_us) / frame.divisor_us;
  chart.bands = fault_bands(*frame.result.scenario, frame.divisor_us);
  return chart;
}

// A chart of one strategy's run: its alert firings are marked too.
Chart strategy_chart(const TimeFrame& frame, std::size_t index, std::string id, std::string title,
                     std::string y_label) {
  Chart chart = time_chart(frame, std::move(id), std::move(title), std::move(y_label));
  chart.markers =
      alert_markers(*frame.result.scenario, frame.result.strategies[index], frame.divisor_us);
  return chart;
}

const std::string& color(std::size_t index) {
  const auto& palette = chart_palette();
  return palette[index % palette.size()];
}

// A series of values per time bucket as a step line from each bucket's start, times `scale`.
template <typename Value>
ChartSeries bucket_series(const BucketSeries<Value>& series, const TimeFrame& frame,
                          std::string name, const std::string& line_color, double scale) {
  ChartSeries out{std::move(name), line_color, {}, true, false};
  const double bucket_us = series.bucket_s * kUsPerS;
  const std::vector<Value>& values = series.values;
  std::size_t drawn = 0;
  for (; drawn < values.size(); ++drawn) {
    const double start_us = static_cast<double>(drawn) * bucket_us;
    if (!charted_window(frame.result, static_cast<TimeUs>(start_us))) break;
    out.points.emplace_back(start_us / frame.divisor_us,
                            static_cast<double>(values[drawn]) * scale);
  }
  // A bucket's value holds until the bucket's end, not to the end of the chart: the line stops
  // where the data does rather than dropping to 0.
  const double end_us = std::min(static_cast<double>(drawn) * bucket_us,
                                 static_cast<double>(chart_end_us(frame.result)));
  out.end_x = end_us / frame.divisor_us;
  return out;
}

// A utilization chart's y axis: percent on every tick (0.3% reads as a share, not as 0.3 of the
// time), up to 100% at most.
Chart utilization_chart(Chart chart) {
  chart.y_label = "busy (% of the time)";
  chart.y_suffix = "%";
  chart.y_cap = 100;
  return chart;
}

// The Redis node's commands per second, utilization and longest queue, one line per strategy.
void redis_charts(const TimeFrame& frame, std::vector<Chart>& charts) {
  const RunResult& result = frame.result;
  // In a multi-region run the report's node is the home region's.
  const char* node = result.scenario->regions.enabled() ? "Home Redis node" : "Redis node";
  Chart ops = time_chart(frame, "redis-ops", fmt::format("{}: commands per second", node),
                         "commands per second");
  Chart utilization = utilization_chart(
      time_chart(frame, "redis-utilization",
                 fmt::format("{}: utilization (share of the time busy)", node), ""));
  Chart queue =
      time_chart(frame, "redis-queue", fmt::format("{}: longest queue ahead of a call", node),
                 "commands queued");
  bool queued = false;
  for (std::size_t i = 0; i < result.strategies.size(); ++i) {
    const StrategyResult& strategy = result.strategies[i];
    if (!strategy.redis_side || !strategy.redis_side->redis_node) continue;
    const NodeResult& stats = *strategy.redis_side->redis_node;
    ops.series.push_back(bucket_series(stats.ops_per_s, frame, strategy.label, color(i), 1.0));
    utilization.series.push_back(
        bucket_series(stats.utilization_series, frame, strategy.label, color(i), 100.0));
    queue.series.push_back(
        bucket_series(stats.queue_length_max_series, frame, strategy.label, color(i), 1.0));
    // Queueing worth a chart: at least 1% of the calls found commands ahead of them.
    queued = queued || stats.queue_length_p99 > 0;
  }
  if (!ops.series.empty()) charts.push_back(std::move(ops));
  if (!utilization.series.empty()) charts.push_back(std::move(utilization));
  if (queued) charts.push_back(std::move(queue));
  // An embedded cluster (docs/cluster.md): per strategy, each node's utilization, so a hot node
  // stands out from the others.
  for (std::size_t i = 0; i < result.strategies.size(); ++i) {
    const auto& side = result.strategies[i].redis_side;
    if (!side || !side->redis_cluster) continue;
    Chart chart = utilization_chart(strategy_chart(
        frame, i, fmt::format("cluster-utilization-{}", i + 1),
        fmt::format("{}: utilization of each cluster node", result.strategies[i].label), ""));
    for (const NodeResult& cluster_node : side->redis_nodes) {
      const int node_index = cluster_node.node.value_or(0);
      chart.series.push_back(bucket_series(cluster_node.utilization_series, frame,
                                           fmt::format("node {}", node_index),
                                           color(static_cast<std::size_t>(node_index)), 100.0));
    }
    charts.push_back(std::move(chart));
  }
}

// Decisions each strategy's on_error policy made instead of Redis, per second: when the fallback
// was active, and how much of the traffic it decided.
void fallback_chart(const TimeFrame& frame, std::vector<Chart>& charts) {
  Chart chart =
      time_chart(frame, "fallback", "Fallback active: decisions made by on_error instead of Redis",
                 "fallback decisions per second");
  for (std::size_t i = 0; i < frame.result.strategies.size(); ++i) {
    const StrategyResult& strategy = frame.result.strategies[i];
    if (!strategy.redis_side || !strategy.redis_side->resilience) continue;
    const ResilienceResult& resilience = *strategy.redis_side->resilience;
    if (resilience.fallback_decisions == 0 || !resilience.fallback_series) continue;
    chart.series.push_back(bucket_series(*resilience.fallback_series, frame,
                                         fmt::format("{} ({})", strategy.label, resilience.policy),
                                         color(i), 1.0));
  }
  if (!chart.series.empty()) charts.push_back(std::move(chart));
}

// How many instances' breakers were closed, half-open and open over time, stacked: rebuilt from
// the breaker's timeline (every breaker starts closed with its instance) and the instance count.
Chart breaker_chart(const TimeFrame& frame, std::size_t index, const BreakerResult& breaker) {
  const StrategyResult& strategy = frame.result.strategies[index];
  const bool truncated = breaker.timeline_truncated;
  Chart chart =
      strategy_chart(frame, index, fmt::format("breaker-{}", index + 1),
                     fmt::format("{}: circuit breaker state of each instance{}", strategy.label,
                                 truncated ? " (timeline truncated)" : ""),
                     "instances");
  ChartSeries closed{"closed (calls Redis)", "#009E73", {}, true, false, true};
  ChartSeries half_open{"half-open (probing)", "#E69F00", {}, true, false, true};
  ChartSeries open{"open (fallback, no Redis call)", "#D55E00", {}, true, false, true};
  std::map<std::int64_t, std::string> state;  // instance id -> state, when not closed
  const auto& timeline = breaker.timeline;
  const auto& counts = strategy.instance_counts;
  std::size_t next_transition = 0, next_count = 0;
  int active = 0;
  while (next_transition < timeline.size() || next_count < counts.size()) {
    // The next moment anything changed; every change at that moment applies before the point.
    double at_us = std::numeric_limits<double>::max();
    if (next_transition < timeline.size()) at_us = timeline[next_transition].at_s * kUsPerS;
    if (next_count < counts.size())
      at_us = std::min(at_us, static_cast<double>(counts[next_count].first));
    // Transitions while the last requests drain after the end are not drawn.
    if (at_us > static_cast<double>(frame.result.scenario->duration_us)) break;
    while (next_count < counts.size() && static_cast<double>(counts[next_count].first) <= at_us)
      active = counts[next_count++].second;
    while (next_transition < timeline.size() && timeline[next_transition].at_s * kUsPerS <= at_us) {
      const BreakerTransition& entry = timeline[next_transition++];
      if (entry.to == "closed") {
        state.erase(entry.instance);
      } else {
        state[entry.instance] = entry.to;
      }
    }
    int opened = 0, probing = 0;
    for (const auto& [id, value] : state) (value == "open" ? opened : probing) += 1;
    // A crashed instance's breaker goes with it; the timeline does not say which one stopped.
    opened = std::min(opened, active);
    probing = std::min(probing, active - opened);
    const double x = at_us / frame.divisor_us;
    closed.points.emplace_back(x, active);
    half_open.points.emplace_back(x, opened + probing);
    open.points.emplace_back(x, opened);
  }
  // The top of the stack first: each lower area is drawn over the one above it.
  chart.series = {std::move(closed), std::move(half_open), std::move(open)};
  return chart;
}

// Each instance's clock reading minus true time, and the Redis node's, in milliseconds. The clocks
// are a pure function of true time, the same for every strategy: drawn once.
void clock_chart(const TimeFrame& frame, std::vector<Chart>& charts) {
  for (const StrategyResult& strategy : frame.result.strategies) {
    if (!strategy.clock) continue;
    const ClockResult& clock = *strategy.clock;
    Chart chart = time_chart(frame, "clock-error",
                             fmt::format("Clock error per instance and of the Redis node{}",
                                         clock.instances_truncated ? ", first 32 instances" : ""),
                             "clock minus true time (ms)");
    const double step_us = clock.step_s * kUsPerS;
    const auto samples = [&](const ClockErrors& errors, std::string name,
                             const std::string& line_color, bool dashed) {
      ChartSeries out{std::move(name), line_color, {}, false, dashed};
      for (std::size_t k = 0; k < errors.error_us.size(); ++k) {
        out.points.emplace_back(static_cast<double>(k) * step_us / frame.divisor_us,
                                static_cast<double>(errors.error_us[k]) / kUsPerMs);
      }
      return out;
    };
    std::size_t slot = 0;
    for (const auto& instance : clock.instances) {
      // Black is kept for the Redis node's clock.
      const std::string& line_color = color(slot) == "#000000" ? color(++slot) : color(slot);
      chart.series.push_back(
          samples(instance.errors, fmt::format("instance {}", instance.id), line_color, false));
      ++slot;
    }
    if (!clock.redis_nodes.empty()) {
      // Every Redis node's own clock (regions, a cluster): dashed, named by region or node.
      for (const auto& node : clock.redis_nodes) {
        const std::string& line_color = color(slot) == "#000000" ? color(++slot) : color(slot);
        chart.series.push_back(samples(node.errors, "Redis " + node.name, line_color, true));
        ++slot;
      }
    } else {
      chart.series.push_back(samples(clock.redis, "Redis node", "#000000", true));
      chart.series.back().shared = true;
    }
    charts.push_back(std::move(chart));
    return;
  }
}

// Per strategy of a multi-region run: the most admitted for one key per window in each region,
// and across all regions (what a global limit counts), against the limit.
void region_charts(const TimeFrame& frame, std::vector<Chart>& charts) {
  const Limit& first = frame.result.scenario->limits.front();
  for (std::size_t i = 0; i < frame.result.strategies.size(); ++i) {
    const StrategyResult& strategy = frame.result.strategies[i];
    if (!strategy.regions || strategy.regions->empty()) continue;
    Chart chart = strategy_chart(
        frame, i, fmt::format("regions-{}", i + 1),
        fmt::format("{}: most admitted per {} per {} window, by region", strategy.label,
                    to_string(first.key), format_duration(first.window_us)),
        "admitted per window");
    for (std::size_t r = 0; r < strategy.regions->size(); ++r) {
      const RegionResult& region = (*strategy.regions)[r];
      ChartSeries line{fmt::format("region {}", region.name), color(r), {}, true, false};
      line.end_x = static_cast<double>(chart_end_us(frame.result)) / frame.divisor_us;
      for (const auto& window : region.windows) {
        if (!charted_window(frame.result, static_cast<TimeUs>(window.start_s * kUsPerS))) continue;
        line.points.emplace_back(window.start_s * kUsPerS / frame.divisor_us,
                                 static_cast<double>(window.max_per_key));
      }
      chart.series.push_back(std::move(line));
    }
    if (chart.series.empty()) continue;
    ChartSeries global{"all regions", "#000000", {}, true, false};
    global.end_x = static_cast<double>(chart_end_us(frame.result)) / frame.divisor_us;
    global.shared = true;
    for (const auto& point : strategy.totals.series) {
      if (!charted_window(frame.result, point.start_us)) continue;
      global.points.emplace_back(static_cast<double>(point.start_us) / frame.divisor_us,
                                 static_cast<double>(point.max_per_key));
    }
    chart.series.push_back(std::move(global));
    chart.series.push_back(ChartSeries{
        fmt::format("limit ({}), per region and global", first.limit),
        "#555555",
        {{0.0, static_cast<double>(first.limit)}, {chart.x_max, static_cast<double>(first.limit)}},
        false,
        true});
    chart.series.back().shared = true;
    if (auto band = partial_window_band(frame.result, frame.divisor_us))
      chart.bands.push_back(*band);
    charts.push_back(std::move(chart));
  }
}

}  // namespace

void append_state_charts(const RunResult& result, double divisor_us, const std::string& unit,
                         std::vector<Chart>& charts) {
  const TimeFrame frame{result, divisor_us, unit};
  redis_charts(frame, charts);
  fallback_chart(frame, charts);
  for (std::size_t i = 0; i < result.strategies.size(); ++i) {
    const auto& side = result.strategies[i].redis_side;
    if (side && side->resilience && side->resilience->breaker)
      charts.push_back(breaker_chart(frame, i, *side->resilience->breaker));
  }
  clock_chart(frame, charts);
  region_charts(frame, charts);
}

}  // namespace rlsim
