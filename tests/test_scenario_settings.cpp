// app/scenario_settings: --set's parsing and application, for sweep (a list of values) and for
// run, check and validate (one value; the binary's use of it is in test_cli.cpp).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "app/scenario_settings.h"
#include "scenario/error.h"

namespace rlsim_test_scenario_settings {

using namespace rlsim;
using Catch::Contains;
using nlohmann::ordered_json;

namespace {

// A scenario file with a comment (as load_scenario allows), written to a fresh path.
std::string write_scenario() {
  static int counter = 0;
  const auto path =
      std::filesystem::temp_directory_path() /
      ("rlsim-settings-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".json");
  std::ofstream(path) << R"({
  // ten instances, one user
  "name": "settings",
  "duration": "2m",
  "limits": [{"name": "per_user", "key": "user", "limit": 100, "window": "1m"}],
  "instances": {"count": 10},
  "traffic": [{"name": "g", "users": 1, "rate": "2000/m"}],
  "strategies": ["in_memory", "redis_fixed_window"]
})";
  return path.string();
}

}  // namespace

TEST_CASE("parse_set reads a path and JSON or string values") {
  const SweepParameter p = parse_set("strategies[1].batch=10,50,true,10ms,\"x\"");
  CHECK(p.path == "strategies[1].batch");
  REQUIRE(p.values.size() == 5);
  CHECK(p.values[0] == 10);
  CHECK(p.values[2] == true);
  CHECK(p.values[3] == "10ms");
  CHECK(p.values[4] == "x");
  CHECK_THROWS_WITH(parse_set("instances.count"), Contains("expected PATH=V1,V2"));
  CHECK_THROWS_WITH(parse_set("instances.count=1,,2"), Contains("empty value"));
  CHECK_THROWS_WITH(parse_set("a..b=1"), Contains("is not a path"));
}

TEST_CASE("apply_setting changes one field, creating objects and expanding bare strategy names") {
  ordered_json doc = ordered_json::parse(R"({"name": "sweepy", "limits": [], "instances": {},
    "redis": {"rtt": {"p50": "0.5ms"}}, "strategies": ["in_memory", "redis_fixed_window"]})");
  apply_setting(doc, "instances.count", 7);
  CHECK(doc["instances"]["count"] == 7);
  apply_setting(doc, "strategies[1].on_error", "deny");
  CHECK(doc["strategies"][1] ==
        ordered_json({{"name", "redis_fixed_window"}, {"on_error", "deny"}}));
  apply_setting(doc, "redis.rtt.p50", "1ms");
  CHECK(doc["redis"]["rtt"]["p50"] == "1ms");
  apply_setting(doc, "balancer_note.x", 1);  // created; the loader will reject it, not this
  CHECK(doc["balancer_note"]["x"] == 1);
  CHECK_THROWS_WITH(apply_setting(doc, "strategies[5].batch", 1),
                    Contains("strategies has 2 entries, no [5]"));
  CHECK_THROWS_WITH(apply_setting(doc, "limits.x", 1), Contains("limits is an array"));
  // Only a strategy entry turns from a name into an object; another string stays a value.
  CHECK_THROWS_WITH(apply_setting(doc, "name.x", 1), Contains("name is a string, not an object"));
}

TEST_CASE("settings take sweep's syntax with one value each, each path once") {
  const auto settings = parse_settings({"instances.count=25", "redis.rtt=2ms", "name=\"x y\""});
  REQUIRE(settings.size() == 3);
  CHECK(settings[0].path == "instances.count");
  CHECK(settings[0].value == 25);
  CHECK(settings[1].value == "2ms");
  CHECK(setting_text(settings[1]) == "redis.rtt=2ms");
  CHECK(setting_text(settings[2]) == "name=x y");
  CHECK(parse_settings({}).empty());
  CHECK_THROWS_WITH(
      parse_settings({"instances.count=2,5"}),
      "--set instances.count: 2 values; give one (rlsim sweep runs a list of values)");
  CHECK_THROWS_WITH(parse_settings({"instances.count=2", "instances.count=3"}),
                    Contains("--set instances.count: this path is given twice"));
  CHECK_THROWS_WITH(parse_settings({"instances.count"}), Contains("expected PATH=V1,V2"));
  CHECK_THROWS_WITH(parse_settings({"a..b=1"}), Contains("is not a path"));
}

TEST_CASE("a scenario loads with its settings applied and recorded") {
  const std::string path = write_scenario();
  const Scenario plain = load_scenario_with(path, {});
  CHECK(plain.instances.count == 10);
  CHECK(plain.settings.empty());
  const Scenario changed = load_scenario_with(
      path,
      parse_settings({"instances.count=25", "strategies[1].on_error=deny", "duration=9m30s"}));
  CHECK(changed.instances.count == 25);
  CHECK(changed.duration_us == 570 * kUsPerS);
  CHECK(changed.file == path);
  CHECK(changed.settings == std::vector<std::string>{"instances.count=25",
                                                     "strategies[1].on_error=deny",
                                                     "duration=9m30s"});
  CHECK(settings_options(changed) ==
        " --set instances.count=25 --set 'strategies[1].on_error=deny' --set duration=9m30s");
  std::filesystem::remove(path);
}

TEST_CASE("a setting the scenario rejects names the file, the settings and the JSON path") {
  const std::string path = write_scenario();
  // The loader's message, for the changed document.
  CHECK_THROWS_WITH(load_scenario_with(path, parse_settings({"instances.count=0"})),
                    Contains(path + " with --set instances.count=0: instances.count:"));
  // The path itself: through a field that is not an object, past the end of an array.
  CHECK_THROWS_WITH(load_scenario_with(path, parse_settings({"name.x=1"})),
                    "--set name.x: name is a string, not an object");
  CHECK_THROWS_WITH(load_scenario_with(path, parse_settings({"limits[3].limit=1"})),
                    "--set limits[3].limit: limits has 1 entries, no [3]");
  // A field the scenario does not have is created, and the loader says it is unknown.
  CHECK_THROWS_WITH(load_scenario_with(path, parse_settings({"instance.count=3"})),
                    Contains("instance: unknown field"));
  std::filesystem::remove(path);
}

}  // namespace rlsim_test_scenario_settings
