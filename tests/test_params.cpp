// Strategy parameters (strategy/params.h): resolve_params checks a strategy entry against the
// declarations and fills in defaults; ParamReader reads the result by declared type, the one way
// a strategy, its check and its bucket_shape callback see their parameters.
#include <catch2/catch.hpp>

#include "strategy/registry.h"

namespace rlsim_test_params {

using namespace rlsim;

namespace {

// `given` resolved against `info`; fails the test (with the error) when it does not resolve.
nlohmann::json resolved(const StrategyInfo& info, const nlohmann::json& given) {
  std::string field, error;
  auto params = resolve_params(info, given, field, error);
  INFO(field << ": " << error);
  REQUIRE(params);
  return *params;
}

// "field: error" for `given` against `info`, or "" when it resolves.
std::string error_of(const StrategyInfo& info, const nlohmann::json& given) {
  std::string field, error;
  return resolve_params(info, given, field, error) ? "" : field + ": " + error;
}

const StrategyInfo& strategy(const char* name) {
  const StrategyInfo* info = find_strategy(name);
  REQUIRE(info != nullptr);
  return *info;
}

// A strategy with one parameter of each kind the reader reads, and no factory.
StrategyInfo every_type() {
  return StrategyInfo{
      "t",
      "",
      "",
      {param("flag", ParamType::kBool, false, ""), param("count", ParamType::kInt, 3, ""),
       param("cap", ParamType::kInt, nullptr, ""),
       param("delay", ParamType::kDuration, "250ms", ""),
       param("rate", ParamType::kRate, nullptr, ""), param("text", ParamType::kString, "x", ""),
       param("names", ParamType::kStringArray, nlohmann::json::array(), ""),
       param("ratio", ParamType::kNumber, 0.8, ""),
       ParamSpec{"mode", ParamType::kEnum, "slow", "", {"slow", "fast"}, false}},
      Algorithm::kFixedWindow,
      nullptr,
      nullptr,
      nullptr};
}

enum class Mode { kSlow, kFast };

Mode mode_of(const ParamReader& params) {
  return params.choice<Mode>("mode", {{"slow", Mode::kSlow}, {"fast", Mode::kFast}});
}

}  // namespace

TEST_CASE("params: the reader returns the declared defaults, typed") {
  const StrategyInfo info = every_type();
  const nlohmann::json defaults = resolved(info, nlohmann::json::object());
  const ParamReader params(defaults);
  CHECK_FALSE(params.boolean("flag"));
  CHECK(params.integer("count") == 3);
  CHECK_FALSE(params.optional_integer("cap").has_value());
  CHECK(params.duration_us("delay") == 250 * kUsPerMs);
  CHECK_FALSE(params.optional_rate_per_s("rate").has_value());
  CHECK(params.string("text") == "x");
  CHECK(params.string_array("names").empty());
  CHECK(params.number("ratio") == 0.8);
  CHECK(mode_of(params) == Mode::kSlow);
}

TEST_CASE("params: the reader returns given values, typed") {
  const StrategyInfo info = every_type();
  const nlohmann::json given = resolved(info, {{"flag", true},
                                               {"count", 12},
                                               {"cap", 40},
                                               {"delay", "1.5s"},
                                               {"rate", "90/m"},
                                               {"text", "abc"},
                                               {"names", {"a", "b"}},
                                               {"ratio", 1},
                                               {"mode", "fast"}});
  const ParamReader params(given);
  CHECK(params.boolean("flag"));
  CHECK(params.integer("count") == 12);
  CHECK(params.optional_integer("cap") == 40);
  CHECK(params.duration_us("delay") == 1'500'000);
  CHECK(params.optional_rate_per_s("rate") == Approx(1.5));  // 90 per minute
  CHECK(params.string("text") == "abc");
  CHECK(params.string_array("names") == std::vector<std::string>{"a", "b"});
  CHECK(params.number("ratio") == 1.0);  // an integer is a number too
  CHECK(mode_of(params) == Mode::kFast);
  CHECK(error_of(info, {{"ratio", "0.5"}}) == "ratio: expected a number, got \"0.5\"");
}

TEST_CASE("params: on_error's old names read as fail_open and fail_closed") {
  const StrategyInfo& info = strategy("redis_fixed_window");
  const auto policy_of = [&](const nlohmann::json& given) {
    return ParamReader(resolved(info, given)).error_policy();
  };
  CHECK(policy_of(nlohmann::json::object()) == ErrorPolicy::kFailOpen);  // the default
  CHECK(policy_of({{"on_error", "allow"}}) == ErrorPolicy::kFailOpen);
  CHECK(policy_of({{"on_error", "fail_open"}}) == ErrorPolicy::kFailOpen);
  CHECK(policy_of({{"on_error", "deny"}}) == ErrorPolicy::kFailClosed);
  CHECK(policy_of({{"on_error", "fail_closed"}}) == ErrorPolicy::kFailClosed);
  CHECK(policy_of({{"on_error", "local_fallback"}}) == ErrorPolicy::kLocalFallback);
  CHECK(error_of(info, {{"on_error", "open"}}) ==
        "on_error: expected one of \"fail_open\", \"fail_closed\", \"local_fallback\", \"allow\", "
        "\"deny\", got \"open\"");
}

TEST_CASE("params: the breaker reads as disabled, or its fields over the defaults") {
  const StrategyInfo& info = strategy("redis_gcra");
  std::string field, error;
  const auto off = ParamReader(resolved(info, nlohmann::json::object())).breaker(field, error);
  REQUIRE(off);
  CHECK_FALSE(off->enabled);
  const auto on = ParamReader(resolved(info, {{"breaker", {{"probes", 2}, {"window", "3s"}}}}))
                      .breaker(field, error);
  REQUIRE(on);
  CHECK(on->enabled);
  CHECK(on->probes == 2);
  CHECK(on->window_us == 3 * kUsPerS);
  CHECK(on->failures == 5);  // BreakerSpec's default
  CHECK(on->cooldown_us == 5 * kUsPerS);
  CHECK(error_of(info, {{"breaker", {{"probes", 0}}}}) ==
        "breaker.probes: expected an integer from 1 to 1000, got 0");
  CHECK(error_of(info, {{"breaker", {{"cooldown", "2h"}}}}) ==
        "breaker.cooldown: expected a duration from 1ms to 1h such as \"10s\" or \"1m30s\", got "
        "\"2h\"");
  CHECK(error_of(info, {{"breaker", {{"fails", 1}}}}) ==
        "breaker.fails: unknown field (expected one of: cooldown, failures, probes, window)");
}

TEST_CASE("params: a string array's elements are checked, with their index") {
  StrategyInfo info = every_type();
  CHECK(error_of(info, {{"names", {"a", 5}}}) == "names[1]: expected a string, got 5");
  info.params[6].element = "a name such as \"x\"";
  CHECK(error_of(info, {{"names", {nullptr}}}) ==
        "names[0]: expected a name such as \"x\", got null");
  CHECK(error_of(info, {{"names", "a"}}) == "names: expected an array of strings, got \"a\"");
}

TEST_CASE("params: check and bucket_shape read through the reader") {
  StrategyInfo info = every_type();
  info.check = [](const ParamReader& params, const std::string&, std::string& field,
                  std::string& error) {
    if (params.integer("count") <= params.optional_integer("cap").value_or(1'000)) return true;
    field = "count";
    error = "more than cap";
    return false;
  };
  CHECK(error_of(info, {{"count", 5}, {"cap", 5}}).empty());
  CHECK(error_of(info, {{"count", 6}, {"cap", 5}}) == "count: more than cap");

  // The token bucket's defaults are the limit (100 a minute); given values replace them.
  const Limit limit{"l", LimitKey::kUser, 100, kUsPerMin};
  const StrategyInfo& bucket = strategy("redis_token_bucket");
  const BucketShape defaults =
      bucket.bucket_shape(ParamReader(resolved(bucket, nlohmann::json::object())), limit);
  CHECK(defaults.capacity == 100);
  CHECK(defaults.refill_per_s == Approx(100.0 / 60));
  const BucketShape given = bucket.bucket_shape(
      ParamReader(resolved(bucket, {{"capacity", 7}, {"refill_rate", "3/s"}})), limit);
  CHECK(given.capacity == 7);
  CHECK(given.refill_per_s == 3);
}

}  // namespace rlsim_test_params
