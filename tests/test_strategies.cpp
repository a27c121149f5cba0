// Strategy decisions on small traffic computed by hand.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "redis/mock_store.h"
#include "test_util.h"

namespace rlsim_test_strategies {

using namespace rlsim;
using rlsim::testing::by_label;
using rlsim::testing::run_text;

namespace {

// One user sending `rate` at constant spacing for `duration` to `instances` instances.
std::string scenario(int instances, const std::string& limit, const std::string& rate,
                     const std::string& duration, const std::string& strategies,
                     const std::string& extra = "") {
  return fmt::format(R"({{"name": "t", "duration": "{}", "limits": [{}],
    "instances": {{"count": {} {}}}, "traffic": [{{"name": "u", "rate": "{}", "arrival": "constant"}}],
    "redis": {{"rtt": "1ms", "service_time": "0us", "timeout": "50ms"}}, "strategies": [{}]}})",
                     duration, limit, instances, extra, rate, strategies);
}

const char* kLimit3PerSecond = R"({"name": "per_user", "key": "user", "limit": 3, "window": "1s"})";

}  // namespace

TEST_CASE("in_memory: each of two instances admits the full limit") {
  // Arrivals at 0, 100, ..., 900 ms, alternating between the instances: each admits 3.
  const Scenario s =
      parse_scenario(scenario(2, kLimit3PerSecond, "10/s", "1s", R"("in_memory")"), "t.json");
  const auto result = run_text(s);
  const auto& r = by_label(result, "in_memory");
  CHECK(r.totals.offered == 10);
  CHECK(r.totals.allowed == 6);
  CHECK(r.totals.denied == 4);
  CHECK(r.totals.limits[0].overshoot == Approx(2.0));
  CHECK(r.totals.limits[0].excess == 3);
  CHECK(r.totals.limits[0].false_denials == 0);
  CHECK(r.redis_commands == 0);
  CHECK(r.totals.latency_us.max() == 0);
}

TEST_CASE("in_memory: windows follow the instance clock") {
  // The clock runs 500 ms ahead: local windows are true [-0.5, 0.5), [0.5, 1.5), [1.5, 2.5).
  // Admitted: 0, 100, 200 | 500, 600, 700 | 1500, 1600, 1700 (ms). True window [0, 1) gets 6;
  // the ideal limiter admits 1000, 1100 and 1200, which the instance denied.
  const Scenario s = parse_scenario(scenario(1, kLimit3PerSecond, "10/s", "2s", R"("in_memory")",
                                             R"(, "clock": {"offsets": ["500ms"]})"),
                                    "t.json");
  const auto result = run_text(s);
  const auto& metrics = by_label(result, "in_memory").totals;
  CHECK(metrics.allowed == 9);
  CHECK(metrics.limits[0].max_in_window == 6);
  CHECK(metrics.limits[0].overshoot == Approx(2.0));
  CHECK(metrics.limits[0].rolling_overshoot == Approx(2.0));
  CHECK(metrics.limits[0].excess == 3);
  CHECK(metrics.limits[0].false_denials == 3);
}

TEST_CASE("redis_fixed_window: the central counter holds across instances") {
  // 20 arrivals 50 ms apart over 3 instances; INCR returns 1..20, the first 5 pass.
  const Scenario s = parse_scenario(
      scenario(3, R"({"name": "per_user", "key": "user", "limit": 5, "window": "1s"})", "20/s",
               "1s", R"("redis_fixed_window")"),
      "t.json");
  const auto result = run_text(s);
  const auto& r = by_label(result, "redis_fixed_window");
  CHECK(r.totals.allowed == 5);
  CHECK(r.totals.denied == 15);
  CHECK(r.totals.limits[0].overshoot == Approx(1.0));
  CHECK(r.totals.limits[0].false_denials == 0);
  CHECK(r.redis_commands == 21);  // 20 INCR and one EXPIRE
  CHECK(r.redis_round_trips == 21);
  CHECK(r.totals.latency_us.quantile(0.5) == 1000);
  CHECK(r.totals.latency_us.max() == 2000);  // the first request also waits for EXPIRE
  CHECK(r.redis_keys_at_end == 1);
}

TEST_CASE("redis_fixed_window: on_error decides when Redis times out") {
  // The round trip (5 ms) is longer than the timeout (1 ms): every call fails.
  const auto text = [](const char* on_error) {
    return fmt::format(
        R"({{"name": "t", "duration": "1s", "limits": [{{"name": "l", "key": "user", "limit": 5, "window": "1s"}}],
      "instances": {{"count": 2}}, "traffic": [{{"name": "u", "rate": "20/s", "arrival": "constant"}}],
      "redis": {{"rtt": "5ms", "timeout": "1ms"}}, "strategies": [{{"name": "redis_fixed_window", "on_error": "{}"}}]}})",
        on_error);
  };
  const Scenario open = parse_scenario(text("allow"), "t.json");
  const auto open_result = run_text(open);
  CHECK(open_result.strategies[0].totals.allowed == 20);
  CHECK(open_result.strategies[0].totals.errors == 20);
  CHECK(open_result.strategies[0].redis_timeouts == 20);
  CHECK(open_result.strategies[0].totals.latency_us.max() == 1000);
  const Scenario closed = parse_scenario(text("deny"), "t.json");
  const auto closed_result = run_text(closed);
  CHECK(closed_result.strategies[0].totals.allowed == 0);
  CHECK(closed_result.strategies[0].totals.errors == 20);
  CHECK(closed_result.strategies[0].totals.limits[0].false_denials == 5);
}

TEST_CASE("redis_fixed_window writes the lesson's keys with a TTL of two windows") {
  const Scenario s = parse_scenario(
      scenario(1, kLimit3PerSecond, "1/s", "1s", R"("redis_fixed_window")"), "t.json");
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, RedisTiming{1000, 1000, 0, 50'000}, Rng(1, "network"));
  Catalog catalog(s);
  const auto strategies = resolve_strategies(s, "t.json");
  auto strategy = strategies[0].info->make(StrategyEnv{
      sim, server, s.limits, catalog, strategies[0].params, Rng(1, "strategy"), ".", 1});
  Instance instance;
  instance.active = true;
  strategy->on_instance_start(instance);
  Request request;  // user 0 at true time 0
  Decision decision{false, -2, true};
  strategy->decide(request, instance)
      .start_detached([](void* out, Decision&& d) { *static_cast<Decision*>(out) = d; }, &decision);
  sim.run_until(1'000'000);
  CHECK(decision.allowed);
  CHECK_FALSE(decision.error);
  const std::string key = "rl:user:0:1750032000";  // int(time.time() // 1) at virtual time 0
  CHECK(to_display(store.run({"GET", key}, kEpochUnixUs + 2000)) == "\"1\"");
  CHECK(to_display(store.run({"TTL", key}, kEpochUnixUs + 2000)) == "(integer) 2");
}

TEST_CASE("key prefixes follow the lesson and stay apart when kinds repeat") {
  std::vector<Limit> limits{{"per_user", LimitKey::kUser, 1, kUsPerS},
                            {"per_ip", LimitKey::kIp, 1, kUsPerS},
                            {"per_ep", LimitKey::kEndpoint, 1, kUsPerS},
                            {"burst", LimitKey::kUser, 1, kUsPerMs}};
  const auto prefixes = redis_key_prefixes(limits);
  CHECK(prefixes == std::vector<std::string>{"rl:per_user:", "rl:ip:", "rl:ep:", "rl:burst:"});
}

// Each strategy registers itself from its own file (strategy/registry.h): every one must reach
// the table (none dropped by the linker), in the order of their registrations.
TEST_CASE("the registry holds every strategy file's declaration, in its order") {
  std::vector<std::string> names;
  for (const auto& info : strategy_registry()) names.push_back(info.name);
  const std::vector<std::string> expected = {"in_memory",
                                             "redis_fixed_window",
                                             "redis_fixed_window_lua",
                                             "redis_sliding_log",
                                             "redis_sliding_counter",
                                             "redis_token_bucket",
                                             "redis_gcra",
                                             "custom_lua",
                                             "multi_limit",
                                             "sharded_global",
                                             "local_budget",
                                             "token_reservation",
                                             "region_local",
                                             "global_redis",
                                             "crdt_counter",
                                             "envoy_local",
                                             "kong",
                                             "envoy_ratelimit",
                                             "rate_limiter_flexible",
                                             "limitador_cached",
                                             "bucket4j",
                                             "gubernator",
                                             "doorman",
                                             "nginx_limit_req",
                                             "haproxy_stick_table"};
  CHECK(names == expected);
  CHECK(strategy_names().rfind("in_memory, redis_fixed_window, ", 0) == 0);
}

TEST_CASE("every registered strategy has a summary, an explanation and a factory") {
  for (const auto& info : strategy_registry()) {
    INFO(info.name);
    CHECK_FALSE(info.summary.empty());
    CHECK(info.explain.size() > 200);
    CHECK(info.make != nullptr);
    CHECK(find_strategy(info.name) == &info);
  }
}

}  // namespace rlsim_test_strategies
