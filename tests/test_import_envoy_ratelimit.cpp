// import/envoy_ratelimit.cpp: envoyproxy/ratelimit configurations in the shape of the service's
// README (nested descriptors, replaces, unlimited, a blocked value, shadow_mode) and its settings,
// imported into envoy_ratelimit scenarios that hold the configured limits.
#include <catch2/catch.hpp>

#include "import_util.h"

namespace rlsim_test_import_envoy_ratelimit {

using namespace rlsim;
using namespace rlsim::testing;

TEST_CASE("envoy_ratelimit import: the README's shapes, replaces and unmappable limits") {
  const Imported imported = import_files(
      {read_config_file(RLSIM_SOURCE_DIR "/scenarios/import/envoy-ratelimit.yaml")}, "", {});
  CHECK(imported.format == "envoy_ratelimit");
  CHECK(imported_param(imported, "domain") == "edge_proxy");
  // per_key is replaced by per_key_and_path; the blocked client (0 per second) cannot be a limit;
  // the unlimited health check has none.
  REQUIRE(imported.limits.size() == 2);
  CHECK(imported.limits[0].name == "remote_address");
  CHECK(imported.limits[0].key == "ip");
  CHECK(imported.limits[0].limit == 100);
  CHECK(imported.limits[0].window_us == kUsPerS);
  CHECK(imported.limits[1].name == "per_key_and_path");
  CHECK(imported.limits[1].key == "user");
  CHECK(imported.limits[1].limit == 300);
  CHECK(imported.limits[1].window_us == kUsPerMin);
  REQUIRE(imported.warnings.size() == 1);
  CHECK_THAT(imported.warnings[0],
             Catch::Contains("descriptor remote_address_50.0.0.5: 0 per second not imported"));
  CHECK(imported.mode.value.is_null());
  const RunResult result = run_text(imported_scenario(imported, {{"instances", {{"count", 1}}}}));
  CHECK(result.strategies[0].totals.limits[1].max_in_window == 300);
  CHECK(result.strategies[0].totals.limits[1].excess == 0);
}

TEST_CASE("envoy_ratelimit import: the service's settings become the strategy's parameters") {
  const char* config = R"(domain: mongo_cps
descriptors:
  - key: database
    value: users
    rate_limit:
      unit: second
      requests_per_unit: 500
    shadow_mode: true
)";
  const Imported imported = import_text(config, "config.yaml", "",
                                        {{"LOCAL_CACHE_SIZE_IN_BYTES", "1048576"},
                                         {"STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT", "true"},
                                         {"NEAR_LIMIT_RATIO", "0.9"},
                                         {"REDIS_TIMEOUT", "2s"}});
  CHECK(imported_param(imported, "local_cache_size_in_bytes") == 1048576);
  CHECK(imported_param(imported, "stop_cache_key_increment_when_overlimit") == true);
  CHECK(imported_param(imported, "near_limit_ratio") == 0.9);
  REQUIRE(imported.redis.size() == 1);
  CHECK(imported.redis[0].second.value == "2s");
  // Every descriptor in shadow mode: a shadow (dry) run.
  CHECK(imported.mode.value == "shadow");
  REQUIRE(imported.limits.size() == 1);
  CHECK(imported.limits[0].key == "global");
  CHECK(warnings_with(imported, "applies only to requests whose database is users") == 1);
  const RunResult result = run_text(imported_scenario(imported));
  REQUIRE(result.strategies[0].shadow.has_value());
  CHECK_THROWS_WITH(import_text(config, "config.yaml", "", {{"LOCAL_CACHE", "1"}}),
                    Catch::StartsWith("--setting LOCAL_CACHE: unknown for envoy_ratelimit "
                                      "(expected one of: LOCAL_CACHE_SIZE_IN_BYTES,"));
  CHECK_THROWS_WITH(import_text(config, "config.yaml", "", {{"NEAR_LIMIT_RATIO", "2"}}),
                    "--setting NEAR_LIMIT_RATIO: expected a number above 0, at most 1, got \"2\"");
}

TEST_CASE("envoy_ratelimit import: what the service refuses is refused") {
  CHECK_THROWS_WITH(import_text("domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n"
                                "      unit: fortnight\n      requests_per_unit: 5\n",
                                "config.yaml"),
                    "config.yaml:5:7: unit: invalid rate limit unit 'fortnight'");
  CHECK_THROWS_WITH(
      import_text("domain: d\ndescriptors:\n  - value: v\n", "config.yaml", "envoy_ratelimit"),
      "config.yaml:3:5: key: descriptor has empty key");
}

}  // namespace rlsim_test_import_envoy_ratelimit
