#pragma once
// What a strategy declares about itself (StrategyInfo): name, summary, explanation, parameters with
// defaults, the algorithm the oracle's ideal limiter should run, and a factory; and the checking of
// a scenario entry's parameters against those declarations. The registry (strategy/registry.h)
// is the table of every declared strategy.
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "strategy/strategy.h"

namespace rlsim {

enum class ParamType {
  kBool,
  kInt,          // a positive integer
  kDuration,     // "2ms"
  kEnum,         // one of ParamSpec::choices
  kRate,         // "100/m"
  kPath,         // a file, relative to the scenario file
  kString,       //
  kStringArray,  // its elements are checked by StrategyInfo::check
  kBreaker,      // false or a circuit breaker object (strategy/resilience.h)
};
// "bool", "int", "duration", "enum", "rate", "path", "string", "string_array", "breaker": the
// names `rlsim explain` prints.
const char* to_string(ParamType type);

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kString;
  nlohmann::json default_value;  // null: no single default (documented in `doc`)
  std::string doc;
  std::vector<std::string> choices;  // for kEnum
  bool required = false;             // when true, default_value is unused
};

// A parameter with a default (an optional one).
ParamSpec param(std::string name, ParamType type, nlohmann::json default_value, std::string doc);
// A parameter the scenario must give.
ParamSpec required_param(std::string name, ParamType type, std::string doc);
// The `on_error` parameter every Redis strategy takes (strategy/error_policy.h).
ParamSpec on_error_param();

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

}  // namespace rlsim
