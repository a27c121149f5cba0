#pragma once
// The one table of strategies: name, summary, explanation, parameters with defaults, the algorithm
// the oracle's ideal limiter should run, and a factory. `rlsim list`, `rlsim explain`, scenario
// validation and docs/strategies.md all read from it.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "strategy/strategy.h"

namespace rlsim {

struct ParamSpec {
  std::string name;
  std::string type;  // "bool", "int", "duration", or "enum"
  nlohmann::json default_value;
  std::string doc;
  std::vector<std::string> choices;  // for "enum"
};

struct StrategyInfo {
  std::string name;
  std::string summary;  // one line
  std::string explain;  // a paragraph: what it does, what it sends to Redis, its trade-off
  std::vector<ParamSpec> params;
  Algorithm algorithm;
  std::function<std::unique_ptr<Strategy>(StrategyEnv)> make;
  // For kTokenBucket and kGcra: the bucket the strategy enforces for `limit` given its resolved
  // parameters, so that the oracle's ideal limiter has the same shape. Null otherwise.
  std::function<BucketShape(const nlohmann::json& params, const Limit& limit)> bucket_shape;
};

const std::vector<StrategyInfo>& strategy_registry();
const StrategyInfo* find_strategy(std::string_view name);
// "in_memory, redis_fixed_window, ...": every registered name, for error messages.
std::string strategy_names();

// Checks `given` against info.params and returns them with defaults filled in. On a bad parameter
// returns nullopt and sets `error_field` (the parameter name) and `error` (what was expected).
std::optional<nlohmann::json> resolve_params(const StrategyInfo& info, const nlohmann::json& given,
                                             std::string& error_field, std::string& error);

// Factories, one per strategy file.
std::unique_ptr<Strategy> make_in_memory(StrategyEnv env);
std::unique_ptr<Strategy> make_redis_fixed_window(StrategyEnv env);

}  // namespace rlsim
