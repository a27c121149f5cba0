// `rlsim run`: simulates every strategy of a scenario (or --seeds of them, or --live), writes the
// report files and prints the table, the reproduce command and the expectations' verdict.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/check.h"
#include "app/exit_codes.h"
#include "app/interrupt.h"
#include "app/live.h"
#include "app/output_paths.h"
#include "app/parallel.h"
#include "app/report_files.h"
#include "app/scenario_settings.h"
#include "app/seeds.h"
#include "app/subcommand.h"
#include "app/trace.h"
#include "engine/commands.h"
#include "engine/expect.h"
#include "engine/run.h"
#include "real/backend.h"
#include "real/cluster_backend.h"
#include "report/openmetrics.h"

namespace rlsim {

namespace {

bool use_color() { return ::isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr; }

struct RunOptions {
  std::string scenario_path;
  std::vector<std::string> sets;  // --set PATH=VALUE (app/scenario_settings.h)
  std::vector<std::string> labels;
  std::optional<std::uint64_t> seed;
  bool json = false;
  std::string out_dir;
  bool check_determinism = false;
  std::uint64_t seeds = 1;    // --seeds: also summarise seeds seed..seed+N-1 (seeds.json)
  unsigned jobs = 0;          // --jobs: worker threads for --seeds (0: one per core)
  bool live = false;          // --live: paced to wall time, with a dashboard (app/live.h)
  double speed = 1.0;         // --speed: virtual seconds per wall-clock second
  std::string pause_at;       // --pause-at: a duration (checked by its validator)
  std::string redis_url;      // --redis: a real Redis instead of the embedded one
  bool real_redis = false;    // --real-redis: the scenario's redis.url or cluster_url may be used
  std::string redis_cluster;  // --redis-cluster: a real Redis Cluster
  bool keep_keys = false;
  std::string metrics_out;  // --metrics-out: the series as OpenMetrics text (report/openmetrics.h)
  std::int64_t metrics_epoch_unix_s = kDefaultMetricsEpochUnixS;  // --metrics-epoch
  TraceOptions trace;  // --trace, --trace-sample, --trace-max-mb (app/trace.h)
  std::int64_t trace_max_mb = kDefaultTraceMaxMb;
};

// The one-line verdict of the scenario's expectations for `run` (`check` gives the details), or
// "" when it has none for the strategies that ran.
std::string expectations_line(const Scenario& scenario, const nlohmann::ordered_json& report) {
  if (report.contains("partial"))
    return scenario.expectations.empty() ? "" : "expectations: not evaluated (partial report)";
  std::size_t held = 0, failed = 0, unresolved = 0;
  for (const Expectation& e : scenario.expectations) {
    bool ran = true, resolves = true;
    for (const auto& label : labels_of(e)) {
      const auto* strategy = find_strategy_report(report, label);
      std::string error;
      if (strategy == nullptr) {
        ran = false;
      } else if (!lookup_metric(*strategy, e.metric, error)) {
        resolves = false;
      }
    }
    if (!ran) continue;
    if (!resolves) {
      ++unresolved;
    } else if (evaluate(e, report).status == ExpectationOutcome::Status::kPassed) {
      ++held;
    } else {
      ++failed;
    }
  }
  if (held + failed + unresolved == 0) return "";
  return fmt::format("expectations: {} hold, {} fail{}", held, failed,
                     unresolved > 0 ? fmt::format(", {} with an unknown metric", unresolved) : "");
}

// The scenario with the command line's Redis choice applied.
Scenario load_run_scenario(const RunOptions& options) {
  Scenario scenario = load_scenario_with(options.scenario_path, parse_settings(options.sets));
  if (!options.redis_url.empty()) scenario.redis.url = options.redis_url;
  if (!options.redis_url.empty() || !options.redis_cluster.empty())
    scenario.redis.cluster_url = options.redis_cluster;
  scenario.redis.keep_keys = options.keep_keys;
  allow_scenario_redis(options.real_redis || !options.redis_url.empty() ||
                       !options.redis_cluster.empty());
  return scenario;
}

// Runs the strategies into result.strategies (with --seeds, also `seed_report`); a run stopped by
// Ctrl-C ends it early. An exit code when two runs that should agree do not (an rlsim bug: the
// report is not worth keeping).
std::optional<int> run_all(const RunOptions& options, const Scenario& scenario,
                           const std::vector<ResolvedStrategy>& strategies, RunResult& result,
                           std::optional<SeedReport>& seed_report, TraceFile* trace) {
  if (options.seeds > 1) {
    std::string divergence;
    seed_report = run_seeds(scenario, strategies, seed_range(result.seed, options.seeds),
                            options.jobs == 0 ? default_jobs() : options.jobs,
                            options.check_determinism, result.strategies, divergence);
    if (!divergence.empty()) {
      std::cerr << fmt::format("rlsim: not deterministic: two runs of {}\n", divergence);
      return exit_code::kCheckFailed;
    }
  }
  if (options.live) {
    LiveOptions live;
    live.speed = options.speed;
    live.dashboard = live.color = live.keys = use_color();  // a terminal, and no NO_COLOR
    if (!options.pause_at.empty()) live.pause_at_us = *parse_duration(options.pause_at);
    result.strategies = run_live(scenario, strategies, result.seed, live);
  } else if (!seed_report && !options.check_determinism && trace == nullptr &&
             ::isatty(STDERR_FILENO)) {
    result.strategies = run_with_progress(scenario, strategies, result.seed);
  }
  const bool already_ran = seed_report || options.live || !result.strategies.empty();
  for (const auto& strategy : strategies) {
    if (already_ran) break;
    std::string divergence;
    try {
      result.strategies.push_back(
          trace != nullptr ? run_strategy_traced(scenario, strategy, result.seed,
                                                 options.check_determinism, *trace, divergence)
                           : run_strategy_checked(scenario, strategy, result.seed,
                                                  options.check_determinism, divergence));
    } catch (const RunError& e) {
      if (result.strategies.empty()) throw;  // at the start: exit 5 without a report
      result.strategies.push_back(redis_lost_before(strategy, e));
    }
    if (result.strategies.back().stopped_at_us || result.strategies.back().redis_lost) break;
    if (!divergence.empty()) {
      std::cerr << fmt::format(
          "rlsim: not deterministic: two runs of strategy {} with seed {} differ: {}\n",
          strategy.label, result.seed, divergence);
      return exit_code::kCheckFailed;
    }
  }
  return std::nullopt;
}

// The command that reproduces this run, printed and written into the report files.
std::string reproduce_command(const RunOptions& options, const Scenario& scenario,
                              std::uint64_t seed) {
  std::string reproduce = "rlsim run " + shell_quote(options.scenario_path);
  reproduce += settings_options(scenario);
  for (const auto& label : options.labels) reproduce += " --strategy " + shell_quote(label);
  reproduce += fmt::format(" --seed {}", seed);
  if (options.real_redis) reproduce += " --real-redis";
  if (!options.redis_url.empty())
    reproduce += " --redis " + shell_quote(redis_url_display(options.redis_url));
  if (!options.redis_cluster.empty())
    reproduce += " --redis-cluster " + shell_quote(cluster_seeds_display(options.redis_cluster));
  return reproduce;
}

// The report table, where the files went, and the verdicts; returns `done_code`.
int print_run(const RunOptions& options, const Scenario& scenario, const RunResult& result,
              const std::optional<SeedReport>& seed_report, const std::filesystem::path& dir,
              const std::string& reproduce, int done_code) {
  std::cout << report_table(result, use_color());
  if (seed_report) std::cout << seeds_table(*seed_report);
  std::cout << fmt::format(
      "\nseed {}; reproduce with: {}\nreport: {} (also report.html, report.md)\n", result.seed,
      reproduce, (dir / "report.json").string());
  if (seed_report)
    std::cout << fmt::format("seeds: {} (also seeds.md)\n", (dir / "seeds.json").string());
  if (options.check_determinism && !result.partial)
    std::cout << "determinism: ok (every strategy ran twice: same decisions, same report)\n";
  const std::string verdict = expectations_line(scenario, report_json(result));
  if (result.partial && !verdict.empty()) std::cout << verdict << "\n";
  if (result.partial) return done_code;
  if (!verdict.empty())
    std::cout << verdict << " (details: rlsim check " << shell_quote(options.scenario_path)
              << settings_options(scenario) << fmt::format(" --seed {})\n", result.seed);
  return done_code;
}

// Why --metrics-out FILE cannot be written (its folder is missing, or it is a folder), checked
// before the run so that a long run is not lost to a typo; nullopt when it looks writable.
std::optional<std::string> metrics_path_problem(const std::string& path) {
  if (path.empty()) return std::nullopt;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return fmt::format("{}: a directory, not a file", path);
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    return fmt::format("{}: no such directory {}", path, parent.string());
  return std::nullopt;
}

// --metrics-out: the run's series as OpenMetrics text; an error message naming the file, or
// nullopt (also when the option was not given).
std::optional<std::string> write_metrics_file(const RunOptions& options, const RunResult& result) {
  if (options.metrics_out.empty()) return std::nullopt;
  const std::string text = openmetrics_text(result, options.metrics_epoch_unix_s);
  std::ofstream out(options.metrics_out, std::ios::binary | std::ios::trunc);
  if (!out) return fmt::format("{}: {}", options.metrics_out, std::strerror(errno));
  if (!(out << text) || !out.flush()) return fmt::format("{}: write failed", options.metrics_out);
  return std::nullopt;
}

// --metrics-out FILE [--metrics-epoch UNIX_S] (docs/metrics.md, "OpenMetrics export").
void add_metrics_options(CLI::App& cli, RunOptions& options) {
  CLI::Option* out = cli.add_option("--metrics-out", options.metrics_out,
                                    "Also write the run's series as OpenMetrics text with "
                                    "timestamps to FILE (for promtool tsdb "
                                    "create-blocks-from openmetrics)")
                         ->check(CLI::Validator(non_empty_file_name, "FILE"));
  cli.add_option("--metrics-epoch", options.metrics_epoch_unix_s,
                 "With --metrics-out: the Unix time (seconds) virtual time 0 is written at "
                 "(default 1750032000, 2025-06-16T00:00:00Z)")
      ->check(CLI::Range(std::int64_t{0}, kMaxMetricsEpochUnixS))
      ->needs(out);
}

// The files a run reads: the scenario and the request logs it replays (relative to its folder).
std::vector<NamedPath> run_inputs(const RunOptions& options, const Scenario& scenario) {
  std::vector<NamedPath> inputs{{"the scenario", options.scenario_path}};
  const std::filesystem::path folder = std::filesystem::path(options.scenario_path).parent_path();
  for (const TrafficGroup& group : scenario.traffic)
    if (group.replay)
      inputs.push_back({"the replayed log", (folder / group.replay->file).string()});
  return inputs;
}

int command_run(const RunOptions& options) {
  if (const auto problem = metrics_path_problem(options.metrics_out)) {
    std::cerr << fmt::format("rlsim: cannot write the metrics file: {}\n", *problem);
    return exit_code::kOutputError;
  }
  const Scenario scenario = load_run_scenario(options);
  check_output_paths(run_inputs(options, scenario),
                     {{"--trace", options.trace.path}, {"--metrics-out", options.metrics_out}});
  const std::vector<ResolvedStrategy> strategies = select_strategies(
      resolve_strategies(scenario, options.scenario_path), options.labels, options.scenario_path);
  RunResult result;
  result.scenario = &scenario;
  result.seed = options.seed.value_or(scenario.seed);
  std::optional<SeedReport> seed_report;
  // Ctrl-C stops the run (also --seeds, --live) and writes a partial report (app/interrupt.h).
  const InterruptWatch interrupt;
  std::unique_ptr<TraceFile> trace;  // opened before the run: a bad path costs no simulation
  if (!options.trace.path.empty()) {
    TraceOptions trace_options = options.trace;
    trace_options.max_bytes = options.trace_max_mb * kBytesPerMb;
    trace = std::make_unique<TraceFile>(trace_options, std::cerr);
  }
  if (const auto failed = run_all(options, scenario, strategies, result, seed_report, trace.get()))
    return *failed;
  if (trace) result.trace = trace->close();
  mark_partial(result, strategies);
  const bool seeds_cut = seed_report && seed_report->partial;
  const bool redis_lost = result.partial && result.partial->redis_lost;
  const int done_code = redis_lost                      ? exit_code::kRedisUnavailable
                        : !result.partial && !seeds_cut ? exit_code::kOk
                                                        : exit_code::kInterrupted;
  if (redis_lost)
    std::cerr << fmt::format("rlsim: {}: writing the report of the strategies that finished\n",
                             result.partial->reason);
  const std::filesystem::path dir = report_dir(options.out_dir, scenario.name, "");
  const std::string reproduce = reproduce_command(options, scenario, result.seed);
  std::optional<std::string> error = write_report_files(result, dir, reproduce);
  if (!error && seed_report)
    error = write_seed_files(*seed_report, dir.string(),
                             reproduce + fmt::format(" --seeds {}", options.seeds));
  if (error) {
    std::cerr << fmt::format("rlsim: cannot write the report: {}\n", *error);
    return exit_code::kOutputError;
  }
  if (const auto metrics_error = write_metrics_file(options, result)) {
    std::cerr << fmt::format("rlsim: cannot write the metrics file: {}\n", *metrics_error);
    return exit_code::kOutputError;
  }
  if (options.json) {
    std::cout << report_json(result).dump(2) << "\n";
    return done_code;
  }
  return print_run(options, scenario, result, seed_report, dir, reproduce, done_code);
}

// --trace and its companions (docs/cli.md#decision-trace---trace-file).
void add_trace_options(CLI::App& cli, RunOptions& options) {
  CLI::Option* trace =
      cli.add_option(
             "--trace", options.trace.path,
             "Write every decision (or a sample) as JSON Lines to this file (docs/metrics.md)")
          ->check(CLI::Validator(non_empty_file_name, "FILE"));
  cli.add_option("--trace-sample", options.trace.sample_every,
                 "With --trace: write 1 in N decisions, chosen by the seed and the request id, and "
                 "every error, fallback and false denial (default 1: all)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000'000}))
      ->needs(trace);
  cli.add_option("--trace-max-mb", options.trace_max_mb,
                 "With --trace: stop writing it at this size in MB (10^6 bytes; default 256); the "
                 "run goes on")
      ->check(CLI::Range(std::int64_t{1}, kMaxTraceMaxMb))
      ->needs(trace);
  trace->excludes("--seeds")->excludes("--live");
}

CommandRun add_run_options(CLI::App& cli) {
  auto options = std::make_shared<RunOptions>();
  cli.add_option("scenario", options->scenario_path, "Scenario file (JSON)")->required();
  add_set_option(cli, options->sets);
  cli.add_option("--strategy", options->labels,
                 "Run only the strategy with this label (repeatable)");
  cli.add_option("--seed", options->seed,
                 "Seed for every random stream (default: the scenario's seed)")
      ->check(uint64_validator());
  cli.add_flag("--json", options->json, "Print only the JSON report on stdout");
  cli.add_option("--out", options->out_dir,
                 "Directory for report.json, report.html, report.md and the chart SVGs (default: "
                 "reports/<scenario name>)");
  cli.add_flag("--check-determinism", options->check_determinism,
               "Run every strategy twice and exit 1 unless decisions and reports are identical");
  CLI::Option* redis =
      cli.add_option("--redis", options->redis_url,
                     "Run against a real Redis (>= 7.0): redis://[user[:password]@]host:port[/db]; "
                     "the password may also come from REDISCLI_AUTH (docs/real-redis.md)");
  cli.add_option("--redis-cluster", options->redis_cluster,
                 "Run against a real Redis Cluster: host:port[,host:port...] (any reachable "
                 "nodes; the slot map comes from CLUSTER SLOTS)")
      ->excludes(redis);
  cli.add_flag("--real-redis", options->real_redis,
               "Connect to the real Redis (or Cluster) the scenario file names in redis.url or "
               "redis.cluster_url: without this flag, or --redis, a scenario never makes rlsim "
               "connect anywhere");
  cli.add_flag("--keep-keys", options->keep_keys,
               "With --redis or --redis-cluster: leave the run's keys on the server instead of "
               "deleting them");
  cli.add_option("--seeds", options->seeds,
                 "Also run seeds SEED+1 .. SEED+N-1 and write the mean, p5 and p95 of every "
                 "metric to seeds.json and seeds.md")
      ->check(CLI::Range(std::uint64_t{1}, kMaxCheckSeeds));
  cli.add_option("--jobs", options->jobs, "Worker threads for --seeds (default: one per core)")
      ->check(CLI::Range(1u, 256u));
  CLI::Option* live = cli.add_flag(
      "--live", options->live,
      "Watch the run: virtual time paced to wall time, a terminal dashboard (plain lines without "
      "a terminal or with NO_COLOR), then the normal report");
  cli.add_option("--speed", options->speed,
                 "With --live: virtual seconds per wall-clock second (default 1)")
      ->check(CLI::Range(1e-3, kMaxLiveSpeed))
      ->needs(live);
  cli.add_option("--pause-at", options->pause_at,
                 "With --live: run at once to this virtual time (e.g. 3m10s), then pause")
      ->check(CLI::Validator(
          [](const std::string& text) {
            const auto at_us = parse_duration(text);
            return at_us && *at_us >= 0 ? std::string()
                                        : fmt::format("expected a duration such as {}, got \"{}\"",
                                                      kDurationSpellings, text);
          },
          "DURATION"))
      ->needs(live);
  live->excludes("--seeds")->excludes("--check-determinism")->excludes("--json");
  add_metrics_options(cli, *options);
  add_trace_options(cli, *options);
  return [options] { return command_run(*options); };
}

}  // namespace

Subcommand run_subcommand() {
  return {"run", "Simulate every strategy of a scenario and report what got through",
          add_run_options};
}

}  // namespace rlsim
