#include "app/check.h"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "app/baseline.h"
#include "app/exit_codes.h"
#include "app/interrupt.h"
#include "app/json_file.h"
#include "app/output_paths.h"
#include "app/scenario_settings.h"
#include "core/terminal_text.h"
#include "engine/commands.h"
#include "engine/expect.h"
#include "engine/run.h"

namespace rlsim {

using nlohmann::ordered_json;

namespace {

struct LoadedScenario {
  std::string file;
  Scenario scenario;
  std::vector<ResolvedStrategy> strategies;  // after --strategy
};

struct Baseline {
  std::string file;
  ordered_json report;
  std::string scenario;
  std::uint64_t seed = 0;
  bool used = false;
};

// A report.json of a run: a few MiB for the largest bundled scenario.
constexpr std::size_t kMaxBaselineBytes = std::size_t{64} << 20;

Baseline load_baseline(const std::string& path) {
  Baseline baseline;
  baseline.file = path;
  baseline.report = read_json_file(path, kMaxBaselineBytes, "--baseline");
  const ordered_json& r = baseline.report;
  if (!r.is_object() || !r.contains("scenario") || !r["scenario"].is_string() ||
      !r.contains("seed") || !r["seed"].is_number_unsigned() || !r.contains("strategies") ||
      !r["strategies"].is_array()) {
    throw ScenarioError(fmt::format(
        "{}: not an rlsim report (expected \"scenario\", \"seed\" and \"strategies\"; write one "
        "with rlsim run SCENARIO --out DIR)",
        path));
  }
  baseline.scenario = r["scenario"].get<std::string>();
  baseline.seed = r["seed"].get<std::uint64_t>();
  return baseline;
}

std::string reproduce_command(const LoadedScenario& loaded, std::uint64_t seed,
                              const std::vector<std::string>& labels, const std::string& extra) {
  std::string out = "rlsim check " + shell_quote(loaded.file) + settings_options(loaded.scenario) +
                    fmt::format(" --seed {}", seed);
  for (const auto& label : labels) out += " --strategy " + shell_quote(label);
  return out + extra;
}

// The suite's cases for one seed: run every strategy (twice with --check-determinism), then the
// expectations, then the baseline when it was taken with this seed.
void check_seed(const LoadedScenario& loaded, std::uint64_t seed, const CheckOptions& options,
                Baseline* baseline, CheckSuite& suite) {
  RunResult run;
  run.scenario = &loaded.scenario;
  run.seed = seed;
  std::vector<CheckCase> determinism;
  for (const auto& strategy : loaded.strategies) {
    std::string divergence;
    run.strategies.push_back(run_strategy_checked(loaded.scenario, strategy, seed,
                                                  options.check_determinism, divergence));
    if (run.strategies.back().stopped_at_us)
      throw Interrupted(fmt::format("interrupted (SIGINT) while running {} {}: no verdict",
                                    loaded.file, strategy.label));
    if (const auto& lost = run.strategies.back().redis_lost)  // no verdict on failed calls
      throw RunError(*lost, RunErrorKind::kRedisUnavailable);
    if (!options.check_determinism) continue;
    CheckCase c;
    c.name = "determinism " + strategy.label;
    c.kind = "determinism";
    c.seed = seed;
    if (!divergence.empty()) {
      c.status = CheckCase::Status::kFailed;
      c.message = fmt::format("two runs of {} differ: {}", strategy.label, divergence);
      c.reproduce = reproduce_command(loaded, seed, {strategy.label}, " --check-determinism");
    }
    determinism.push_back(std::move(c));
  }
  const ordered_json report = report_json(run);
  // Every metric path must resolve before any expectation is evaluated (exit 2, not 1).
  check_metric_paths(loaded.scenario, report, loaded.file);
  for (const Expectation& e : loaded.scenario.expectations) {
    const ExpectationOutcome outcome = evaluate(e, report);
    CheckCase c;
    c.name = e.json_path + " " + describe(e);
    c.kind = "expectation";
    c.seed = seed;
    c.values = outcome.values;
    c.message = outcome.message;
    switch (outcome.status) {
      case ExpectationOutcome::Status::kPassed:
        c.status = CheckCase::Status::kPassed;
        break;
      case ExpectationOutcome::Status::kSkipped:
        c.status = CheckCase::Status::kSkipped;
        break;
      case ExpectationOutcome::Status::kFailed:
        c.status = CheckCase::Status::kFailed;
        if (!e.description.empty()) c.details.push_back("why: " + escape_controls(e.description));
        c.reproduce = reproduce_command(loaded, seed, labels_of(e), "");
        break;
    }
    suite.cases.push_back(std::move(c));
  }
  for (auto& c : determinism) suite.cases.push_back(std::move(c));

  if (baseline == nullptr || baseline->seed != seed) return;
  std::optional<std::set<std::string>> selected;
  if (!options.labels.empty()) selected.emplace(options.labels.begin(), options.labels.end());
  for (const BaselineOutcome& outcome : compare_to_baseline(baseline->report, report, selected)) {
    CheckCase c;
    c.name = "baseline " + outcome.label;
    c.kind = "baseline";
    c.seed = seed;
    if (!outcome.passed) {
      c.status = CheckCase::Status::kFailed;
      c.message = fmt::format("{} against {}: {}", outcome.label, baseline->file, outcome.summary);
      c.details = outcome.changes;
      // A label missing from this run cannot be selected with --strategy.
      const bool ran = find_strategy_report(report, outcome.label) != nullptr;
      c.reproduce = reproduce_command(
          loaded, seed, ran ? std::vector<std::string>{outcome.label} : std::vector<std::string>{},
          " --baseline " + shell_quote(baseline->file));
    }
    suite.cases.push_back(std::move(c));
  }
}

std::string status_word(CheckCase::Status status) {
  switch (status) {
    case CheckCase::Status::kPassed:
      return "passed";
    case CheckCase::Status::kFailed:
      return "failed";
    case CheckCase::Status::kSkipped:
      return "skipped";
  }
  return "?";
}

std::string seeds_text(const std::vector<std::uint64_t>& seeds) {
  if (seeds.size() == 1) return fmt::format("seed {}", seeds.front());
  return fmt::format("seeds {}..{}", seeds.front(), seeds.back());
}

void put_counts(const CheckCounts& counts, ordered_json& out) {
  out["passed"] = counts.passed;
  out["failed"] = counts.failed;
  out["skipped"] = counts.skipped;
}

std::string counts_text(const CheckCounts& counts) {
  std::string out;
  if (counts.failed > 0) out += fmt::format("{} failed, ", counts.failed);
  out += fmt::format("{} passed", counts.passed);
  if (counts.skipped > 0) out += fmt::format(", {} skipped", counts.skipped);
  return out;
}

}  // namespace

CheckCounts count_cases(const std::vector<CheckCase>& cases) {
  CheckCounts counts;
  for (const auto& c : cases) {
    switch (c.status) {
      case CheckCase::Status::kPassed:
        ++counts.passed;
        break;
      case CheckCase::Status::kFailed:
        ++counts.failed;
        break;
      case CheckCase::Status::kSkipped:
        ++counts.skipped;
        break;
    }
  }
  return counts;
}

CheckCounts count_cases(const std::vector<CheckSuite>& suites) {
  CheckCounts total;
  for (const auto& suite : suites) {
    const CheckCounts counts = count_cases(suite.cases);
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.skipped += counts.skipped;
  }
  return total;
}

std::vector<CheckSuite> run_checks(const CheckOptions& options) {
  if (options.seeds < 1 || options.seeds > kMaxCheckSeeds)
    throw ScenarioError(fmt::format("--seeds: expected 1 to {}", kMaxCheckSeeds));
  // Everything the user supplied is checked before anything runs.
  std::vector<LoadedScenario> scenarios;
  const std::vector<ScenarioSetting> settings = parse_settings(options.sets);
  for (const std::string& path : options.scenario_paths) {
    LoadedScenario loaded{path, load_scenario_with(path, settings), {}};
    loaded.strategies =
        select_strategies(resolve_strategies(loaded.scenario, path), options.labels, path);
    const std::uint64_t first = options.seed.value_or(loaded.scenario.seed);
    if (first > std::numeric_limits<std::uint64_t>::max() - (options.seeds - 1))
      throw ScenarioError(fmt::format("--seeds {}: seed {} + {} is beyond 2^64-1", options.seeds,
                                      first, options.seeds - 1));
    scenarios.push_back(std::move(loaded));
  }
  std::vector<Baseline> baselines;
  for (const std::string& path : options.baseline_paths) {
    Baseline baseline = load_baseline(path);
    for (const auto& other : baselines) {
      if (other.scenario == baseline.scenario)
        throw ScenarioError(
            fmt::format("{}: a second baseline for scenario \"{}\" (the first is {})", path,
                        baseline.scenario, other.file));
    }
    baselines.push_back(std::move(baseline));
  }
  std::vector<Baseline*> baseline_of(scenarios.size(), nullptr);
  for (auto& baseline : baselines) {
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
      if (scenarios[i].scenario.name != baseline.scenario) continue;
      const std::uint64_t first = options.seed.value_or(scenarios[i].scenario.seed);
      if (baseline.seed < first || baseline.seed - first >= options.seeds) {
        throw ScenarioError(fmt::format(
            "{}: the baseline was run with seed {}, which {} does not check ({}; pass --seed {})",
            baseline.file, baseline.seed, scenarios[i].file,
            options.seeds == 1
                ? seeds_text({first})
                : seeds_text(std::vector<std::uint64_t>{first, first + options.seeds - 1}),
            baseline.seed));
      }
      baseline_of[i] = &baseline;
      baseline.used = true;
    }
    if (!baseline.used) {
      throw ScenarioError(fmt::format("{}: no scenario named \"{}\" among the scenarios checked",
                                      baseline.file, baseline.scenario));
    }
  }

  std::vector<CheckSuite> suites;
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const LoadedScenario& loaded = scenarios[i];
    CheckSuite suite;
    suite.file = loaded.file;
    suite.scenario = loaded.scenario.name;
    const std::uint64_t first = options.seed.value_or(loaded.scenario.seed);
    for (std::uint64_t k = 0; k < options.seeds; ++k) suite.seeds.push_back(first + k);
    for (const std::uint64_t seed : suite.seeds)
      check_seed(loaded, seed, options, baseline_of[i], suite);
    suites.push_back(std::move(suite));
  }
  return suites;
}

std::string check_text(const std::vector<CheckSuite>& suites) {
  std::string out;
  for (const auto& suite : suites) {
    const CheckCounts counts = count_cases(suite.cases);
    out += fmt::format("{} {} ({}), {}: {}\n", counts.failed > 0 ? "FAIL" : "ok  ", suite.scenario,
                       suite.file, seeds_text(suite.seeds),
                       suite.cases.empty() ? std::string("no expectations") : counts_text(counts));
    for (const auto& c : suite.cases) {
      if (c.status != CheckCase::Status::kFailed) continue;
      out += fmt::format("  FAIL {} (seed {}): {}\n", c.name, c.seed, c.message);
      for (const auto& line : c.details) out += fmt::format("       {}\n", line);
      out += fmt::format("       reproduce: {}\n", c.reproduce);
    }
  }
  const CheckCounts total = count_cases(suites);
  out += fmt::format("rlsim check: {} scenario(s): {}\n", suites.size(), counts_text(total));
  return out;
}

ordered_json check_json(const std::vector<CheckSuite>& suites) {
  const CheckCounts total = count_cases(suites);
  ordered_json out;
  out["result"] = total.failed > 0 ? "failed" : "passed";
  put_counts(total, out);
  out["scenarios"] = ordered_json::array();
  for (const auto& suite : suites) {
    const CheckCounts counts = count_cases(suite.cases);
    ordered_json s;
    s["file"] = suite.file;
    s["scenario"] = suite.scenario;
    s["seeds"] = suite.seeds;
    put_counts(counts, s);
    s["cases"] = ordered_json::array();
    for (const auto& c : suite.cases) {
      ordered_json j;
      j["name"] = c.name;
      j["kind"] = c.kind;
      j["seed"] = c.seed;
      j["status"] = status_word(c.status);
      if (!c.values.empty()) j["values"] = c.values;
      if (!c.message.empty()) j["message"] = c.message;
      if (!c.details.empty()) j["details"] = c.details;
      if (!c.reproduce.empty()) j["reproduce"] = c.reproduce;
      s["cases"].push_back(std::move(j));
    }
    out["scenarios"].push_back(std::move(s));
  }
  return out;
}

int command_check(const CheckOptions& options) {
  std::vector<NamedPath> inputs;
  for (const auto& path : options.scenario_paths) inputs.push_back({"the scenario", path});
  for (const auto& path : options.baseline_paths) inputs.push_back({"the baseline", path});
  check_output_paths(inputs, {{"--junit", options.junit_path}});
  const std::vector<CheckSuite> suites = run_checks(options);
  if (!options.junit_path.empty()) {
    std::ofstream out(options.junit_path, std::ios::binary | std::ios::trunc);
    if (!out || !(out << junit_xml(suites)) || !out.flush()) {
      std::cerr << fmt::format("rlsim: cannot write the JUnit report to {}\n", options.junit_path);
      return exit_code::kOutputError;
    }
  }
  if (options.json) {
    std::cout << check_json(suites).dump(2, ' ', false, ordered_json::error_handler_t::replace)
              << "\n";
  } else {
    std::cout << check_text(suites);
  }
  return count_cases(suites).failed > 0 ? exit_code::kCheckFailed : exit_code::kOk;
}

}  // namespace rlsim
