// import/kong.cpp: Kong declarative configurations in the shape of Kong's documentation, imported
// into scenarios whose kong strategy, limits and Redis timeout say what the plugin says; what the
// model cannot say is warned; what Kong itself refuses is refused.
#include <catch2/catch.hpp>

#include "import_util.h"

namespace rlsim_test_import_kong {

using namespace rlsim;
using namespace rlsim::testing;

TEST_CASE(
    "kong import: the issue's plugin is a 600 per minute limit per consumer, synced every "
    "500 ms") {
  const Imported imported =
      import_files({read_config_file(RLSIM_SOURCE_DIR "/scenarios/import/kong.yml")}, "", {});
  CHECK(imported.format == "kong");
  REQUIRE(imported.limits.size() == 1);
  CHECK(imported.limits[0].name == "minute");
  CHECK(imported.limits[0].key == "user");
  CHECK(imported.limits[0].limit == 600);
  CHECK(imported.limits[0].window_us == kUsPerMin);
  CHECK(imported.strategy == "kong");
  CHECK(imported_param(imported, "policy") == "redis");
  CHECK(imported_param(imported, "sync_rate") == "500ms");
  CHECK(imported_param(imported, "fault_tolerant") == true);
  CHECK(imported_param(imported, "limit_by") == "consumer");
  REQUIRE(imported.redis.size() == 1);
  CHECK(imported.redis[0].first == "timeout");
  CHECK(imported.redis[0].second.value == "2s");
  CHECK(imported.warnings.empty());
  // On one node there is no other node's admission to miss: Kong goes over the limit only by the
  // admissions made while a sync was in flight, which the sync loses (deltas_lost).
  const Scenario scenario = imported_scenario(imported, {{"instances", {{"count", 1}}}});
  const RunResult result = run_text(scenario);
  REQUIRE(result.strategies.size() == 1);
  const auto lost = result.strategies[0].strategy_metrics.at("deltas_lost").get<std::int64_t>();
  CHECK(result.strategies[0].totals.limits[0].max_in_window >= 600);
  CHECK(result.strategies[0].totals.limits[0].max_in_window <= 600 + lost);
  CHECK(result.strategies[0].totals.denied > 0);  // the default traffic asks 1.5x the limit
}

TEST_CASE("kong import: every period, limit_by ip, the local policy by default") {
  const Imported imported = import_text(R"(_format_version: "3.0"
plugins:
  - name: rate-limiting
    config:
      second: 5
      hour: 1000
      month: 100000
      limit_by: ip
      error_code: 429
      retry_after_jitter_max: 2
)",
                                        "kong.yml");
  REQUIRE(imported.limits.size() == 2);
  CHECK(imported.limits[0].key == "ip");
  CHECK(imported.limits[0].limit == 5);
  CHECK(imported.limits[1].name == "hour");
  CHECK(imported.limits[1].window_us == kUsPerHour);
  CHECK(imported_param(imported, "policy") == "local");
  CHECK(imported_param(imported, "limit_by") == "ip");
  CHECK(imported.redis.empty());  // policy local: Kong's Redis timeout does not apply
  // A field the plugin does not have and month (longer than rlsim's windows): one warning each.
  REQUIRE(imported.warnings.size() == 2);
  CHECK(imported.warnings[0] == "kong.yml:10:7: config.retry_after_jitter_max: not modelled");
  CHECK(imported.warnings[1] ==
        "kong.yml:7:14: config.month: \"100000\" not imported (rlsim's windows are at most 24h)");
  // The scenario comments say where each value came from, and list the warnings.
  const std::string text = scenario_text(imported, "kong");
  CHECK_THAT(text, Catch::Contains("// kong.yml:5:15 config.second: 5 per second (limit_by ip -> "
                                   "key ip)"));
  CHECK_THAT(text, Catch::Contains("// Unmapped: 2 item(s), not modelled:"));
  const RunResult result = run_text(imported_scenario(imported, {{"instances", {{"count", 1}}}}));
  CHECK(result.strategies[0].totals.limits[1].max_in_window == 1000);
}

TEST_CASE("kong import: header, cluster, other plugins and disabled ones are reported") {
  const Imported imported = import_text(R"(_format_version: "3.0"
consumers:
  - username: alice
    plugins:
      - name: rate-limiting
        enabled: false
        config: {second: 1}
routes:
  - name: r1
    paths: [/r1]
    plugins:
      - name: rate-limiting
        config:
          minute: 100
          limit_by: header
          header_name: X-Api-Key
          policy: cluster
  - name: r2
    plugins:
      - name: rate-limiting
        config: {minute: 5}
      - name: rate-limiting-advanced
        config: {limit: [5], window_size: [30]}
)",
                                        "kong.yml");
  REQUIRE(imported.limits.size() == 1);
  CHECK(imported.limits[0].limit == 100);  // route r1's plugin, the first enabled one
  CHECK(imported.limits[0].key == "user");
  CHECK(imported_param(imported, "limit_by").is_null());  // the strategy refuses header
  CHECK(imported_param(imported, "policy") == "redis");
  CHECK(imported.warnings.size() == 5);
  CHECK(warnings_with(imported, "plugin rate-limiting-advanced not imported") == 1);
  CHECK(warnings_with(imported, "a disabled rate-limiting plugin, skipped") == 1);
  CHECK(warnings_with(imported, "rate-limiting plugin (route r2) not imported") == 1);
  CHECK(warnings_with(imported, "config.limit_by: header (X-Api-Key) keyed by user") == 1);
  CHECK(warnings_with(imported, "config.policy: cluster") == 1);
  const RunResult result = run_text(imported_scenario(imported));
  CHECK(result.strategies[0].totals.offered > 0);
}

TEST_CASE("kong import: what Kong refuses is refused at its line and column") {
  const auto error_of = [](const std::string& text) {
    try {
      import_text(text, "kong.yml", "kong");
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  CHECK(error_of("services: []\n") ==
        "kong.yml:1:1: _format_version: missing (Kong's declarative configuration starts with "
        "_format_version: \"3.0\")");
  CHECK(error_of("_format_version: \"3.0\"\nplugins:\n  - name: rate-limiting\n    config:\n"
                 "      second: 5\n      policy: redis\n      sync_rate: 0.01\n") ==
        "kong.yml:7:18: config.sync_rate: Kong: sync_rate must be greater than 0.02, or -1 to "
        "disable, and is used with the redis policy only");
  CHECK(error_of("_format_version: \"3.0\"\nplugins:\n  - name: rate-limiting\n    config:\n"
                 "      second: five\n") ==
        "kong.yml:5:15: second: expected a number, got \"five\"");
  CHECK(error_of("_format_version: \"3.0\"\nplugins:\n  - name: rate-limiting\n    config: "
                 "{minute: 0}\n") ==
        "kong.yml:4:22: config.minute: Kong: a period's limit must be greater than 0, got \"0\"");
  CHECK(error_of("_format_version: \"3.0\"\n") ==
        "kong.yml: no enabled rate-limiting plugin (global, or under a service, route or "
        "consumer)");
}

}  // namespace rlsim_test_import_kong
