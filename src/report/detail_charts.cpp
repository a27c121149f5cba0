// The report's per-strategy detail charts: who admitted what, and what the limiter cost in time.
#include <fmt/format.h>

#include <algorithm>

#include "report/alerts.h"
#include "report/fault_report.h"
#include "report/html_report.h"

namespace rlsim {
namespace {

std::string instance_name(std::size_t slot) {
  return slot + 1 == Oracle::kMaxSeriesInstances ? fmt::format("instances {}+", slot)
                                                 : fmt::format("instance {}", slot);
}

// Admitted per window of the first limit, stacked by the instance that decided.
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
  chart.markers = alert_markers(*result.scenario, strategy, divisor_us);
  std::size_t slots = 0;
  for (const auto& point : strategy.totals.series)
    slots = std::max(slots, point.admitted_by_instance.size());
  const auto& palette = chart_palette();
  // The top of the stack (the running total over every instance) first: each lower area is drawn
  // over the one above it, and the legend lists the instances top to bottom as stacked.
  for (std::size_t slot = slots; slot-- > 0;) {
    ChartSeries series{instance_name(slot), palette[slot % palette.size()], {}, true, false, true};
    for (const auto& point : strategy.totals.series) {
      std::int64_t total = 0;
      for (std::size_t j = 0; j <= slot && j < point.admitted_by_instance.size(); ++j)
        total += point.admitted_by_instance[j];
      series.points.emplace_back(static_cast<double>(point.start_us) / divisor_us,
                                 static_cast<double>(total));
    }
    chart.series.push_back(std::move(series));
  }
  return chart;
}

// p50 (dashed) and p99 (solid) of the latency each strategy added, per window.
Chart latency_chart(const RunResult& result, double divisor_us, const std::string& unit) {
  const Limit& first = result.scenario->limits.front();
  Chart chart;
  chart.id = "latency";
  chart.title = fmt::format("Latency the limiter added, per {} window: p99 (solid), p50 (dashed)",
                            format_duration(first.window_us));
  chart.x_label = fmt::format("time ({})", unit);
  chart.y_label = "microseconds";
  chart.x_max = static_cast<double>(result.scenario->duration_us) / divisor_us;
  chart.bands = fault_bands(*result.scenario, divisor_us);
  const auto& palette = chart_palette();
  for (std::size_t i = 0; i < result.strategies.size(); ++i) {
    const StrategyResult& strategy = result.strategies[i];
    const std::string& color = palette[i % palette.size()];
    ChartSeries p99{strategy.label + " p99", color, {}, true, false};
    ChartSeries p50{strategy.label + " p50", color, {}, true, true};
    for (const auto& point : strategy.totals.series) {
      const double x = static_cast<double>(point.start_us) / divisor_us;
      p99.points.emplace_back(x, static_cast<double>(point.latency_p99_us));
      p50.points.emplace_back(x, static_cast<double>(point.latency_p50_us));
    }
    chart.series.push_back(std::move(p99));
    chart.series.push_back(std::move(p50));
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
