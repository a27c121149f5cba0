// The headline numbers of the shipped scenarios: what the classroom demo must show.
#include <catch2/catch.hpp>

#include "test_util.h"

using namespace rlsim;
using rlsim::testing::by_label;

namespace {
Scenario shipped(const std::string& name) {
  return load_scenario(std::string(RLSIM_SOURCE_DIR) + "/scenarios/" + name);
}
}  // namespace

TEST_CASE("overshoot-10x: in_memory admits 1000 per window, the central counter 100") {
  const Scenario s = shipped("overshoot-10x.json");
  const auto result = rlsim::testing::run_text(s);
  const auto& local = by_label(result, "in_memory").totals;
  const auto& central = by_label(result, "redis_fixed_window").totals;
  REQUIRE(local.series.size() == 10);
  for (const auto& window : local.series) CHECK(window.admitted == 1000);
  for (const auto& window : central.series) CHECK(window.admitted == 100);
  CHECK(local.allowed == 10000);
  CHECK(central.allowed == 1000);
  CHECK(local.limits[0].overshoot == Approx(10.0));
  CHECK(central.limits[0].overshoot == Approx(1.0));
  CHECK(central.limits[0].excess == 0);
  CHECK(local.limits[0].excess == 9000);
}

TEST_CASE("autoscale: the in-memory limit follows the instance count, the central counter holds") {
  const Scenario s = shipped("autoscale.json");
  const auto result = rlsim::testing::run_text(s);
  const auto& local = by_label(result, "in_memory").totals;
  const auto& central = by_label(result, "redis_fixed_window").totals;
  REQUIRE(local.series.size() == 20);
  int max_instances = 0, min_instances = 1000;
  for (const auto& window : local.series) {
    // Every window's busiest user got exactly limit x instances through.
    CHECK(window.max_per_key == 100 * window.instances);
    max_instances = std::max(max_instances, window.instances);
    min_instances = std::min(min_instances, window.instances);
  }
  CHECK(max_instances == 10);
  CHECK(min_instances == 2);
  CHECK(local.limits[0].overshoot == Approx(10.0));
  for (const auto& window : central.series) CHECK(window.max_per_key == 100);
  CHECK(central.limits[0].overshoot == Approx(1.0));
  CHECK(central.limits[0].false_denials == 0);
}
