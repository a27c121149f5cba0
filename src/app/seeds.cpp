#include "app/seeds.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>

#include "app/baseline.h"
#include "app/interrupt.h"
#include "app/parallel.h"
#include "app/report_files.h"
#include "engine/commands.h"
#include "engine/expect.h"

namespace rlsim {

using nlohmann::ordered_json;

std::vector<GridOutcome> run_grid(const std::vector<GridJob>& jobs, unsigned threads, bool twice) {
  std::vector<GridOutcome> outcomes(jobs.size());
  run_parallel(jobs.size(), threads, [&](std::size_t i) {
    const GridJob& job = jobs[i];
    GridOutcome& outcome = outcomes[i];
    if (stop_requested()) {  // Ctrl-C: the jobs not started yet are not run
      outcome.state = GridOutcome::State::kNotRun;
      return;
    }
    StrategyResult result =
        run_strategy_checked(*job.scenario, *job.strategy, job.seed, twice, outcome.divergence);
    if (result.stopped_at_us) outcome.state = GridOutcome::State::kCut;
    outcome.report = strategy_report(*job.scenario, job.seed, result);
    if (job.keep_result) {
      outcome.result = std::move(result);
    } else {
      outcome.report.erase("series");  // not summarised; the biggest part of a long run's report
    }
  });
  return outcomes;
}

std::optional<GridPartial> grid_partial(const std::vector<GridOutcome>& outcomes) {
  GridPartial partial;
  partial.reason = "SIGINT";
  partial.runs = outcomes.size();
  for (const GridOutcome& outcome : outcomes) {
    partial.cut += outcome.state == GridOutcome::State::kCut;
    partial.not_run += outcome.state == GridOutcome::State::kNotRun;
  }
  if (partial.cut + partial.not_run == 0) return std::nullopt;
  partial.complete = partial.runs - partial.cut - partial.not_run;
  return partial;
}

ordered_json grid_partial_json(const GridPartial& partial) {
  return {{"reason", partial.reason},
          {"runs", partial.runs},
          {"complete", partial.complete},
          {"cut", partial.cut},
          {"not_run", partial.not_run}};
}

std::string grid_partial_notice(const std::optional<GridPartial>& partial) {
  if (!partial) return "";
  return fmt::format(
      "PARTIAL: stopped by {}: {} of {} runs complete, {} cut short and {} not started are left "
      "out; the figures cover the complete runs only",
      partial->reason, partial->complete, partial->runs, partial->cut, partial->not_run);
}

std::vector<std::uint64_t> seed_range(std::uint64_t first, std::uint64_t count) {
  if (count > 0 && first > std::numeric_limits<std::uint64_t>::max() - (count - 1))
    throw ScenarioError(
        fmt::format("--seeds {}: seed {} + {} is beyond 2^64-1", count, first, count - 1));
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t k = 0; k < count; ++k) seeds.push_back(first + k);
  return seeds;
}

double nearest_rank(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

std::vector<MetricSummary> summarize_metrics(const std::vector<ordered_json>& reports) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<double>> values;
  for (const auto& report : reports) {
    std::vector<std::pair<std::string, double>> leaves;
    numeric_leaves(report, "", leaves);
    for (const auto& [path, value] : leaves) {
      auto [it, inserted] = values.try_emplace(path);
      if (inserted) order.push_back(path);
      it->second.push_back(value);
    }
  }
  std::vector<MetricSummary> out;
  for (const std::string& path : order) {
    std::vector<double> sorted = values[path];
    MetricSummary summary;
    summary.path = path;
    summary.runs = sorted.size();
    double sum = 0;
    for (double v : sorted) sum += v;  // seed order: the same sum on every machine
    summary.mean = sum / static_cast<double>(sorted.size());
    std::sort(sorted.begin(), sorted.end());
    summary.p5 = nearest_rank(sorted, 0.05);
    summary.p95 = nearest_rank(sorted, 0.95);
    summary.min = sorted.front();
    summary.max = sorted.back();
    out.push_back(summary);
  }
  return out;
}

namespace {

double significant6(double value) {
  return std::strtod(fmt::format("{:.6g}", value).c_str(), nullptr);
}

// Counts as integers, large values without an exponent, small ones with 4 significant digits.
std::string short_number(double value) {
  if (std::fabs(value) < 1e15 && value == std::floor(value)) return fmt::format("{:.0f}", value);
  if (std::fabs(value) >= 100) return fmt::format("{:.1f}", value);
  return fmt::format("{:.4g}", value);
}

}  // namespace

const MetricSummary* find_summary(const std::vector<MetricSummary>& summaries,
                                  const std::string& path) {
  for (const auto& s : summaries)
    if (s.path == path) return &s;
  return nullptr;
}

ordered_json summary_json(const MetricSummary& summary) {
  return {{"mean", significant6(summary.mean)}, {"p5", significant6(summary.p5)},
          {"p95", significant6(summary.p95)},   {"min", significant6(summary.min)},
          {"max", significant6(summary.max)},   {"runs", summary.runs}};
}

std::string format_spread(const MetricSummary& summary) {
  if (summary.p5 == summary.p95 && summary.mean == summary.p5) return short_number(summary.mean);
  return fmt::format("{} [{} .. {}]", short_number(summary.mean), short_number(summary.p5),
                     short_number(summary.p95));
}

const std::vector<std::string>& headline_metrics() {
  static const std::vector<std::string> metrics = {
      "allowed",        "overshoot",     "rolling_overshoot",
      "excess",         "false_denials", "redis_round_trips_per_request",
      "latency_us.p50", "latency_us.p99"};
  return metrics;
}

ordered_json summary_head_json(const std::string& scenario, const std::vector<std::uint64_t>& seeds,
                               const std::optional<GridPartial>& partial) {
  ordered_json out;
  out["scenario"] = scenario;
  out["seeds"] = seeds;
  if (partial) out["partial"] = grid_partial_json(*partial);
  return out;
}

ordered_json strategy_summary_json(const std::string& label,
                                   const std::vector<MetricSummary>& summaries) {
  ordered_json metrics = ordered_json::object();
  for (const auto& summary : summaries) metrics[summary.path] = summary_json(summary);
  return {{"label", label}, {"metrics", metrics}};
}

ordered_json seeds_json(const SeedReport& report) {
  ordered_json out = summary_head_json(report.scenario, report.seeds, report.partial);
  ordered_json strategies = ordered_json::array();
  for (const auto& [label, reports] : report.strategies)
    strategies.push_back(strategy_summary_json(label, summarize_metrics(reports)));
  out["strategies"] = strategies;
  return out;
}

std::string seeds_table(const SeedReport& report) {
  std::string out = fmt::format("\nover {} seeds ({}..{}): mean [p5 .. p95]\n", report.seeds.size(),
                                report.seeds.front(), report.seeds.back());
  if (report.partial) out += grid_partial_notice(report.partial) + "\n";
  for (const auto& [label, reports] : report.strategies) {
    const auto summaries = summarize_metrics(reports);
    out += label + (reports.empty() ? " (no complete run)\n" : "\n");
    for (const std::string& path : headline_metrics()) {
      if (const MetricSummary* s = find_summary(summaries, path))
        out += fmt::format("  {:<31} {}\n", path, format_spread(*s));
    }
  }
  return out;
}

std::string seeds_markdown(const SeedReport& report, const std::string& reproduce) {
  std::string out =
      fmt::format("# rlsim: {}, {} seeds\n\nseeds {}..{}; reproduce with `{}`\n\n", report.scenario,
                  report.seeds.size(), report.seeds.front(), report.seeds.back(), reproduce);
  out +=
      "Every numeric metric of the report over the seeds: the mean, and the 5th and 95th "
      "percentiles (nearest rank). Definitions: docs/metrics.md.\n";
  if (report.partial) out += "\n**" + grid_partial_notice(report.partial) + "**\n";
  for (const auto& [label, reports] : report.strategies) {
    out += fmt::format(
        "\n## {}\n\n| metric | mean | p5 | p95 | min | max |\n|---|--:|--:|--:|--:|--:|\n", label);
    for (const auto& s : summarize_metrics(reports)) {
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", s.path, short_number(s.mean),
                         short_number(s.p5), short_number(s.p95), short_number(s.min),
                         short_number(s.max));
    }
  }
  return out;
}

SeedReport run_seeds(const Scenario& scenario, const std::vector<ResolvedStrategy>& strategies,
                     const std::vector<std::uint64_t>& seeds, unsigned threads, bool twice,
                     std::vector<StrategyResult>& first, std::string& divergence) {
  std::vector<GridJob> jobs;
  for (const auto& strategy : strategies)
    for (std::size_t s = 0; s < seeds.size(); ++s)
      jobs.push_back({&scenario, &strategy, seeds[s], s == 0});
  std::vector<GridOutcome> outcomes = run_grid(jobs, threads, twice);
  SeedReport report;
  report.scenario = scenario.name;
  report.seeds = seeds;
  report.partial = grid_partial(outcomes);
  divergence.clear();
  std::size_t next = 0;
  for (const auto& strategy : strategies) {
    std::vector<ordered_json> reports;
    for (std::size_t s = 0; s < seeds.size(); ++s) {
      GridOutcome& outcome = outcomes[next++];
      if (divergence.empty() && !outcome.divergence.empty())
        divergence = fmt::format("strategy {} with seed {}: {}", strategy.label, seeds[s],
                                 outcome.divergence);
      // A cut first seed still goes to the ordinary report (marked partial there).
      if (s == 0 && outcome.result) first.push_back(std::move(*outcome.result));
      if (outcome.state != GridOutcome::State::kComplete) continue;
      outcome.report.erase("series");
      reports.push_back(std::move(outcome.report));
    }
    report.strategies.emplace_back(strategy.label, std::move(reports));
  }
  return report;
}

std::optional<std::string> write_seed_files(const SeedReport& report, const std::string& dir,
                                            const std::string& reproduce) {
  for (const auto& [name, text] :
       {std::pair<std::string, std::string>{"seeds.json", seeds_json(report).dump(2) + "\n"},
        {"seeds.md", seeds_markdown(report, reproduce)}}) {
    if (auto error = write_file(std::filesystem::path(dir) / name, text)) return error;
  }
  return std::nullopt;
}

}  // namespace rlsim
