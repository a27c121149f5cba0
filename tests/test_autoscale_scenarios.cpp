// The headline numbers of the autoscaling scenarios (scenarios/autoscale-dos*.json,
// docs/autoscaling.md "The bundled DoS"): the HPA scales on the attack and the in-memory limit
// grows with every instance, or, on admitted traffic, it does not.
#include <catch2/catch.hpp>

#include "test_util.h"

namespace rlsim_test_autoscale_scenarios {

using namespace rlsim;
using rlsim::testing::by_label;

namespace {

Scenario bundled(const std::string& name) {
  return load_scenario(std::string(RLSIM_SOURCE_DIR) + "/scenarios/" + name);
}

// The most admitted for one key in a window while `count` instances ran the whole window.
std::int64_t admitted_with(const StrategyResult& result, int count) {
  std::int64_t most = 0;
  for (const auto& window : result.totals.series)
    if (window.instances == count) most = std::max<std::int64_t>(most, window.max_per_key);
  return most;
}

}  // namespace

TEST_CASE("autoscale-dos: the HPA scales 2, 6, 12 and the in-memory limit follows it") {
  const Scenario s = bundled("autoscale-dos.json");
  const auto result = rlsim::testing::run_text(s);
  for (const char* label : {"in_memory", "redis_fixed_window"}) {
    const auto& decisions = *by_label(result, label).autoscale;
    REQUIRE(decisions.size() == 12);  // a sync every 15 s of 3 minutes
    CHECK(decisions[0].desired == 6);
    CHECK(decisions[1].desired == 12);
    for (std::size_t i = 2; i < decisions.size(); ++i) CHECK(decisions[i].desired == 12);
    const auto& counts = by_label(result, label).instance_counts;
    REQUIRE(counts.size() == 3);
    CHECK(counts[1] == std::pair<TimeUs, int>{20 * kUsPerS, 6});  // 5 s start-up
    CHECK(counts[2] == std::pair<TimeUs, int>{35 * kUsPerS, 12});
  }
  const auto& local = by_label(result, "in_memory");
  // 10 per instance per window, whatever the count.
  CHECK(admitted_with(local, 2) == 20);
  CHECK(admitted_with(local, 6) == 60);
  CHECK(admitted_with(local, 12) == 120);
  CHECK(local.totals.allowed == 20 * 20 + 15 * 60 + 145 * 120);
  const auto& central = by_label(result, "redis_fixed_window");
  CHECK(admitted_with(central, 12) == 10);
  CHECK(central.totals.allowed == 180 * 10);
}

TEST_CASE("autoscale-dos-admitted: on admitted traffic the attack buys no instances") {
  const Scenario s = bundled("autoscale-dos-admitted.json");
  const auto result = rlsim::testing::run_text(s);
  for (const char* label : {"in_memory", "redis_fixed_window"}) {
    const auto& strategy = by_label(result, label);
    for (const auto& decision : *strategy.autoscale) CHECK(decision.desired == 2);
    CHECK(strategy.instance_counts.size() == 1);
  }
  CHECK(by_label(result, "in_memory").totals.allowed == 180 * 20);
  CHECK(by_label(result, "redis_fixed_window").totals.allowed == 180 * 10);
}

}  // namespace rlsim_test_autoscale_scenarios
