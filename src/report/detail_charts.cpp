// The report's per-strategy detail charts: who admitted what, and what the limiter cost in time.
#include <fmt/format.h>

#include <algorithm>

#include "report/alerts.h"
#include "report/chart_windows.h"
#include "report/fault_report.h"
#include "report/html_report.h"

namespace rlsim {
namespace {

std::string instance_name(std::size_t slot) {
  return slot + 1 == Oracle::kMaxSeriesInstances ? fmt::format("instances {}+", slot)
                                                 : fmt::format("instance {}", slot);
}

// The instance slots a stacked chart draws on their own: the kMaxChartSeries - 1 that admitted
// the most over the run (ties: the lower slot), in slot order; the others share one area.
std::vector<std::size_t> largest_slots(const StrategyResult& strategy, std::size_t slots) {
  std::vector<std::int64_t> admitted(slots, 0);
  for (const auto& point : strategy.totals.series)
    for (std::size_t j = 0; j < point.admitted_by_instance.size(); ++j)
      admitted[j] += point.admitted_by_instance[j];
  std::vector<std::size_t> order(slots);
  for (std::size_t j = 0; j < slots; ++j) order[j] = j;
  if (slots <= kMaxChartSeries) return order;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return admitted[a] > admitted[b]; });
  order.resize(kMaxChartSeries - 1);
  std::sort(order.begin(), order.end());
  return order;
}

// Admitted per window of the first limit, stacked by the instance that decided: the largest
// instances on their own, the rest as "others" on top.
Chart stacked_by_instance(const RunResult& result, std::size_t index, double divisor_us,
                          const std::string& unit) {
  const StrategyResult& strategy = result.strategies[index];
  const Limit& first = result.scenario->limits.front();
  Chart chart;
  chart.id = fmt::format("by-instance-{}", index + 1);
  chart.title = fmt::format("{}: admitted per {} window, stacked by instance", strategy.label,
                            format_duration(first.window_us));
  chart.x_label = fmt::format("time ({})", unit);
  chart.y_label = "admitted per window";
  chart.x_max = static_cast<double>(result.scenario->duration_us) / divisor_us;
  chart.bands = fault_bands(*result.scenario, divisor_us);
  if (auto band = partial_window_band(result, divisor_us)) chart.bands.push_back(*band);
  chart.markers = alert_markers(*result.scenario, strategy, divisor_us);
  std::size_t slots = 0;
  for (const auto& point : strategy.totals.series)
    slots = std::max(slots, point.admitted_by_instance.size());
  const std::vector<std::size_t> own = largest_slots(strategy, slots);
  const auto& palette = chart_palette();
  // Layers bottom to top: the largest instances in slot order, then the others together.
  std::vector<std::pair<std::string, std::vector<std::size_t>>> layers;
  std::vector<std::size_t> others;
  for (std::size_t slot = 0; slot < slots; ++slot)
    if (!std::binary_search(own.begin(), own.end(), slot)) others.push_back(slot);
  layers.reserve(own.size() + 1);
  for (const std::size_t slot : own) layers.push_back({instance_name(slot), {slot}});
  if (!others.empty())
    layers.push_back({fmt::format("{} other instances", others.size()), std::move(others)});
  // The top of the stack (the running total over every instance) first: each lower area is drawn
  // over the one above it, and the legend lists the instances top to bottom as stacked.
  for (std::size_t layer = layers.size(); layer-- > 0;) {
    ChartSeries series{layers[layer].first, palette[layer % palette.size()], {}, true, false, true};
    series.end_x = static_cast<double>(chart_end_us(result)) / divisor_us;
    for (const auto& point : strategy.totals.series) {
      if (!charted_window(result, point.start_us)) continue;
      std::int64_t total = 0;
      for (std::size_t below = 0; below <= layer; ++below)
        for (const std::size_t j : layers[below].second)
          if (j < point.admitted_by_instance.size()) total += point.admitted_by_instance[j];
      series.points.emplace_back(static_cast<double>(point.start_us) / divisor_us,
                                 static_cast<double>(total));
    }
    chart.series.push_back(std::move(series));
  }
  return chart;
}

// The p99 of the latency each strategy added, per window (the lesson's alert watches the p99;
// the p50 over the run is in the summary table).
Chart latency_chart(const RunResult& result, double divisor_us, const std::string& unit) {
  const Limit& first = result.scenario->limits.front();
  Chart chart;
  chart.id = "latency";
  chart.title =
      fmt::format("Latency the limiter added: p99 per {} window", format_duration(first.window_us));
  chart.x_label = fmt::format("time ({})", unit);
  chart.y_label = "microseconds";
  chart.x_max = static_cast<double>(result.scenario->duration_us) / divisor_us;
  chart.bands = fault_bands(*result.scenario, divisor_us);
  if (auto band = partial_window_band(result, divisor_us)) chart.bands.push_back(*band);
  const auto& palette = chart_palette();
  for (std::size_t i = 0; i < result.strategies.size(); ++i) {
    const StrategyResult& strategy = result.strategies[i];
    ChartSeries p99{strategy.label + " p99", palette[i % palette.size()], {}, true, false};
    p99.end_x = static_cast<double>(chart_end_us(result)) / divisor_us;
    for (const auto& point : strategy.totals.series) {
      if (!charted_window(result, point.start_us)) continue;
      p99.points.emplace_back(static_cast<double>(point.start_us) / divisor_us,
                              static_cast<double>(point.latency_p99_us));
    }
    chart.series.push_back(std::move(p99));
  }
  return chart;
}

}  // namespace

void append_detail_charts(const RunResult& result, double divisor_us, const std::string& unit,
                          std::vector<Chart>& charts) {
  if (result.strategies.empty()) return;
  charts.push_back(latency_chart(result, divisor_us, unit));
  for (std::size_t i = 0; i < result.strategies.size(); ++i)
    charts.push_back(stacked_by_instance(result, i, divisor_us, unit));
}

}  // namespace rlsim
