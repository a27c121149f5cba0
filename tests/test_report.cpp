// The JSON report contract: these names are promised to users and later versions only add fields.
#include <catch2/catch.hpp>

#include "report/report.h"
#include "test_util.h"

using namespace rlsim;

namespace {
const char* kScenario = R"({"name": "contract", "seed": 3, "duration": "2m",
  "limits": [{"name": "per_user", "key": "user", "limit": 10, "window": "1m"},
             {"name": "per_ip", "key": "ip", "limit": 50, "window": "1m"}],
  "instances": {"count": 2, "schedule": [{"at": "1m", "count": 3}]},
  "traffic": [{"name": "g", "users": 3, "rate": "30/m"}],
  "strategies": ["in_memory", {"name": "redis_fixed_window", "label": "central"}]})";
}  // namespace

TEST_CASE("the report carries every contracted field") {
  const Scenario s = parse_scenario(kScenario, "t.json");
  const auto result = rlsim::testing::run_text(s);
  const auto json = report_json(result);
  CHECK(json["scenario"] == "contract");
  CHECK(json["seed"] == 3);
  CHECK(json["duration_s"] == 120.0);
  REQUIRE(json["strategies"].size() == 2);
  const auto& central = json["strategies"][1];
  CHECK(central["label"] == "central");
  CHECK(central["name"] == "redis_fixed_window");
  for (const char* field :
       {"offered", "allowed", "denied", "errors", "overshoot", "rolling_overshoot", "excess",
        "false_denials", "limits", "redis_commands", "redis_round_trips", "latency_us", "series"}) {
    INFO(field);
    CHECK(central.contains(field));
  }
  CHECK(central["offered"].get<std::int64_t>() ==
        central["allowed"].get<std::int64_t>() + central["denied"].get<std::int64_t>());
  REQUIRE(central["limits"].size() == 2);
  CHECK(central["limits"][1]["name"] == "per_ip");
  for (const char* q : {"p50", "p99", "max"}) CHECK(central["latency_us"].contains(q));
  CHECK(central["series"]["windows"].size() == 2);
  CHECK(central["series"]["instances"].size() == 2);
  CHECK(central["series"]["instances"][1]["count"] == 3);
  CHECK(central["series"]["windows"][1]["instances"] == 3);
}

TEST_CASE("the table names every strategy and colours only on request") {
  const Scenario s = parse_scenario(kScenario, "t.json");
  const auto result = rlsim::testing::run_text(s);
  const std::string plain = report_table(result, false);
  CHECK(plain.find("in_memory") != std::string::npos);
  CHECK(plain.find("central") != std::string::npos);
  CHECK(plain.find('\033') == std::string::npos);
  CHECK(report_table(result, true).find('\033') != std::string::npos);
}
