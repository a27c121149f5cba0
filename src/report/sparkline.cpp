#include "report/sparkline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/rounding.h"

namespace rlsim {

std::string sparkline(const std::vector<double>& values, double top, std::size_t width) {
  static const char* const kBlocks[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                        "\u2585", "\u2586", "\u2587", "\u2588"};
  std::string out;
  if (values.empty() || width == 0) return out;
  const std::size_t cells = std::min(width, values.size());
  for (std::size_t c = 0; c < cells; ++c) {
    const std::size_t from = c * values.size() / cells;
    const std::size_t to = (c + 1) * values.size() / cells;
    double sum = 0;
    for (std::size_t i = from; i < to; ++i) sum += values[i];
    const double mean = sum / static_cast<double>(to - from);
    const double level = top <= 0 ? 0 : std::clamp(mean / top, 0.0, 1.0);
    out += kBlocks[static_cast<std::size_t>(std::lround(level * 7))];
  }
  return out;
}

std::size_t label_column_width(const RunResult& result) {
  std::size_t width = 22;
  for (const auto& strategy : result.strategies) {
    // UTF-8: every byte but a continuation byte (10xxxxxx) starts a code point.
    const auto points = std::count_if(strategy.label.begin(), strategy.label.end(), [](char c) {
      return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    });
    width = std::max(width, static_cast<std::size_t>(points));
  }
  return width;
}

std::string strategy_lines(const RunResult& result, bool color) {
  // 22 (labels) + 30 + the verdict: 120 columns (docs/cli.md#the-table).
  constexpr std::size_t kWidth = 30;
  double top = 0;
  for (const auto& strategy : result.strategies)
    for (const auto& point : strategy.totals.series)
      top = std::max(top, static_cast<double>(point.admitted));
  const Scenario& scenario = *result.scenario;
  std::string out = fmt::format("\nadmitted per {} window (one scale, top {:.0f}), and verdicts\n",
                                format_duration(scenario.limits.front().window_us), top);
  const std::size_t label_width = label_column_width(result);
  for (const auto& strategy : result.strategies) {
    std::vector<double> admitted;
    for (const auto& point : strategy.totals.series)
      admitted.push_back(static_cast<double>(point.admitted));
    // The worst limit decides the verdict.
    const LimitMetrics* worst = nullptr;
    std::size_t worst_index = 0;
    for (std::size_t i = 0; i < strategy.totals.limits.size(); ++i) {
      if (worst == nullptr || strategy.totals.limits[i].overshoot > worst->overshoot) {
        worst = &strategy.totals.limits[i];
        worst_index = i;
      }
    }
    std::string text = verdict(worst == nullptr ? 0 : worst->overshoot);
    if (color)
      text = fmt::format("\033[{}m{}\033[0m",
                         worst != nullptr && !holds_limit(worst->overshoot) ? "31" : "32", text);
    // The worst limit's figures, as the table and report.json have them (its false denials and
    // Redis round trips are columns of the table).
    std::string detail;
    if (worst != nullptr) {
      const Limit& limit = scenario.limits[worst_index];
      detail = fmt::format(" ({} for one {} in a {} window, limit {})", worst->max_in_window,
                           to_string(limit.key), format_duration(limit.window_us), limit.limit);
    }
    const std::string spark = sparkline(admitted, top, kWidth);
    out += fmt::format("{:<{}} {}{} {}{}\n", strategy.label, label_width, spark,
                       std::string(kWidth - std::min(kWidth, admitted.size()), ' '), text, detail);
  }
  return out;
}

}  // namespace rlsim
