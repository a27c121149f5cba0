// import/imported.cpp: the scenario text an import writes: every value with its source, the
// defaults marked, the warnings listed, and what the scenario loader accepts as it is.
#include <catch2/catch.hpp>

#include "import/imported.h"
#include "scenario/load.h"

namespace rlsim_test_import_imported {

using namespace rlsim;

TEST_CASE("imported scenario: sources and defaults as comments, accepted by the loader") {
  Imported imported;
  imported.product = "Test product";
  imported.files = {"t.yml"};
  imported.strategy = "redis_fixed_window";
  imported.add_limit({"per user", "user", 600, kUsPerMin, "t.yml:3:5 a\nb"});
  imported.add_limit({"per user", "ip", 10, kUsPerS, "t.yml:4:5"});
  imported.warn("t.yml:9:1", "something not modelled");
  const std::string text = scenario_text(imported, "my scenario");
  CHECK_THAT(text, Catch::Contains("// Test product imported by `rlsim import` from t.yml."));
  CHECK_THAT(text, Catch::Contains("// Unmapped: 1 item(s), not modelled:\n//   t.yml:9:1: "
                                   "something not modelled\n"));
  CHECK_THAT(text, Catch::Contains("  // t.yml:3:5 a b\n"));  // a line break cannot end a comment
  const Scenario scenario = parse_scenario(text, "imported.json");
  CHECK(scenario.name == "my_scenario");
  REQUIRE(scenario.limits.size() == 2);
  CHECK(scenario.limits[0].name == "per_user");
  CHECK(scenario.limits[1].name == "per_user_2");
  CHECK(scenario.limits[1].key == LimitKey::kIp);
  // The default traffic: 10 users each at 1.5 x the tightest per-user rate (600/min = 10/s),
  // for three windows of the longest limit.
  REQUIRE(scenario.traffic.size() == 1);
  CHECK(scenario.traffic[0].users == 10);
  CHECK(scenario.traffic[0].rate_per_s == Approx(15));
  CHECK(scenario.duration_us == 3 * kUsPerMin);
  CHECK(scenario.instances.count == 4);
}

TEST_CASE("imported scenario: a global limit's rate is shared by the users, limits are bounded") {
  Imported imported;
  imported.product = "P";
  imported.files = {"t.yml"};
  imported.strategy = "redis_fixed_window";
  imported.uses_redis = false;
  imported.add_limit({"all", "global", 100, kUsPerS, "t.yml:1:1"});
  for (int i = 0; i < 16; ++i) imported.add_limit({"x", "user", 1000, kUsPerS, "t.yml:2:1"});
  CHECK(imported.limits.size() == 16);
  REQUIRE(imported.warnings.size() == 1);
  CHECK(imported.warnings[0] == "t.yml:2:1: not imported: a scenario holds at most 16 limits");
  const Scenario scenario = parse_scenario(scenario_text(imported, "s"), "s.json");
  CHECK(scenario.traffic[0].rate_per_s == Approx(15));  // 1.5 x 100/s over 10 users
  CHECK(scenario_name_of(".hidden/../x") == "_hidden_.._x");
  CHECK(scenario_name_of("") == "import");
}

}  // namespace rlsim_test_import_imported
