#pragma once
// What a strategy declares about itself (StrategyInfo): name, summary, explanation, parameters with
// defaults, the algorithm the oracle's ideal limiter should run, and a factory; and the checking of
// a scenario entry's parameters against those declarations; and ParamReader, the typed reader of
// the resolved parameters, through which each strategy parses its own parameter struct once, when
// it is built. The registry (strategy/registry.h) is the table of every declared strategy.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/check.h"
#include "strategy/breaker_spec.h"
#include "strategy/error_policy.h"
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
  kStringArray,  // an array of strings (anything else at an index: ParamSpec::element)
  kBreaker,      // false or a circuit breaker object (strategy/resilience.h)
  kNumber,       // a JSON number, integer or not (a ratio such as 0.8)
};
// "bool", "int", "duration", "enum", "rate", "path", "string", "string_array", "breaker",
// "number": the names `rlsim explain` prints.
const char* to_string(ParamType type);

// A kDuration parameter's spellings besides rlsim's duration strings: the product's own, so that a
// value copied from its configuration is accepted as it is (docs/import.md#native-spellings).
// resolve_params turns either into the duration string, so strategies read one form.
enum class NativeDuration {
  kNone,
  kSeconds,  // a JSON number of seconds, or -1 for "unset" (Kong's sync_rate: 0.5, -1)
  kProto,    // google.protobuf.Duration as YAML/JSON object: {"seconds": 1, "nanos": 0}
};

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kString;
  nlohmann::json default_value;  // null: no single default (documented in `doc`)
  std::string doc;
  std::vector<std::string> choices;  // for kEnum
  bool required = false;             // when true, default_value is unused
  // For kStringArray: what each element must be, as the error for a non-string element says it
  // ("expected <element>, got 5", at "<name>[<index>]").
  std::string element = "a string";
  NativeDuration native = NativeDuration::kNone;  // for kDuration
};

// A parameter with a default (an optional one).
ParamSpec param(std::string name, ParamType type, nlohmann::json default_value, std::string doc);
// A parameter the scenario must give.
ParamSpec required_param(std::string name, ParamType type, std::string doc);
// The `on_error` parameter every Redis strategy takes (strategy/error_policy.h).
ParamSpec on_error_param();

// Typed access to one strategy entry's resolved parameters (what resolve_params returns: every
// parameter the strategy declared, of its declared type, defaults filled in, nothing else). The one
// place in src/strategy that reads parameter JSON: each strategy parses its own parameter struct
// with it once, when it is built, and its check and bucket_shape callbacks read through it too.
// Reading a name the strategy did not declare, or a parameter as another type than it was
// declared with, is a programmer error (RLSIM_CHECK).
class ParamReader {
 public:
  // `resolved` must outlive the reader.
  explicit ParamReader(const nlohmann::json& resolved) : resolved_(resolved) {}

  bool boolean(std::string_view name) const;          // kBool
  std::int64_t integer(std::string_view name) const;  // kInt (a default may be 0)
  double number(std::string_view name) const;         // kNumber
  // kInt whose default is null ("each limit's limit"): nullopt when not given.
  std::optional<std::int64_t> optional_integer(std::string_view name) const;
  DurationUs duration_us(std::string_view name) const;  // kDuration
  // kDuration whose default is null ("each limit's window"): nullopt when not given.
  std::optional<DurationUs> optional_duration_us(std::string_view name) const;
  // kRate whose default is null ("each limit's limit per window"): nullopt when not given.
  std::optional<double> optional_rate_per_s(std::string_view name) const;
  // Whether an optional parameter whose default is null was given.
  bool is_set(std::string_view name) const { return !at(name).is_null(); }
  const std::string& string(std::string_view name) const;              // kString, kPath
  std::vector<std::string> string_array(std::string_view name) const;  // kStringArray
  // kEnum: the value `values` maps the parameter's text to; every declared choice must be mapped.
  template <typename Enum>
  Enum choice(std::string_view name,
              std::initializer_list<std::pair<std::string_view, Enum>> values) const {
    const std::string& text = string(name);
    const auto it = std::find_if(values.begin(), values.end(),
                                 [&](const auto& value) { return value.first == text; });
    RLSIM_CHECK(it != values.end());  // a declared choice without its enum value
    return it->second;
  }
  // on_error (on_error_param), the old names "allow" / "deny" read as fail_open / fail_closed.
  ErrorPolicy error_policy() const;
  // breaker (kBreaker): false is a disabled breaker. Its fields are checked here, not by the
  // type: on a bad field sets `field` (e.g. "breaker.failures") and `error`, and returns nullopt.
  std::optional<BreakerSpec> breaker(std::string& field, std::string& error) const;

 private:
  const nlohmann::json& at(std::string_view name) const;

  const nlohmann::json& resolved_;
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
  std::function<BucketShape(const ParamReader& params, const Limit& limit)> bucket_shape;
  // Checks that need several parameters or the file system, after each parameter's type has been
  // checked and defaults filled in (so `params` reads every declared parameter). On failure sets
  // `field` (a JSON path below the strategy entry, e.g. "keys[1]") and `error`, and returns false.
  // Null when there is nothing more to check.
  std::function<bool(const ParamReader& params, const std::string& scenario_dir, std::string& field,
                     std::string& error)>
      check;
  // Each instance admits up to the full limit on its own and shares nothing: N instances admit up
  // to N x the limit per window. The report says why when the overshoot stays below N
  // (report/overshoot_cap.h).
  bool per_instance_limit = false;
  // Checks that need the scenario's limits (a parameter whose default is each limit's limit), in
  // the same contract as `check`: what the strategy's constructor would refuse at run time is
  // refused by `rlsim validate` too. Null when there is nothing to check.
  std::function<bool(const ParamReader& params, const std::vector<Limit>& limits,
                     std::string& field, std::string& error)>
      check_limits = nullptr;
  // The product's own Redis client timeout (Kong's redis.timeout, 2000 ms), the strategy's client
  // timeout when neither its entry's `timeout` nor the scenario's redis.timeout is given
  // (engine/strategy_timeout.h); nullopt: the scenario's. `product_redis_timeout_from` says where
  // the value comes from, for the report.
  std::optional<DurationUs> product_redis_timeout_us = std::nullopt;
  std::string product_redis_timeout_from = "";
};

// The factory of a strategy class that is constructed from its environment, for StrategyInfo::make.
template <typename StrategyClass>
std::unique_ptr<Strategy> construct(StrategyEnv env) {
  return std::make_unique<StrategyClass>(std::move(env));
}

// Checks `given` against info.params (and info.check) and returns them with defaults filled in.
// On a bad parameter returns nullopt and sets `error_field` (the parameter name, or a path below
// it such as "keys[1]") and `error` (what was expected). Paths in parameters are relative to
// `scenario_dir`, the folder of the scenario file.
std::optional<nlohmann::json> resolve_params(const StrategyInfo& info, const nlohmann::json& given,
                                             std::string& error_field, std::string& error,
                                             const std::string& scenario_dir = ".");

// The bucket a token bucket or GCRA strategy enforces for `limit`: `capacity` requests (nullopt:
// the limit), refilled at `refill_per_s` (nullopt: the limit per window).
BucketShape bucket_shape_of(std::optional<std::int64_t> capacity,
                            std::optional<double> refill_per_s, const Limit& limit);

}  // namespace rlsim
