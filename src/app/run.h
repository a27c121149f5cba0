#pragma once
// The top-level wiring: the only place that knows every layer. One strategy run builds a fresh
// world (simulator, mock Redis, instances, traffic) from the scenario, so each strategy sees the
// same traffic and no strategy can change another one's numbers.
#include <string>
#include <vector>

#include "report/report.h"
#include "scenario/load.h"
#include "strategy/registry.h"

namespace rlsim {

// A strategy entry checked against the registry.
struct ResolvedStrategy {
  const StrategyInfo* info = nullptr;
  std::string label;
  nlohmann::json params;
};

// Checks every strategy entry (name known, parameters valid). Throws ScenarioError naming the
// file and JSON path.
std::vector<ResolvedStrategy> resolve_strategies(const Scenario& scenario, const std::string& file);

// Simulates one strategy on the scenario with `seed`.
StrategyResult run_strategy(const Scenario& scenario, const ResolvedStrategy& strategy,
                            std::uint64_t seed);

}  // namespace rlsim
