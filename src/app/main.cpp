// rlsim's command line: run, check, validate, list, explain, bench.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "app/backend.h"
#include "app/bench.h"
#include "app/check.h"
#include "app/cluster_backend.h"
#include "app/commands.h"
#include "app/conformance.h"
#include "app/exit_codes.h"
#include "app/expect.h"
#include "app/interrupt.h"
#include "app/live.h"
#include "app/parallel.h"
#include "app/report_files.h"
#include "app/run.h"
#include "app/seeds.h"
#include "app/sweep.h"

namespace {

using namespace rlsim;

bool use_color() { return ::isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr; }

struct RunOptions {
  std::string scenario_path;
  std::vector<std::string> labels;
  std::optional<std::uint64_t> seed;
  bool json = false;
  std::string out_dir;
  bool check_determinism = false;
  std::uint64_t seeds = 1;    // --seeds: also summarise seeds seed..seed+N-1 (seeds.json)
  unsigned jobs = 0;          // --jobs: worker threads for --seeds (0: one per core)
  bool live = false;          // --live: paced to wall time, with a dashboard (app/live.h)
  double speed = 1.0;         // --speed: virtual seconds per wall-clock second
  std::string redis_url;      // --redis: a real Redis instead of the embedded one
  std::string redis_cluster;  // --redis-cluster: a real Redis Cluster
  bool keep_keys = false;
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

int command_run(const RunOptions& options) {
  Scenario scenario = load_scenario(options.scenario_path);
  if (!options.redis_url.empty()) scenario.redis.url = options.redis_url;
  if (!options.redis_url.empty() || !options.redis_cluster.empty())
    scenario.redis.cluster_url = options.redis_cluster;
  scenario.redis.keep_keys = options.keep_keys;
  const std::vector<ResolvedStrategy> strategies = select_strategies(
      resolve_strategies(scenario, options.scenario_path), options.labels, options.scenario_path);
  RunResult result;
  result.scenario = &scenario;
  result.seed = options.seed.value_or(scenario.seed);
  std::optional<SeedReport> seed_report;
  // Ctrl-C stops the run (also --seeds, --live) and writes a partial report (app/interrupt.h).
  const InterruptWatch interrupt;
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
    result.strategies = run_live(scenario, strategies, result.seed, live);
  } else if (!seed_report && !options.check_determinism && ::isatty(STDERR_FILENO)) {
    result.strategies = run_with_progress(scenario, strategies, result.seed);
  }
  const bool already_ran = seed_report || options.live || !result.strategies.empty();
  for (const auto& strategy : strategies) {
    if (already_ran) break;
    std::string divergence;
    result.strategies.push_back(run_strategy_checked(scenario, strategy, result.seed,
                                                     options.check_determinism, divergence));
    if (result.strategies.back().stopped_at_us) break;
    if (!divergence.empty()) {
      // A run that does not reproduce is an rlsim bug; its report is not worth keeping.
      std::cerr << fmt::format(
          "rlsim: not deterministic: two runs of strategy {} with seed {} differ: {}\n",
          strategy.label, result.seed, divergence);
      return exit_code::kCheckFailed;
    }
  }

  mark_partial(result, strategies);
  const bool seeds_cut = seed_report && !seed_report->partial.is_null();
  const int done_code =
      result.partial.is_null() && !seeds_cut ? exit_code::kOk : exit_code::kInterrupted;
  const auto report = report_json(result);
  const std::filesystem::path dir = options.out_dir.empty()
                                        ? std::filesystem::path("reports") / scenario.name
                                        : std::filesystem::path(options.out_dir);
  std::string reproduce = "rlsim run " + shell_quote(options.scenario_path);
  for (const auto& label : options.labels) reproduce += " --strategy " + shell_quote(label);
  reproduce += fmt::format(" --seed {}", result.seed);
  if (!options.redis_url.empty())
    reproduce += " --redis " + shell_quote(redis_url_display(options.redis_url));
  if (!options.redis_cluster.empty())
    reproduce += " --redis-cluster " + shell_quote(cluster_seeds_display(options.redis_cluster));
  if (const auto error = write_report_files(result, dir, reproduce)) {
    std::cerr << fmt::format("rlsim: cannot write the report: {}\n", *error);
    return exit_code::kOutputError;
  }
  if (seed_report) {
    if (auto error = write_seed_files(*seed_report, dir.string(),
                                      reproduce + fmt::format(" --seeds {}", options.seeds))) {
      std::cerr << fmt::format("rlsim: cannot write the report: {}\n", *error);
      return exit_code::kOutputError;
    }
  }
  if (options.json) {
    std::cout << report.dump(2) << "\n";
    return done_code;
  }
  std::cout << report_table(result, use_color());
  if (seed_report) std::cout << seeds_table(*seed_report);
  std::cout << fmt::format(
      "\nseed {}; reproduce with: {}\nreport: {} (also report.html, report.md)\n", result.seed,
      reproduce, (dir / "report.json").string());
  if (seed_report)
    std::cout << fmt::format("seeds: {} (also seeds.md)\n", (dir / "seeds.json").string());
  if (options.check_determinism && result.partial.is_null())
    std::cout << "determinism: ok (every strategy ran twice: same decisions, same report)\n";
  const std::string verdict = expectations_line(scenario, report);
  if (!result.partial.is_null() && !verdict.empty()) std::cout << verdict << "\n";
  if (!result.partial.is_null()) return done_code;
  if (!verdict.empty())
    std::cout << verdict << " (details: rlsim check " << shell_quote(options.scenario_path)
              << fmt::format(" --seed {})\n", result.seed);
  return done_code;
}

int command_validate(const std::string& path) {
  const Scenario scenario = load_scenario(path);
  const auto strategies = resolve_strategies(scenario, path);
  std::cout << fmt::format(
      "{}: ok: scenario \"{}\", {} limit(s), {} traffic group(s), {} strategy(ies)\n", path,
      scenario.name, scenario.limits.size(), scenario.traffic.size(), strategies.size());
  return exit_code::kOk;
}

int command_list() {
  for (const auto& info : strategy_registry())
    std::cout << fmt::format("{:<23} {}\n", info.name, info.summary);
  return exit_code::kOk;
}

int command_explain(const std::string& name) {
  const StrategyInfo* info = find_strategy(name);
  if (info == nullptr) {
    std::cerr << fmt::format("rlsim: unknown strategy \"{}\" (expected one of: {})\n", name,
                             strategy_names());
    return exit_code::kBadInput;
  }
  std::cout << fmt::format("{}: {}\n\n{}\n", info->name, info->summary, info->explain);
  std::cout << fmt::format("\nideal limiter used for false_denials: {}\n",
                           to_string(info->algorithm));
  if (info->params.empty()) {
    std::cout << "\nparameters: none\n";
  } else {
    std::cout << "\nparameters:\n";
    for (const auto& p : info->params)
      std::cout << fmt::format("  {} ({}, {}): {}\n", p.name, to_string(p.type),
                               p.required                  ? std::string("required")
                               : p.default_value.is_null() ? std::string("default: per limit")
                                                           : "default " + p.default_value.dump(),
                               p.doc);
  }
  return exit_code::kOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rlsim: a deterministic simulator of distributed rate limiting"};
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 success, 1 internal error (check: a check failed), 2 bad input (scenario, "
      "strategy or command line), 3 report not writable, 4 Lua script error, 5 Redis "
      "unreachable (--redis, --redis-cluster), 130 interrupted (run, sweep: partial report "
      "written).\n"
      "Docs: docs/ (scenario-format.md, metrics.md, architecture.md, "
      "strategies.md, faults.md, resilience.md, clocks.md, regions.md, redis-mock.md, "
      "real-redis.md, cli.md, ci.md, tour.md, performance.md, hardening.md).");

  RunOptions run_options;
  CLI::App* run = app.add_subcommand(
      "run", "Simulate every strategy of a scenario and report what got through");
  run->add_option("scenario", run_options.scenario_path, "Scenario file (JSON)")->required();
  run->add_option("--strategy", run_options.labels,
                  "Run only the strategy with this label (repeatable)");
  // Strict: digits only and within 64 bits, so "-1" cannot wrap to 2^64-1.
  const CLI::Validator uint64_validator(
      [](std::string& text) {
        std::uint64_t value = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || text[0] == '-' || ec != std::errc() ||
            ptr != text.data() + text.size()) {
          return std::string("expected an integer from 0 to 18446744073709551615");
        }
        return std::string();
      },
      "UINT64");
  run->add_option("--seed", run_options.seed,
                  "Seed for every random stream (default: the scenario's seed)")
      ->check(uint64_validator);
  run->add_flag("--json", run_options.json, "Print only the JSON report on stdout");
  run->add_option("--out", run_options.out_dir,
                  "Directory for report.json, report.html, report.md and the chart SVGs (default: "
                  "reports/<scenario name>)");
  run->add_flag("--check-determinism", run_options.check_determinism,
                "Run every strategy twice and exit 1 unless decisions and reports are identical");
  CLI::Option* run_redis = run->add_option(
      "--redis", run_options.redis_url,
      "Run against a real Redis (>= 7.0): redis://[user[:password]@]host:port[/db]; "
      "the password may also come from REDISCLI_AUTH (docs/real-redis.md)");
  run->add_option("--redis-cluster", run_options.redis_cluster,
                  "Run against a real Redis Cluster: host:port[,host:port...] (any reachable "
                  "nodes; the slot map comes from CLUSTER SLOTS)")
      ->excludes(run_redis);
  run->add_flag("--keep-keys", run_options.keep_keys,
                "With --redis or --redis-cluster: leave the run's keys on the server instead of "
                "deleting them");

  run->add_option("--seeds", run_options.seeds,
                  "Also run seeds SEED+1 .. SEED+N-1 and write the mean, p5 and p95 of every "
                  "metric to seeds.json and seeds.md")
      ->check(CLI::Range(std::uint64_t{1}, kMaxCheckSeeds));
  run->add_option("--jobs", run_options.jobs, "Worker threads for --seeds (default: one per core)")
      ->check(CLI::Range(1u, 256u));

  CLI::Option* live_flag = run->add_flag(
      "--live", run_options.live,
      "Watch the run: virtual time paced to wall time, a terminal dashboard (plain lines without "
      "a terminal or with NO_COLOR), then the normal report");
  run->add_option("--speed", run_options.speed,
                  "With --live: virtual seconds per wall-clock second (default 1)")
      ->check(CLI::Range(1e-3, kMaxLiveSpeed))
      ->needs(live_flag);
  live_flag->excludes("--seeds")->excludes("--check-determinism")->excludes("--json");

  SweepOptions sweep_options;
  CLI::App* sweep = app.add_subcommand(
      "sweep", "Run a scenario over a grid of changed fields and chart metrics against them");
  sweep->add_option("scenario", sweep_options.scenario_path, "Scenario file (JSON)")->required();
  sweep
      ->add_option("--set", sweep_options.sets,
                   "PATH=V1,V2,...: a JSON path into the scenario and its values (repeatable; "
                   "the grid is every combination)")
      ->required()
      ->allow_extra_args(false);
  sweep
      ->add_option("--metric", sweep_options.metrics,
                   "Report metric to tabulate and chart (repeatable; default: overshoot, "
                   "redis_round_trips_per_request, latency_us.p99)")
      ->allow_extra_args(false);
  sweep
      ->add_option("--strategy", sweep_options.labels,
                   "Run only the strategy with this label (repeatable)")
      ->allow_extra_args(false);
  sweep->add_option("--seed", sweep_options.seed, "First seed (default: the scenario's seed)")
      ->check(uint64_validator);
  sweep
      ->add_option("--seeds", sweep_options.seeds,
                   "Seeds per grid point: mean, p5 and p95 over SEED .. SEED+N-1 (default 1)")
      ->check(CLI::Range(std::uint64_t{1}, kMaxCheckSeeds));
  sweep->add_option("--jobs", sweep_options.jobs, "Worker threads (default: one per core)")
      ->check(CLI::Range(1u, 256u));
  sweep->add_option("--out", sweep_options.out_dir,
                    "Directory for sweep.json, sweep.md, sweep.html and the chart SVGs (default: "
                    "reports/<scenario name>-sweep)");
  sweep->add_flag("--json", sweep_options.json, "Print only sweep.json on stdout");

  CheckOptions check_options;
  CLI::App* check = app.add_subcommand(
      "check", "Run scenarios and check their expectations, for CI (docs/ci.md)");
  check->add_option("scenario", check_options.scenario_paths, "Scenario files (JSON)")->required();
  check
      ->add_option("--strategy", check_options.labels,
                   "Run only the strategy with this label (repeatable); expectations naming "
                   "others are skipped")
      ->allow_extra_args(false);
  check->add_option("--seed", check_options.seed, "First seed (default: each scenario's seed)")
      ->check(uint64_validator);
  check
      ->add_option("--seeds", check_options.seeds,
                   "Check seeds SEED, SEED+1, ..., SEED+N-1 (default 1)")
      ->check(CLI::Range(std::uint64_t{1}, kMaxCheckSeeds));
  check->add_flag("--json", check_options.json, "Print only a JSON result on stdout");
  check->add_option("--junit", check_options.junit_path, "Also write JUnit XML to this file");
  check->add_flag("--check-determinism", check_options.check_determinism,
                  "Run every strategy twice; a difference in decisions or report fails");
  check
      ->add_option("--baseline", check_options.baseline_paths,
                   "A saved report.json to compare with, matched by scenario name (repeatable)")
      ->allow_extra_args(false);

  std::string validate_path;
  CLI::App* validate = app.add_subcommand("validate", "Check a scenario file without running it");
  validate->add_option("scenario", validate_path, "Scenario file (JSON)")->required();

  CLI::App* list = app.add_subcommand("list", "List the strategies, one line each");

  std::string explain_name;
  CLI::App* explain = app.add_subcommand(
      "explain", "Explain one strategy: what it sends to Redis and its trade-off");
  explain->add_option("strategy", explain_name, "Strategy name (see rlsim list)")->required();

  BenchOptions bench_options;
  CLI::App* bench = app.add_subcommand(
      "bench", "Measure simulated requests per wall-clock second and peak memory");
  bench->add_option("--requests", bench_options.requests, "Requests per strategy run")
      ->check(CLI::Range(1000, 100'000'000));
  bench->add_flag("--scale", bench_options.scale,
                  "Simulate 10,000 instances and 1,000,000 users instead of 10 and 1000");
  bench->add_option("--strategy", bench_options.strategies,
                    "Strategy to measure (repeatable; default: all)");

  ConformanceOptions conformance_options;
  std::string conformance_cut;
  CLI::App* conformance = app.add_subcommand(
      "conformance",
      "Compare the embedded Redis with a real one: a corpus of replies, then scenario decisions");
  conformance->add_option("scenario", conformance_options.scenario_paths,
                          "Scenarios to run on both backends (their decision digests must match)");
  CLI::Option* conformance_redis =
      conformance->add_option("--redis", conformance_options.redis_url,
                              "The real Redis (>= 7.0): redis://[user[:password]@]host:port[/db]");
  conformance
      ->add_option("--redis-cluster", conformance_options.redis_cluster,
                   "A real Redis Cluster instead: host:port[,host:port...] (docs/real-redis.md)")
      ->excludes(conformance_redis);
  conformance->add_option("--max-duration", conformance_cut,
                          "Cut each scenario to this much virtual time (e.g. 2m) to bound the run");
  conformance->add_flag("--verbose", conformance_options.verbose,
                        "Print every corpus reply, not only the differences");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return exit_code::kBadInput;
  }

  try {
    if (*run) return command_run(run_options);
    if (*check) {
      const InterruptWatch interrupt;  // Ctrl-C: no verdict, exit 130
      return command_check(check_options);
    }
    if (*sweep) {
      const InterruptWatch interrupt;  // Ctrl-C: the complete runs, marked partial, exit 130
      return command_sweep(sweep_options);
    }
    if (*validate) return command_validate(validate_path);
    if (*list) return command_list();
    if (*explain) return command_explain(explain_name);
    if (*bench) return command_bench(bench_options);
    if (*conformance) {
      if (!conformance_cut.empty()) {
        const auto cut = parse_duration(conformance_cut);
        if (!cut || *cut <= 0) {
          std::cerr << "rlsim: --max-duration: expected a duration such as 2m\n";
          return exit_code::kBadInput;
        }
        conformance_options.max_duration_us = *cut;
      }
      return command_conformance(conformance_options);
    }
  } catch (const ScenarioError& e) {
    std::cerr << "rlsim: " << e.what() << "\n";
    return exit_code::kBadInput;
  } catch (const Interrupted& e) {
    std::cerr << "rlsim: " << e.what() << "\n";
    return exit_code::kInterrupted;
  } catch (const RunError& e) {
    std::cerr << "rlsim: " << e.what() << "\n";
    return e.exit_code;
  } catch (const std::exception& e) {
    std::cerr << "rlsim: internal error: " << e.what() << "\n";
    return exit_code::kInternal;
  }
  return exit_code::kInternal;
}
