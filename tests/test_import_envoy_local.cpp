// import/envoy_local.cpp: Envoy bootstraps in the shape of Envoy's local rate limit documentation,
// imported into envoy_local scenarios whose buckets are the filter's token buckets.
#include <catch2/catch.hpp>

#include "import_util.h"

namespace rlsim_test_import_envoy_local {

using namespace rlsim;
using namespace rlsim::testing;

TEST_CASE("envoy_local import: one token bucket in Envoy's own terms, shared by the cluster") {
  const Imported imported = import_files(
      {read_config_file(RLSIM_SOURCE_DIR "/scenarios/import/envoy-local.yaml")}, "", {});
  CHECK(imported.format == "envoy_local");
  REQUIRE(imported.limits.size() == 1);
  CHECK(imported.limits[0].key == "global");
  CHECK(imported.limits[0].limit == 10);
  CHECK(imported.limits[0].window_us == kUsPerS);
  CHECK(imported_param(imported, "max_tokens") == 20);
  CHECK(imported_param(imported, "tokens_per_fill") == 10);
  CHECK(imported_param(imported, "fill_interval") == "1s");
  CHECK(imported_param(imported, "local_cluster_rate_limit") == true);
  CHECK(imported.warnings.empty());
  CHECK(imported.mode.value.is_null());  // filter_enforced 100%
  CHECK_FALSE(imported.uses_redis);
  // One process for 60 s at 15 requests per second: the bucket's 20, then 10 per second.
  const RunResult result =
      run_text(imported_scenario(imported, {{"instances", {{"count", 1}}}, {"duration", "60s"}}));
  CHECK(result.strategies[0].totals.allowed <= 20 + 10 * 60);
  CHECK(result.strategies[0].totals.allowed >= 10 * 60);
  CHECK(result.strategies[0].totals.limits[0].false_denials == 0);
}

TEST_CASE("envoy_local import: descriptors' buckets, proto durations, not enforced") {
  const Imported imported = import_text(R"(http_filters:
  - name: envoy.filters.http.local_ratelimit
    typed_config:
      "@type": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
      stat_prefix: http_local_rate_limiter
      token_bucket: {max_tokens: 1000, tokens_per_fill: 1000, fill_interval: 60s}
      filter_enabled: {default_value: {numerator: 100, denominator: HUNDRED}}
      descriptors:
        - entries:
            - key: client_id
          token_bucket: {max_tokens: 10, tokens_per_fill: 5, fill_interval: {seconds: 1}}
        - entries:
            - key: path
              value: /admin
          token_bucket: {max_tokens: 2, tokens_per_fill: 2, fill_interval: 2s}
)",
                                        "envoy.yaml");
  REQUIRE(imported.limits.size() == 3);
  // A bucket of M tokens refilled T per F is envoy_local's default shape of M per F x M / T.
  CHECK(imported.limits[0].limit == 1000);
  CHECK(imported.limits[0].window_us == kUsPerMin);
  CHECK(imported.limits[1].name == "client_id");
  CHECK(imported.limits[1].key == "user");
  CHECK(imported.limits[1].limit == 10);
  CHECK(imported.limits[1].window_us == 2 * kUsPerS);
  CHECK(imported.limits[2].key == "global");
  CHECK(imported.limits[2].window_us == 2 * kUsPerS);
  CHECK(imported.params.empty());  // every bucket is a limit's default shape
  REQUIRE(imported.warnings.size() == 1);
  CHECK_THAT(imported.warnings[0],
             Catch::Contains("applies only to requests whose path is /admin"));
  // filter_enforced absent: Envoy's default 0%, counted but not enforced.
  CHECK(imported.mode.value == "shadow");
  const RunResult result = run_text(imported_scenario(imported));
  CHECK(result.strategies[0].totals.denied == 0);  // a dry run admits everything
}

TEST_CASE("envoy_local import: what Envoy refuses is refused") {
  CHECK_THROWS_WITH(
      import_text(R"(typed_config:
  "@type": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
  token_bucket: {max_tokens: 5, fill_interval: 0.02s}
)",
                  "envoy.yaml"),
      "envoy.yaml:3:48: fill_interval: expected a duration from 50ms (Envoy's minimum) to 24h "
      "such as \"1s\" or {seconds: 1, nanos: 0}, got \"0.02s\"");
  CHECK_THROWS_WITH(import_text("static_resources: {}\n", "envoy.yaml", "envoy_local"),
                    Catch::StartsWith("envoy.yaml: no HTTP local_ratelimit filter"));
}

}  // namespace rlsim_test_import_envoy_local
