// report/overshoot_cap: why a per-instance limiter stays below N x the limit with N instances
// (the binary's line for overshoot-10x with 25 instances is in test_cli.cpp).
#include <catch2/catch.hpp>
#include <string>

#include "report/overshoot_cap.h"
#include "test_util.h"

namespace rlsim_test_overshoot_cap {

using namespace rlsim;
using rlsim::testing::by_label;
using rlsim::testing::run_text;

namespace {

// One user at 150 per 1s window against 20, on `instances` instances: the ceiling of in_memory
// is instances x 20, the offered traffic 150.
std::string scenario(int instances, const std::string& key = "user",
                     const std::string& traffic_extra = "") {
  return R"({"name": "cap", "seed": 4, "duration": "5s",
    "limits": [{"name": "per_x", "key": ")" +
         key + R"(", "limit": 20, "window": "1s"}],
    "instances": {"count": )" +
         std::to_string(instances) + R"(},
    "traffic": [{"name": "g", "users": 1, "rate": "150/s")" +
         traffic_extra + R"(}],
    "strategies": ["in_memory", "redis_fixed_window"]})";
}

}  // namespace

TEST_CASE("the cap names the instances, their ceiling and the busiest key's offered rate") {
  const Scenario s = parse_scenario(scenario(10), "cap.json");
  const RunResult result = run_text(s);
  const auto cap = overshoot_cap(s, by_label(result, "in_memory"));
  REQUIRE(cap.has_value());
  CHECK(cap->label == "in_memory");
  CHECK(cap->limit == "per_x");
  CHECK(cap->instances == 10);
  CHECK(cap->instance_ceiling == 200);
  CHECK(cap->offered_per_window == Approx(150));
  CHECK(cap->overshoot > 1);
  CHECK(cap->overshoot < 10);
  CHECK_THAT(cap->reason, Catch::StartsWith("in_memory: "));
  CHECK_THAT(cap->reason,
             Catch::EndsWith(", not 10x: 10 instances x 20 could admit 200 per 1s window; the "
                             "busiest user sends ~150 (7.5x)"));
  const auto json = overshoot_cap_json(*cap);
  CHECK(json["instances"] == 10);
  CHECK(json["instance_ceiling"] == 200);
  CHECK(json["offered_per_window"] == 150.0);
  CHECK(json["reason"] == cap->reason);
  // A central counter is not a per-instance limiter: nothing to explain.
  CHECK_FALSE(overshoot_cap(s, by_label(result, "redis_fixed_window")).has_value());
}

TEST_CASE("no cap when the instances reach their ceiling or the rate per key is unknown") {
  // 5 instances x 20 = 100 < 150: every instance fills its own limit, 5x.
  const Scenario enough = parse_scenario(scenario(5), "cap.json");
  CHECK_FALSE(overshoot_cap(enough, by_label(run_text(enough), "in_memory")).has_value());
  // Keys by IP: the users' spread over IPs is not read off the rates.
  const Scenario by_ip = parse_scenario(scenario(10, "ip"), "cap.json");
  CHECK_FALSE(overshoot_cap(by_ip, by_label(run_text(by_ip), "in_memory")).has_value());
  // Retrying clients send more than the rate says.
  const Scenario retrying =
      parse_scenario(scenario(10, "user", R"(, "retry": {"after": "100ms"})"), "cap.json");
  CHECK_FALSE(overshoot_cap(retrying, by_label(run_text(retrying), "in_memory")).has_value());
}

TEST_CASE("a global key's offered rate is every user's together") {
  const Scenario s = parse_scenario(scenario(10, "global"), "cap.json");
  const auto cap = overshoot_cap(s, by_label(run_text(s), "in_memory"));
  REQUIRE(cap.has_value());
  CHECK(cap->offered_per_window == Approx(150));
  CHECK_THAT(cap->reason, Catch::Contains("; all users send ~150 (7.5x)"));
}

}  // namespace rlsim_test_overshoot_cap
