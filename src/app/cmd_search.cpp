// `rlsim search`: the worst case on demand (docs/search.md). Its options, the wall-clock budget,
// the progress line and the files; the search itself is src/search/, each candidate one ordinary
// run of the engine, run side by side on the sweep's thread pool (app/parallel.h).
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/exit_codes.h"
#include "app/parallel.h"
#include "app/report_files.h"
#include "app/scenario_settings.h"
#include "app/search_files.h"
#include "app/search_shard.h"
#include "app/subcommand.h"
#include "app/sweep.h"
#include "core/file_text.h"
#include "core/sha1.h"
#include "engine/commands.h"
#include "engine/expect.h"
#include "engine/stop.h"
#include "report/svg_chart.h"
#include "scenario/load.h"
#include "search/search_report.h"
#include "search/shard.h"

namespace rlsim {

namespace {

struct SearchOptions {
  std::string scenario_path;
  std::string label;
  std::string maximize, minimize;
  std::string budget = "2000";  // runs, or a wall time ("60s")
  std::optional<std::uint64_t> seed;
  unsigned jobs = 0;
  std::string out_dir;
  std::vector<std::string> sets;
  std::vector<std::string> vary;  // --vary PATH=LO..HI or PATH=A|B|C (search/dimension.h)
  double keep_share = 0.95;
  bool paced = false;
  std::string shard;       // --shard K/N (app/search_shard.h)
  std::string goal, over;  // goal seeking: "overshoot<=1.1", "strategies[0].sync_rate=20ms..2s"
};

// --budget: a number of runs ("2000"), or a duration of wall time ("60s", "2m").
struct Budget {
  std::uint64_t runs = 0;
  std::optional<std::chrono::microseconds> wall;
};

Budget parse_budget(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos &&
      text.size() <= 9) {
    const std::uint64_t runs = std::stoull(text);
    if (runs > 0) return {runs, std::nullopt};
  }
  const auto wall_us = parse_duration(text);
  if (!wall_us || *wall_us <= 0)
    throw ScenarioError(fmt::format(
        "--budget {}: expected a number of runs (2000) or a wall time (60s, 2m)", text));
  // A time budget still has a run bound, so that a search never runs unbounded.
  return {100'000'000, std::chrono::microseconds(*wall_us)};
}

nlohmann::ordered_json load_document(const SearchOptions& options) {
  load_scenario(options.scenario_path);  // the file's own errors first, as load_scenario words them
  auto document = nlohmann::ordered_json::parse(
      read_regular_file(options.scenario_path, kMaxScenarioFileBytes).text, nullptr, true,
      /*ignore_comments=*/true);
  for (const ScenarioSetting& setting : parse_settings(options.sets))
    apply_setting(document, setting.path, setting.value);
  return document;
}

// The progress line on stderr: rewritten in place on a terminal (at most 10 times a second),
// a line every 5 s otherwise.
class Progress {
 public:
  Progress() : tty_(::isatty(STDERR_FILENO) != 0), start_(Clock::now()), last_(start_) {}
  double elapsed_s() const { return seconds(Clock::now() - start_); }
  void show(const SearchProgress& p, bool last = false) {
    const auto now = Clock::now();
    const double since_s = seconds(now - last_);
    if (!last && since_s < (tty_ ? 0.1 : 5.0)) return;
    last_ = now;
    const double elapsed = seconds(now - start_);
    std::fprintf(stderr, "%ssearch: best %s, %llu runs, %.0f runs/s, %llu restarts%s",
                 tty_ ? "\r" : "", format_number(p.best).c_str(),
                 static_cast<unsigned long long>(p.runs), elapsed > 0 ? p.runs / elapsed : 0.0,
                 static_cast<unsigned long long>(p.restarts), tty_ && !last ? "   " : "\n");
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
  bool tty_;
  Clock::time_point start_, last_;
};

std::string reproduce_command(const SearchOptions& options, const SearchProblem& problem) {
  std::string out = "rlsim search " + shell_quote(options.scenario_path) + " --strategy " +
                    shell_quote(options.label) +
                    (problem.maximize ? " --maximize " : " --minimize ") +
                    shell_quote(problem.metric) + " --budget " + shell_quote(options.budget) +
                    " --seed " + std::to_string(problem.seed);
  for (const std::string& set : options.sets) out += " --set " + shell_quote(set);
  for (const std::string& vary : options.vary) out += " --vary " + shell_quote(vary);
  if (options.paced) out += " --paced";
  return out;
}

int write_goal_files(const std::filesystem::path& dir, const Goal& goal, const GoalRange& range,
                     const GoalOutcome& outcome, const std::string& label) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  const std::pair<const char*, std::string> files[] = {
      {"search.json", goal_json(goal, range, outcome).dump(2) + "\n"},
      {"search.md", goal_markdown(goal, range, outcome, label)},
      {"goal-curve.svg", render_svg(goal_chart(goal, range, outcome))}};
  for (const auto& [name, text] : files) {
    if (const auto failed = write_file(dir / name, text)) {
      std::cerr << "rlsim: " << *failed << "\n";
      return exit_code::kOutputError;
    }
  }
  return exit_code::kOk;
}

// --goal METRIC<=X --over PATH=LO..HI: exit 0 when a value meets the goal, 1 when none does.
int command_goal(const SearchOptions& options, const SearchSettings& search) {
  if (options.over.empty()) throw ScenarioError("search: --goal needs --over PATH=LO..HI");
  const Goal goal = parse_goal(options.goal);
  const GoalRange range = parse_over(options.over);
  const auto document = load_document(options);
  const unsigned jobs = options.jobs == 0 ? default_jobs() : options.jobs;
  GoalSettings settings;
  settings.search = search;
  settings.search.stop = [](const SearchProgress&) { return stop_requested(); };
  settings.paced = options.paced;
  settings.vary = options.vary;
  GoalOutcome outcome;
  try {
    outcome =
        seek_goal(document, options.scenario_path, options.label, search.seed, goal, range,
                  settings, [jobs](std::size_t count, const std::function<void(std::size_t)>& job) {
                    run_parallel(count, jobs, job);
                  });
  } catch (const RunCut&) {
    throw Interrupted("interrupted: goal seeking stopped before a value was verified");
  }
  std::cout << goal_summary(goal, range, outcome);
  const std::string name = document.value("name", std::string("scenario"));
  const auto dir = report_dir(options.out_dir, name, "-goal");
  if (const int code = write_goal_files(dir, goal, range, outcome, options.label); code != 0)
    return code;
  std::cout << "wrote " << (dir / "search.md").string() << "\n";
  return outcome.met ? exit_code::kOk : exit_code::kCheckFailed;
}

// --shard K/N: the shard's best, unshrunk, as search-shard-K-of-N.json; `rlsim merge` shrinks.
int write_shard(const SearchOptions& options, const SearchProblem& problem, const SweepShard& shard,
                std::uint64_t search_seed, const SearchOutcome& outcome) {
  SearchShardIdentity id;
  id.scenario_file = options.scenario_path;
  id.scenario_sha1 = sha1_hex(read_regular_file(options.scenario_path, kMaxScenarioFileBytes).text);
  id.document = problem.document;
  id.label = options.label;
  id.metric = problem.metric;
  id.maximize = problem.maximize;
  id.paced = options.paced;
  id.vary = options.vary;
  id.seed = problem.seed;
  id.budget_runs = parse_budget(options.budget).runs;
  id.shards = shard.count;
  id.keep_share = options.keep_share;
  id.reproduce = reproduce_command(options, problem);
  std::cout << fmt::format("shard {}/{}: {} {} after {} runs (from {})\n", shard.index, shard.count,
                           problem.metric, format_number(outcome.best_value), outcome.runs,
                           outcome.best_origin);
  const auto dir = report_dir(options.out_dir, problem.scenario.name, "-search");
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  const auto file = dir / search_shard_name(shard.index, shard.count);
  if (const auto failed =
          write_file(file, search_shard_text(id, shard.index, search_seed, outcome))) {
    std::cerr << "rlsim: " << *failed << "\n";
    return exit_code::kOutputError;
  }
  std::cout << "wrote " << file.string() << " (rlsim merge joins the " << shard.count
            << " shards)\n";
  return stop_requested() ? exit_code::kInterrupted : exit_code::kOk;
}

int command_search(const SearchOptions& options) {
  if (!options.goal.empty()) {
    if (!options.shard.empty()) throw ScenarioError("search: --shard does not go with --goal");
    SearchSettings search;
    const Budget budget = parse_budget(options.budget);
    if (budget.wall) throw ScenarioError("search: --goal takes a budget of runs per search (2000)");
    search.budget_runs = budget.runs;
    const auto document = load_document(options);
    search.seed = options.seed.value_or(
        document.contains("seed") ? document["seed"].get<std::uint64_t>() : 1);
    return command_goal(options, search);
  }
  if (options.maximize.empty() == options.minimize.empty())
    throw ScenarioError("search: give one of --maximize METRIC and --minimize METRIC");
  const Budget budget = parse_budget(options.budget);
  const auto document = load_document(options);
  const bool maximize = !options.maximize.empty();
  const std::uint64_t seed =
      options.seed.value_or(document.contains("seed") ? document["seed"].get<std::uint64_t>() : 1);
  const SearchProblem problem = make_problem(document, options.scenario_path, options.label,
                                             maximize ? options.maximize : options.minimize,
                                             maximize, seed, options.paced, options.vary);
  const unsigned jobs = options.jobs == 0 ? default_jobs() : options.jobs;
  const RunJobs run_jobs = [jobs](std::size_t count, const std::function<void(std::size_t)>& job) {
    run_parallel(count, jobs, job);
  };
  Progress progress;
  SearchSettings settings;
  settings.budget_runs = budget.runs;
  settings.seed = seed;
  settings.stop = [&](const SearchProgress& p) {
    progress.show(p);
    return stop_requested() ||
           (budget.wall && progress.elapsed_s() * 1e6 >= static_cast<double>(budget.wall->count()));
  };
  std::optional<SweepShard> shard;
  if (!options.shard.empty()) {
    shard = parse_shard(options.shard);
    if (budget.wall) throw ScenarioError("search: --shard takes a budget of runs (2000)");
    settings.seed = shard_search_seed(seed, shard->index);
    settings.skip_starts = shard->index > 1;
  }
  const SearchOutcome outcome = run_search(problem, settings, run_jobs);
  progress.show({outcome.runs, outcome.best_value, outcome.restarts}, true);
  if (shard) return write_shard(options, problem, *shard, settings.seed, outcome);
  const double search_s = progress.elapsed_s();
  const auto dir = report_dir(options.out_dir, problem.scenario.name, "-search");
  const int code = shrink_and_write(
      problem, settings, outcome, options.keep_share, run_jobs, dir,
      reproduce_command(options, problem), [&] {
        return fmt::format("{} runs in {:.1f} s ({:.0f} runs/s, {} jobs), shrinking {:.1f} s\n",
                           outcome.runs, search_s, outcome.runs / std::max(search_s, 1e-9), jobs,
                           progress.elapsed_s() - search_s);
      });
  if (code != 0) return code;
  // Ctrl-C: the best so far is written (unshrunk: the shrinker's runs were cut too).
  return stop_requested() ? exit_code::kInterrupted : exit_code::kOk;
}

}  // namespace

Subcommand search_subcommand() {
  return {
      "search",
      "Find the traffic and fault timing that push a strategy furthest, shrink it, pin it",
      [](CLI::App& cli) -> CommandRun {
        auto options = std::make_shared<SearchOptions>();
        cli.add_option("scenario", options->scenario_path, "Scenario file (JSON)")->required();
        cli.add_option("--strategy", options->label, "The strategy's label")->required();
        cli.add_option("--maximize", options->maximize,
                       "Report metric to push up (an expect path: overshoot, rolling_overshoot, "
                       "excess, false_denials, latency_us.p99, redis_commands_per_request)");
        cli.add_option("--minimize", options->minimize, "Report metric to push down");
        cli.add_option("--budget", options->budget,
                       "Runs (2000, deterministic) or wall time (60s: depends on the machine)");
        cli.add_option("--seed", options->seed,
                       "Seed of every run and of the search (default: the scenario's)")
            ->check(uint64_validator());
        cli.add_option("--jobs", options->jobs, "Worker threads (default: one per core)")
            ->check(CLI::Range(1u, 256u));
        cli.add_option("--keep", options->keep_share,
                       "Share of the value the shrunk case keeps (default 0.95)")
            ->check(CLI::Range(0.0, 1.0));
        cli.add_option("--out", options->out_dir,
                       "Directory for scenario.json, requests.csv, search.json, search.md and "
                       "trajectory.svg (default: reports/<scenario name>-search)");
        cli.add_flag("--paced", options->paced,
                     "The budget as a steady rate: requests at least 1/rate apart, no bursts");
        cli.add_option("--goal", options->goal,
                       "METRIC<=X or METRIC>=X: find a value of --over's field meeting it under "
                       "the worst case found (--budget is per worst-case search)");
        cli.add_option("--over", options->over,
                       "PATH=LO..HI: the field goal seeking varies (numbers or durations)");
        cli.add_option("--vary", options->vary,
                       "PATH=LO..HI or PATH=A|B|C: a dimension of the search space (repeatable; "
                       "--set's paths: instances.count, faults[0].at, strategies[0].sync_rate, "
                       "load_balancer.policy)");
        cli.add_option("--shard", options->shard,
                       "K/N: run the search from shard K's own seed and write "
                       "search-shard-K-of-N.json into --out; `rlsim merge` picks the best of the "
                       "N, shrinks it and writes the files");
        add_set_option(cli, options->sets);
        return run_watching_sigint(options, command_search);
      }};
}

}  // namespace rlsim
