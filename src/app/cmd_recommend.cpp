// `rlsim recommend`: limits recommended from a replay group's log (docs/cli.md#recommend): each
// key's peak requests per window of the chosen limit, and for candidate limits how many keys and
// requests each would deny; the recommendation is the smallest limit that denies no key at or
// below the given percentile of peaks.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/exit_codes.h"
#include "app/recommend.h"
#include "app/scenario_settings.h"
#include "app/subcommand.h"
#include "engine/run.h"
#include "logs/log_reader.h"
#include "report/svg_chart.h"
#include "scenario/error.h"

namespace rlsim {

namespace {

struct RecommendOptions {
  std::string path;
  std::vector<std::string> sets;
  std::string limit_name;  // "": the first limit
  double percentile = 99;
  std::string chart_path;  // "": no chart
};

std::string_view key_of(const LogLine& line, LimitKey key) {
  switch (key) {
    case LimitKey::kUser:
      return line.value(LogSlot::kUser);
    case LimitKey::kIp:
      return line.value(LogSlot::kIp);
    case LimitKey::kEndpoint:
      return line.value(LogSlot::kEndpoint);
    case LimitKey::kGlobal:
      break;
  }
  return "all";
}

// Counts the group's log, its `from` / `to` window applied as the replay applies them.
void count_log(const Scenario& scenario, const ReplaySpec& replay, LimitKey key,
               KeyRateCounter& counter, std::uint64_t& bad_lines) {
  std::string error;
  auto parser = make_line_parser(replay.log, error);
  if (!parser) throw ScenarioError(fmt::format("{}: {}", replay.file, error));
  if (!scenario.open_log) throw ScenarioError("no way to open the replay's log");
  auto stream = scenario.open_log(replay.file, error);
  if (!stream) throw ScenarioError(fmt::format("cannot open {}: {}", replay.file, error));
  LogReader reader(std::move(stream), std::move(parser), replay.max_bad_lines);
  if (!reader.start()) throw ScenarioError(fmt::format("{}: {}", replay.file, reader.failure()));
  LogLine line;
  std::optional<std::int64_t> first_us;
  while (reader.next(line)) {
    if (!first_us) first_us = line.time_us;
    const std::int64_t from_us = replay.from_log_us.value_or(*first_us + replay.from_offset_us);
    if (line.time_us < from_us) continue;
    if (replay.to_log_us && line.time_us >= *replay.to_log_us) break;
    if (replay.to_offset_us && line.time_us >= *first_us + *replay.to_offset_us) break;
    counter.add(std::string(key_of(line, key)), line.time_us);
  }
  if (!reader.failure().empty())
    throw ScenarioError(fmt::format("{}: {}", replay.file, reader.failure()));
  bad_lines = reader.bad_lines();
  counter.finish();
}

const Limit& chosen_limit(const Scenario& scenario, const std::string& name) {
  for (const Limit& limit : scenario.limits)
    if (name.empty() || limit.name == name) return limit;
  throw ScenarioError(fmt::format("--limit: the scenario has no limit \"{}\"", name));
}

void print_table(const KeyRateCounter& counter, const std::vector<std::int64_t>& limits) {
  std::cout << fmt::format("{:>8} {:>10} {:>7} {:>14} {:>11} {:>14}\n", "limit", "keys over",
                           "% keys", "requests over", "% requests", "heaviest over");
  for (const std::int64_t limit : limits) {
    const LimitCandidate c = counter.candidate(limit);
    std::cout << fmt::format(
        "{:>8} {:>10} {:>6.1f}% {:>14} {:>10.1f}% {:>14}\n", c.limit, c.keys_over,
        100.0 * static_cast<double>(c.keys_over) / static_cast<double>(counter.keys()),
        c.requests_over,
        100.0 * static_cast<double>(c.requests_over) / static_cast<double>(counter.requests()),
        c.heavy_keys_over);
  }
}

// Each strategy of the scenario run at each of `limits` for the limit at `limit_index`, with the
// scenario's instances, faults and seed (exactly `rlsim run --set 'limits[I].limit=L'`): what it
// admits, how far past L one key got in a window, and the requests it denied that the ideal
// limiter of L admits. The recommendation's consequences beside the traffic's own counts.
void print_strategy_table(const RecommendOptions& options, std::size_t limit_index,
                          const std::vector<std::int64_t>& limits) {
  std::cout << fmt::format(
      "\nwhat each strategy does at each limit (this scenario's instances, faults and seed):\n"
      "{:>8}  {:<24} {:>10} {:>10} {:>14}\n",
      "limit", "strategy", "admitted", "overshoot", "false denials");
  for (const std::int64_t limit : limits) {
    std::vector<std::string> sets = options.sets;
    sets.push_back(fmt::format("limits[{}].limit={}", limit_index, limit));
    const Scenario scenario = load_scenario_with(options.path, parse_settings(sets));
    bool first = true;
    for (const ResolvedStrategy& strategy : resolve_strategies(scenario, options.path)) {
      const StrategyResult result = run_strategy(scenario, strategy, scenario.seed);
      const LimitMetrics& metrics = result.totals.limits.at(limit_index);
      std::cout << fmt::format("{:>8}  {:<24} {:>10} {:>9.2f}x {:>14}\n",
                               first ? std::to_string(limit) : "", result.label,
                               result.totals.allowed, metrics.overshoot, metrics.false_denials);
      first = false;
    }
  }
}

// The share of keys and of requests over each limit from 0 to the largest peak (at most about 200
// points), the recommended limit marked: what a reader scans for the knee.
std::string recommend_chart(const KeyRateCounter& counter, std::int64_t recommended) {
  Chart chart;
  chart.id = "recommend";
  chart.title = "Over each candidate limit";
  chart.x_label = "limit (requests per window)";
  chart.y_label = "% over";
  ChartSeries keys{"keys over", chart_palette()[0], {}};
  ChartSeries requests{"requests over", chart_palette()[1], {}};
  const std::int64_t max_peak = counter.peak_percentile(100);
  const std::int64_t step = std::max<std::int64_t>(1, max_peak / 200);
  for (std::int64_t limit = 0; limit <= max_peak + step; limit += step) {
    const auto [keys_over, requests_over] = counter.over(limit);
    const auto x = static_cast<double>(limit);
    keys.points.emplace_back(
        x, 100.0 * static_cast<double>(keys_over) / static_cast<double>(counter.keys()));
    requests.points.emplace_back(
        x, 100.0 * static_cast<double>(requests_over) / static_cast<double>(counter.requests()));
  }
  chart.series = {keys, requests};
  chart.markers.push_back(ChartMarker{static_cast<double>(recommended), std::nullopt,
                                      fmt::format("recommended {}", recommended),
                                      fmt::format("recommended limit {}", recommended)});
  return render_svg(chart);
}

// False when the file could not be written.
bool write_chart(const std::string& path, const std::string& svg) {
  std::ofstream out(path, std::ios::binary);
  out << svg;
  return static_cast<bool>(out.flush());
}

int command_recommend(const RecommendOptions& options) {
  const Scenario scenario = load_scenario_with(options.path, parse_settings(options.sets));
  const TrafficGroup* group = nullptr;
  for (const TrafficGroup& g : scenario.traffic)
    if (g.replay && group == nullptr) group = &g;
  if (group == nullptr) throw ScenarioError("recommend needs a traffic group with replay");
  const Limit& limit = chosen_limit(scenario, options.limit_name);
  KeyRateCounter counter(limit.window_us);
  std::uint64_t bad_lines = 0;
  count_log(scenario, *group->replay, limit.key, counter, bad_lines);
  if (counter.requests() == 0) throw ScenarioError("the log has no request in the replay window");
  std::cout << fmt::format(
      "recommend: {} per {} per {} (limit {}), group {}: {} requests, {} keys, {} malformed "
      "lines\npeak requests per window per key: p50 {}, p90 {}, p99 {}, max {}\n\n",
      limit.limit, format_duration(limit.window_us), to_string(limit.key), limit.name, group->name,
      counter.requests(), counter.keys(), bad_lines, counter.peak_percentile(50),
      counter.peak_percentile(90), counter.peak_percentile(99), counter.peak_percentile(100));
  std::vector<std::int64_t> limits = counter.candidate_limits(limit.limit);
  print_table(counter, limits);
  const std::int64_t recommended = counter.peak_percentile(options.percentile);
  if (std::find(limits.begin(), limits.end(), recommended) == limits.end()) {
    limits.insert(std::upper_bound(limits.begin(), limits.end(), recommended), recommended);
  }
  const auto limit_index = static_cast<std::size_t>(&limit - scenario.limits.data());
  print_strategy_table(options, limit_index, limits);
  const LimitCandidate c = counter.candidate(recommended);
  std::cout << fmt::format(
      "\nrecommended: {} per {} (the smallest limit that denies no key at or below the {}th "
      "percentile of peaks): {} keys over it, {} requests over it\nthe whole report at it: "
      "rlsim run {} --set 'limits[{}].limit={}'\n",
      recommended, format_duration(limit.window_us), options.percentile, c.keys_over,
      c.requests_over, options.path, limit_index, recommended);
  if (options.chart_path.empty()) return exit_code::kOk;
  if (!write_chart(options.chart_path, recommend_chart(counter, recommended))) {
    std::cerr << fmt::format("rlsim: cannot write the chart to {}\n", options.chart_path);
    return exit_code::kOutputError;
  }
  std::cout << fmt::format("chart: {}\n", options.chart_path);
  return exit_code::kOk;
}

}  // namespace

Subcommand recommend_subcommand() {
  return {"recommend", "Recommend a limit from a replayed log's per-key rates",
          [](CLI::App& cli) -> CommandRun {
            auto options = std::make_shared<RecommendOptions>();
            cli.add_option("scenario", options->path, "Scenario file with a replay group (JSON)")
                ->required();
            cli.add_option("--limit", options->limit_name,
                           "The limit whose key and window count (default: the first)");
            cli.add_option("--percentile", options->percentile,
                           "Recommend the smallest limit that denies no key at or below this "
                           "percentile of peaks (default 99)")
                ->check(CLI::Range(0.0, 100.0));
            cli.add_option("--chart", options->chart_path,
                           "Write an SVG chart of the keys and requests over each limit to FILE");
            add_set_option(cli, options->sets);
            return [options] { return command_recommend(*options); };
          }};
}

}  // namespace rlsim
