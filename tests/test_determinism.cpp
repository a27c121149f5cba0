#include <catch2/catch.hpp>

#include "report/report.h"
#include "test_util.h"

namespace rlsim_test_determinism {

using namespace rlsim;

namespace {
std::string scenario_with(const std::string& strategies) {
  return R"({"name": "d", "seed": 11, "duration": "3m",
    "limits": [{"name": "per_user", "key": "user", "limit": 20, "window": "10s"}],
    "instances": {"count": 3, "schedule": [{"at": "1m", "count": 5}], "clock": {"spread": "200ms"}},
    "load_balancer": {"policy": "random"},
    "traffic": [{"name": "g", "users": 50, "rate": "5/s", "ramp_to": "9/s"}],
    "redis": {"rtt": {"p50": "0.5ms", "p99": "3ms"}, "timeout": "2ms"},
    "strategies": [)" +
         strategies + "]}";
}
std::string report_text(const std::string& text) {
  const Scenario s = parse_scenario(text, "t.json");
  return report_json(rlsim::testing::run_text(s)).dump(2);
}
}  // namespace

TEST_CASE("the same scenario and seed give byte-identical reports") {
  const std::string text = scenario_with(R"("in_memory", "redis_fixed_window")");
  CHECK(report_text(text) == report_text(text));
}

TEST_CASE("adding a strategy changes no other strategy's numbers") {
  const Scenario alone = parse_scenario(scenario_with(R"("redis_fixed_window")"), "t.json");
  const Scenario together = parse_scenario(
      scenario_with(
          R"("in_memory", "redis_fixed_window", {"name": "redis_fixed_window", "label": "closed", "on_error": "deny"})"),
      "t.json");
  const auto a = report_json(rlsim::testing::run_text(alone));
  const auto b = report_json(rlsim::testing::run_text(together));
  CHECK(a["strategies"][0].dump() == b["strategies"][1].dump());
  // Every strategy saw the same offered traffic.
  CHECK(b["strategies"][0]["offered"] == b["strategies"][1]["offered"]);
  CHECK(b["strategies"][1]["offered"] == b["strategies"][2]["offered"]);
}

TEST_CASE("a different seed gives different traffic") {
  const std::string text = scenario_with(R"("in_memory")");
  const Scenario s = parse_scenario(text, "t.json");
  const auto strategies = resolve_strategies(s, "t.json");
  const auto first = run_strategy(s, strategies[0], 1);
  const auto second = run_strategy(s, strategies[0], 2);
  CHECK(first.totals.offered != second.totals.offered);
}

TEST_CASE("a scenario cut short after loading runs as the shorter scenario does") {
  // rlsim conformance --max-duration shortens a loaded scenario: its traffic must stop at the
  // cut, not run on to the file's duration, so the run is the shorter scenario's exactly.
  const auto text = [](const std::string& duration) {
    return R"({"name": "c", "seed": 5, "duration": ")" + duration + R"(",
      "limits": [{"name": "per_user", "key": "user", "limit": 20, "window": "10s"}],
      "instances": {"count": 3},
      "traffic": [{"name": "g", "users": 50, "rate": "5/s"}],
      "strategies": ["redis_fixed_window"]})";
  };
  const Scenario shorter = parse_scenario(text("20s"), "t.json");
  Scenario cut = parse_scenario(text("2m"), "t.json");
  cut.duration_us = shorter.duration_us;
  const auto strategies = resolve_strategies(shorter, "t.json");
  const auto expected = run_strategy(shorter, strategies[0], shorter.seed);
  const auto got = run_strategy(cut, strategies[0], cut.seed);
  CHECK(got.totals.offered == expected.totals.offered);
  CHECK(got.decision_digest == expected.decision_digest);
  CHECK(got.redis_keys_at_end == expected.redis_keys_at_end);
}

}  // namespace rlsim_test_determinism
