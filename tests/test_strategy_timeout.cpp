// Each strategy entry's Redis client timeout (engine/strategy_timeout.h): the entry's `timeout`,
// the scenario's redis.timeout, a product's own default, and what a run does with it.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "engine/run.h"
#include "engine/strategy_timeout.h"
#include "scenario/load.h"

namespace rlsim_test_strategy_timeout {

using namespace rlsim;

namespace {

// One user at 10/s for 2 s, Redis 1 ms away; `redis_extra` is added to the redis object.
Scenario scenario_with(const std::string& strategies, const std::string& redis_extra) {
  return parse_scenario(fmt::format(R"({{"name": "t", "duration": "2s",
          "limits": [{{"name": "per_user", "key": "user", "limit": 100, "window": "1m"}}],
          "instances": {{"count": 1}},
          "traffic": [{{"name": "u", "users": 1, "rate": "10/s", "arrival": "constant"}}],
          "redis": {{"rtt": "1ms", "service_time": "0us"{}}},
          "faults": [{{"type": "redis_latency", "at": "1s", "for": "500ms", "added": "150ms"}}],
          "strategies": [{}]}})",
                                    redis_extra, strategies),
                        "t.json");
}

std::string resolve_error(const Scenario& scenario) {
  try {
    resolve_strategies(scenario, "t.json");
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("strategy timeout: the entry's, the scenario's, the product's") {
  const std::string entries =
      R"("redis_fixed_window", {"name": "redis_fixed_window", "label": "own", "timeout": "200ms"},
         {"name": "kong", "policy": "redis"},
         {"name": "kong", "label": "kong_own", "policy": "redis", "timeout": "20ms"},
         {"name": "envoy_ratelimit"}, "rate_limiter_flexible")";
  SECTION("no redis.timeout in the file: products keep their own") {
    const auto resolved = resolve_strategies(scenario_with(entries, ""), "t.json");
    CHECK_FALSE(resolved[0].redis_timeout_us);
    CHECK(resolved[1].redis_timeout_us == 200 * kUsPerMs);
    CHECK(resolved[1].redis_timeout_from == "the entry's timeout");
    CHECK_FALSE(resolved[1].params.contains("timeout"));
    CHECK(resolved[2].redis_timeout_us == 2000 * kUsPerMs);
    CHECK(resolved[2].redis_timeout_from == "Kong's redis.timeout default");
    CHECK(resolved[3].redis_timeout_us == 20 * kUsPerMs);
    CHECK(resolved[4].redis_timeout_us == 10 * kUsPerS);
    // envoy_ratelimit's own `timeout` parameter (Envoy's RPC timeout) stays a parameter.
    CHECK(resolved[4].params["timeout"] == "20ms");
    CHECK_FALSE(resolved[5].redis_timeout_us);  // ioredis has no default of its own
  }
  SECTION("redis.timeout in the file: only the entries' own timeouts differ") {
    const auto resolved =
        resolve_strategies(scenario_with(entries, R"(, "timeout": "100ms")"), "t.json");
    CHECK_FALSE(resolved[0].redis_timeout_us);
    CHECK(resolved[1].redis_timeout_us == 200 * kUsPerMs);
    CHECK_FALSE(resolved[2].redis_timeout_us);
    CHECK(resolved[3].redis_timeout_us == 20 * kUsPerMs);
    CHECK_FALSE(resolved[4].redis_timeout_us);
  }
}

TEST_CASE("strategy timeout: a bad value is the entry's error") {
  CHECK(resolve_error(scenario_with(R"({"name": "redis_fixed_window", "timeout": 5})", "")) ==
        "t.json: strategies[0].timeout: expected a duration from 1us to 1m (the "
        "strategy's Redis client timeout), got 5");
  CHECK(resolve_error(scenario_with(R"({"name": "redis_fixed_window", "timeout": "0ms"})", ""))
            .find("strategies[0].timeout") != std::string::npos);
}

TEST_CASE("strategy timeout: the run times its calls out at the entry's timeout") {
  // 150 ms of added latency from 1 s to 1.5 s: the 5 requests sent then take 151 ms with a
  // 200 ms timeout, and time out at 100 ms with the scenario's.
  const Scenario scenario = scenario_with(
      R"("redis_fixed_window", {"name": "redis_fixed_window", "label": "own", "timeout": "200ms"})",
      R"(, "timeout": "100ms")");
  const auto resolved = resolve_strategies(scenario, "t.json");
  const StrategyResult plain = run_strategy(scenario, resolved[0], 1);
  const StrategyResult own = run_strategy(scenario, resolved[1], 1);
  CHECK(plain.redis_timeouts == 5);
  CHECK(own.redis_timeouts == 0);
  CHECK(own.totals.latency_us.max() == 151'000);
  CHECK_FALSE(plain.redis_timeout);
  REQUIRE(own.redis_timeout);
  CHECK(own.redis_timeout->timeout_us == 200 * kUsPerMs);
  // The scenario the caller holds is unchanged.
  CHECK(scenario.redis.timeout_us == 100 * kUsPerMs);
  CHECK(scenario_with_strategy_timeout(scenario, resolved[0].redis_timeout_us) == nullptr);
}

}  // namespace rlsim_test_strategy_timeout
