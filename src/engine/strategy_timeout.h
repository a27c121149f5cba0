#pragma once
// The Redis client timeout of each strategy entry (docs/scenario-format.md#strategies): the
// entry's own `timeout`, else the scenario's redis.timeout when the file gives one, else the
// product's default when the strategy models a product (Kong's redis.timeout, 2000 ms), else
// rlsim's default redis.timeout. A strategy with a parameter of its own named `timeout`
// (envoy_ratelimit: Envoy's RPC timeout) keeps it as that parameter.
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "scenario/model.h"
#include "strategy/params.h"

namespace rlsim {

// An entry's Redis client timeout when it is not the scenario's, and where it comes from.
struct StrategyTimeout {
  std::optional<DurationUs> timeout_us;  // nullopt: the scenario's redis.timeout
  std::string from;                      // "the entry's timeout", "Kong's redis.timeout default"
};

// The timeout of entry `spec` of `info`, taking the entry's `timeout` out of `params` (which then
// holds the strategy's own parameters only). Throws ScenarioError naming `file` and the field
// when `timeout` is not a duration.
StrategyTimeout resolve_strategy_timeout(const Scenario& scenario, const StrategySpec& spec,
                                         const StrategyInfo& info, const std::string& file,
                                         nlohmann::json& params);

// A copy of `scenario` whose redis.timeout is `timeout_us`, or null when that is the scenario's
// (or nullopt): a strategy run on it times its Redis calls out as its entry asks.
std::unique_ptr<Scenario> scenario_with_strategy_timeout(const Scenario& scenario,
                                                         std::optional<DurationUs> timeout_us);

}  // namespace rlsim
