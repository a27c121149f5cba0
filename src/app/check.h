#pragma once
// `rlsim check`: runs scenarios and evaluates their expectations, optionally with a determinism
// self-check and a comparison against saved reports, for CI (docs/ci.md). Results are plain
// values, rendered as text, JSON or JUnit XML; the exit code follows docs/cli.md.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rlsim {

struct CheckOptions {
  std::vector<std::string> scenario_paths;
  std::vector<std::string> sets;    // --set PATH=VALUE, applied to every scenario
  std::vector<std::string> labels;  // --strategy
  std::optional<std::uint64_t> seed;
  std::uint64_t seeds = 1;  // seeds seed, seed+1, ..., seed+seeds-1
  bool json = false;
  std::string junit_path;
  bool check_determinism = false;
  std::vector<std::string> baseline_paths;
};

constexpr std::uint64_t kMaxCheckSeeds = 10'000;

// One test case: an expectation for one seed, a determinism check of one strategy for one seed,
// or a baseline comparison of one strategy.
struct CheckCase {
  enum class Status { kPassed, kFailed, kSkipped };
  std::string name;  // "expect[0] in_memory overshoot >= 9.9", "determinism in_memory"
  std::string kind;  // "expectation", "determinism" or "baseline"
  std::uint64_t seed = 0;
  Status status = Status::kPassed;
  std::string message;               // failed or skipped: one line saying why
  std::vector<std::string> details;  // failed: more lines (description, metric changes)
  std::string reproduce;             // failed: the command that reproduces it
  nlohmann::ordered_json values = nlohmann::ordered_json::object();  // measured values by label
};

// The cases of one scenario file.
struct CheckSuite {
  std::string file;
  std::string scenario;  // its name
  std::vector<std::uint64_t> seeds;
  std::vector<CheckCase> cases;
};

struct CheckCounts {
  std::size_t passed = 0, failed = 0, skipped = 0;
};
CheckCounts count_cases(const std::vector<CheckCase>& cases);
CheckCounts count_cases(const std::vector<CheckSuite>& suites);

// Loads every scenario and baseline, then runs and evaluates. Throws ScenarioError for bad input
// (including an unknown metric path, before any expectation is evaluated) and RunError.
std::vector<CheckSuite> run_checks(const CheckOptions& options);

// Renderers; each is a pure function of the suites (same suites, same bytes).
std::string check_text(const std::vector<CheckSuite>& suites);
nlohmann::ordered_json check_json(const std::vector<CheckSuite>& suites);
std::string junit_xml(const std::vector<CheckSuite>& suites);  // in junit.cpp

// The whole command: runs, prints (text or --json), writes --junit; returns the exit code
// (0 all passed, 1 any failed, 3 JUnit file not writable). Throws like run_checks.
int command_check(const CheckOptions& options);

}  // namespace rlsim
