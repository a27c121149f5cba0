#pragma once
// Evaluating a scenario's `expect` list against its JSON report (docs/ci.md). Pure functions of
// the report; the simulation happens elsewhere.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "scenario/model.h"

namespace rlsim {

// The number at `path` (docs/scenario-format.md#expect) inside one strategy's report object, or
// nullopt with `error` set to where the path stopped resolving and what was there.
std::optional<double> lookup_metric(const nlohmann::ordered_json& strategy, const std::string& path,
                                    std::string& error);

// The object of `report`'s strategy with this label, or nullptr.
const nlohmann::ordered_json* find_strategy_report(const nlohmann::ordered_json& report,
                                                   const std::string& label);

// What an expectation asserts, in one line: "in_memory overshoot >= 9.9",
// "excess: local_budget < token_reservation".
std::string describe(const Expectation& expectation);

// The labels an expectation names: its strategy, or the two it compares.
std::vector<std::string> labels_of(const Expectation& expectation);

// Shortest decimal text that reads back as `value` ("9.9", "100", "0.0001").
std::string format_number(double value);

// Throws ScenarioError ("<file>: expect[2].metric: ...") for the first expectation whose metric
// does not resolve to a number in the report of a strategy it names. Strategies missing from the
// report (not selected with --strategy) are not checked. Call before evaluating any expectation.
void check_metric_paths(const Scenario& scenario, const nlohmann::ordered_json& report,
                        const std::string& file);

struct ExpectationOutcome {
  enum class Status { kPassed, kFailed, kSkipped };
  Status status = Status::kPassed;
  std::string message;  // failed: the measured value(s) against the bound; skipped: why
  nlohmann::ordered_json values = nlohmann::ordered_json::object();  // label -> measured value
};

// Evaluates one expectation. REQUIRES: check_metric_paths passed for this report. Skipped when a
// strategy it names is not in the report.
ExpectationOutcome evaluate(const Expectation& expectation, const nlohmann::ordered_json& report);

}  // namespace rlsim
