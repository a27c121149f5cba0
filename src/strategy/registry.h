#pragma once
// The one table of strategies: name, summary, explanation, parameters with defaults, the algorithm
// the oracle's ideal limiter should run, and a factory. `rlsim list`, `rlsim explain`, scenario
// validation and docs/strategies.md all read from it.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strategy/strategy.h"

namespace rlsim {

struct ParamSpec {
  std::string name;
  // "bool", "int" (positive), "duration" ("2ms"), "enum", "rate" ("100/m"), "path" (a file,
  // relative to the scenario file), "string", or "string_array".
  std::string type;
  nlohmann::json default_value;  // null: no single default (documented in `doc`)
  std::string doc;
  std::vector<std::string> choices;  // for "enum"
  bool required = false;             // when true, default_value is unused
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
  // Checks that need several parameters or the file system, after each parameter's type has been
  // checked and defaults filled in. On failure sets `field` (a JSON path below the strategy entry,
  // e.g. "keys[1]") and `error`, and returns false. Null when there is nothing more to check.
  std::function<bool(const nlohmann::json& params, const std::string& scenario_dir,
                     std::string& field, std::string& error)>
      check;
};

const std::vector<StrategyInfo>& strategy_registry();
// The `on_error` parameter every Redis strategy takes (strategy/error_policy.h).
ParamSpec on_error_param();
const StrategyInfo* find_strategy(std::string_view name);
// "in_memory, redis_fixed_window, ...": every registered name, for error messages.
std::string strategy_names();

// Checks `given` against info.params (and info.check) and returns them with defaults filled in.
// On a bad parameter returns nullopt and sets `error_field` (the parameter name, or a path below
// it such as "keys[1]") and `error` (what was expected). Paths in parameters are relative to
// `scenario_dir`, the folder of the scenario file.
std::optional<nlohmann::json> resolve_params(const StrategyInfo& info, const nlohmann::json& given,
                                             std::string& error_field, std::string& error,
                                             const std::string& scenario_dir = ".");

// The bucket a token bucket or GCRA strategy enforces for `limit`: the parameter `capacity_param`
// (requests; null means the limit) and `rate_param` (a rate string; null means limit per window).
BucketShape bucket_shape_of(const nlohmann::json& params, const Limit& limit,
                            const char* capacity_param, const char* rate_param);

// Factories, one per strategy file.
std::unique_ptr<Strategy> make_in_memory(StrategyEnv env);
std::unique_ptr<Strategy> make_redis_fixed_window(StrategyEnv env);
std::unique_ptr<Strategy> make_redis_fixed_window_lua(StrategyEnv env);
std::unique_ptr<Strategy> make_redis_sliding_log(StrategyEnv env);
std::unique_ptr<Strategy> make_redis_sliding_counter(StrategyEnv env);
std::unique_ptr<Strategy> make_redis_token_bucket(StrategyEnv env);
std::unique_ptr<Strategy> make_redis_gcra(StrategyEnv env);
std::unique_ptr<Strategy> make_custom_lua(StrategyEnv env);
// Multi-region strategies (docs/regions.md): redis_fixed_window.cpp and crdt_counter.cpp.
std::unique_ptr<Strategy> make_region_local(StrategyEnv env);
std::unique_ptr<Strategy> make_global_redis(StrategyEnv env);
std::unique_ptr<Strategy> make_crdt_counter(StrategyEnv env);
StrategyInfo region_local_info();
StrategyInfo global_redis_info();
StrategyInfo crdt_counter_info();
// custom_lua's StrategyInfo::check: the script file is readable, templates and allow_if parse.
bool check_custom_lua(const nlohmann::json& params, const std::string& scenario_dir,
                      std::string& field, std::string& error);

}  // namespace rlsim
