// envoy_local (Envoy's local rate limit filter, strategy/envoy_local.cpp) on small traffic computed
// by hand: a continuous token bucket per process; with local_cluster_rate_limit a request costs
// N tokens, N the instances running.
#include <catch2/catch.hpp>

#include "strategy_harness.h"

namespace rlsim_test_strategy_envoy_local {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

const char* kLimit5PerSecond = R"({"name": "per_user", "key": "user", "limit": 5, "window": "1s"})";

constexpr TimeUs ms(std::int64_t value) { return value * kUsPerMs; }

}  // namespace

TEST_CASE("envoy_local: one bucket per process, so two instances admit twice the limit") {
  // Defaults: max_tokens 5, 5 tokens per 1 s. Six at once on each of two instances: 5 + 5.
  StrategyHarness h(kLimit5PerSecond, R"({"name": "envoy_local"})", {0, 0});
  for (std::uint32_t instance : {0u, 1u})
    for (int i = 0; i < 6; ++i) h.request(0, 0, instance);
  // 200 ms later instance 0 has refilled 5 * 0.2 = 1 token: one more, then none.
  h.request(ms(200), 0, 0);
  h.request(ms(200), 0, 0);
  CHECK(h.pattern() == "11111011111010");
}

TEST_CASE("envoy_local: the refill is continuous and a refused request takes nothing") {
  // One token, refilled by 1 every 100 ms: 0 ms takes it; at 50 ms half a token (refused, still
  // half a token); at 100 ms a whole one again.
  StrategyHarness h(kLimit5PerSecond, R"({"name": "envoy_local", "max_tokens": 1,
                    "tokens_per_fill": 1, "fill_interval": "100ms"})");
  for (int at : {0, 50, 100, 120, 250}) h.request(ms(at));
  // 120: 0.2 token, refused; 250: 1.5 capped at max_tokens 1, admitted.
  CHECK(h.pattern() == "10101");
}

TEST_CASE("envoy_local: local_cluster_rate_limit makes each request cost N tokens") {
  // Two instances: a request costs 2 of the 5 tokens (5 -> 3 -> 1, then refused), on each
  // instance: 4 admitted at once over the fleet against a limit of 5.
  StrategyHarness h(kLimit5PerSecond,
                    R"({"name": "envoy_local", "local_cluster_rate_limit": true})", {0, 0});
  for (std::uint32_t instance : {0u, 1u})
    for (int i = 0; i < 3; ++i) h.request(0, 0, instance);
  // At 200 ms instance 0 has 1 + 1 = 2 tokens: one request. Instance 1 stops at 300 ms: from
  // then a request costs 1, and at 400 ms instance 0 has 0 + 1 = 1 token.
  h.request(ms(200), 0, 0);
  h.stop(ms(300), 1);
  h.request(ms(400), 0, 0);
  h.request(ms(400), 0, 0);
  CHECK(h.pattern() == "110110110");
}

TEST_CASE("envoy_local: with fewer max_tokens than instances nothing is ever admitted") {
  StrategyHarness h(kLimit5PerSecond,
                    R"({"name": "envoy_local", "max_tokens": 2, "local_cluster_rate_limit": true})",
                    {0, 0, 0});
  for (int at : {0, 1000, 60000}) h.request(ms(at), 0, static_cast<std::uint32_t>(at % 3));
  CHECK(h.pattern() == "000");
}

TEST_CASE("envoy_local: the oracle's bucket and Envoy's 50 ms minimum") {
  const Limit limit{"l", LimitKey::kUser, 100, kUsPerMin};
  const StrategyInfo* envoy = find_strategy("envoy_local");
  REQUIRE(envoy != nullptr);
  std::string field, error;
  const auto defaults = resolve_params(*envoy, nlohmann::json::object(), field, error);
  REQUIRE(defaults);
  CHECK(envoy->bucket_shape(ParamReader(*defaults), limit).capacity == 100);
  CHECK(envoy->bucket_shape(ParamReader(*defaults), limit).refill_per_s == Approx(100.0 / 60));
  const auto given = resolve_params(
      *envoy,
      nlohmann::json{{"max_tokens", 10}, {"tokens_per_fill", 2}, {"fill_interval", "500ms"}}, field,
      error);
  REQUIRE(given);
  CHECK(envoy->bucket_shape(ParamReader(*given), limit).capacity == 10);
  CHECK(envoy->bucket_shape(ParamReader(*given), limit).refill_per_s == 4);
  CHECK_FALSE(resolve_params(*envoy, nlohmann::json{{"fill_interval", "20ms"}}, field, error));
  CHECK(field == "fill_interval");
  CHECK(error == "expected at least 50ms (Envoy's minimum), got 20000 us");
}

TEST_CASE("envoy_local parameters: fill_interval as Envoy's YAML writes it") {
  const StrategyInfo* envoy = find_strategy("envoy_local");
  REQUIRE(envoy != nullptr);
  std::string field, error;
  const auto proto = resolve_params(
      *envoy, nlohmann::json{{"fill_interval", {{"seconds", 1}, {"nanos", 500000000}}}}, field,
      error);
  REQUIRE(proto);
  CHECK(proto->at("fill_interval") == "1.5s");
  const auto json_form =
      resolve_params(*envoy, nlohmann::json{{"fill_interval", "0.250s"}}, field, error);
  REQUIRE(json_form);
  CHECK(ParamReader(*json_form).duration_us("fill_interval") == 250 * kUsPerMs);
  // Whole microseconds only, and nothing but seconds and nanos.
  for (const nlohmann::json& bad : {nlohmann::json{{"seconds", 1}, {"nanos", 1}},
                                    nlohmann::json{{"minutes", 1}}, nlohmann::json(1)}) {
    CHECK_FALSE(resolve_params(*envoy, nlohmann::json{{"fill_interval", bad}}, field, error));
    CHECK_THAT(error,
               Catch::Contains(R"(or {"seconds": 1, "nanos": 500000000} (protobuf's Duration))"));
  }
  // The check after the type: Envoy's 50 ms minimum, in either spelling.
  CHECK_FALSE(resolve_params(*envoy, nlohmann::json{{"fill_interval", {{"nanos", 20000000}}}},
                             field, error));
  CHECK(error == "expected at least 50ms (Envoy's minimum), got 20000 us");
}

}  // namespace rlsim_test_strategy_envoy_local
