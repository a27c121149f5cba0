#pragma once
// Helpers shared by the tests: small scenarios from JSON text, and running them.
#include <string>

#include "engine/run.h"
#include "scenario/load.h"

namespace rlsim::testing {

inline RunResult run_text(const Scenario& scenario) {
  RunResult result;
  result.scenario = &scenario;
  result.seed = scenario.seed;
  for (const auto& strategy : resolve_strategies(scenario, "test.json")) {
    result.strategies.push_back(run_strategy(scenario, strategy, scenario.seed));
  }
  return result;
}

inline const StrategyResult& by_label(const RunResult& result, const std::string& label) {
  for (const auto& s : result.strategies) {
    if (s.label == label) return s;
  }
  throw std::runtime_error("no strategy " + label);
}

}  // namespace rlsim::testing
