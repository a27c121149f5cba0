// Scenario validation: every bad input is rejected with the file, the JSON path and what was
// expected.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "app/run.h"

using namespace rlsim;
using nlohmann::json;

namespace {

json base() {
  return json::parse(R"({"name": "t", "duration": "1m",
    "limits": [{"name": "per_user", "key": "user", "limit": 100, "window": "1m"}],
    "instances": {"count": 2}, "traffic": [{"name": "g", "rate": "10/s"}],
    "strategies": ["in_memory", {"name": "redis_fixed_window", "on_error": "deny"}]})");
}

std::string error_of(const std::string& text) {
  try {
    const Scenario s = parse_scenario(text, "f.json");
    resolve_strategies(s, "f.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(accepted)";
}
std::string error_of(const json& j) { return error_of(j.dump()); }

}  // namespace

TEST_CASE("a valid scenario gets the documented defaults") {
  const Scenario s = parse_scenario(base().dump(), "f.json");
  CHECK(s.seed == 1);
  CHECK(s.duration_us == kUsPerMin);
  CHECK(s.balancer == BalancerPolicy::kRoundRobin);
  CHECK(s.traffic[0].users == 1);
  CHECK(s.traffic[0].arrival == Arrival::kPoisson);
  CHECK(s.traffic[0].end_us == kUsPerMin);
  CHECK(s.traffic[0].endpoints == std::vector<std::string>{"/api"});
  CHECK(s.redis.rtt.p50_us == 500);
  CHECK(s.redis.service_time_us == 5);
  CHECK(s.redis.timeout_us == 50 * kUsPerMs);
  CHECK(s.strategies[1].label == "redis_fixed_window");
  CHECK(error_of(base()) == "(accepted)");
}

TEST_CASE("a syntax error names the line and column") {
  CHECK_THAT(error_of(std::string("{\n  \"name\": \"t\"\n  \"duration\": \"1m\"\n}")),
             Catch::StartsWith("f.json:3:") && Catch::Contains("syntax error"));
}

TEST_CASE("bad fields are rejected with their JSON path") {
  struct Case {
    const char* pointer;
    json value;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"/limits/0/limit", "100", "f.json: limits[0].limit: expected an integer"},
      {"/limits/0/windw", "1m", "f.json: limits[0].windw: unknown field"},
      {"/colour", "red", "f.json: colour: unknown field"},
      {"/duration", "0s", "f.json: duration: expected a duration from"},
      {"/duration", "-1m", "f.json: duration: expected a duration such as"},
      {"/limits/0/limit", 0, "f.json: limits[0].limit: expected an integer from 1"},
      {"/limits/0/limit", -5, "f.json: limits[0].limit: expected an integer from 1"},
      {"/traffic/0/rate", "0/s", "f.json: traffic[0].rate: expected a positive rate"},
      {"/traffic/0/rate", "10/day", "f.json: traffic[0].rate: expected a rate such as"},
      {"/instances/count", 0, "f.json: instances.count: expected an integer from 1 to 1000"},
      {"/instances/count", 1001, "f.json: instances.count: expected an integer from 1 to 1000"},
      {"/load_balancer", json{{"policy", "fastest"}},
       "f.json: load_balancer.policy: expected one of"},
      {"/traffic/0/arrival", "uniform", "f.json: traffic[0].arrival: expected one of"},
      {"/traffic/0/users", 2'000'000,
       "f.json: traffic[0].users: expected an integer from 1 to 1000000"},
      {"/traffic/0/rate", "10000000/s",
       "f.json: traffic: expected at most 200000000 offered requests"},
      {"/traffic/0/start", "2m", "f.json: traffic[0].start: expected a duration from"},
      {"/strategies/1", "token_magic", "f.json: strategies[1]: unknown strategy \"token_magic\""},
      {"/strategies/1/on_error", "maybe",
       "f.json: strategies[1].on_error: expected one of \"allow\", \"deny\""},
      {"/strategies/1/colour", "red", "f.json: strategies[1].colour: unknown parameter"},
      {"/strategies/1", "in_memory", "f.json: strategies[1]: duplicate strategy label"},
      {"/instances/schedule",
       json::parse(R"([{"at": "30s", "count": 3}, {"at": "10s", "count": 4}])"),
       "f.json: instances.schedule[1].at: expected schedule times in strictly increasing order"},
  };
  for (const auto& c : cases) {
    json j = base();
    j[json::json_pointer(c.pointer)] = c.value;
    INFO(c.pointer);
    CHECK_THAT(error_of(j), Catch::StartsWith(c.expected));
  }
}

TEST_CASE("missing required fields are named") {
  for (const char* pointer : {"/name", "/duration", "/limits", "/instances", "/traffic",
                              "/strategies", "/limits/0/window", "/traffic/0/rate"}) {
    json j = base();
    const json::json_pointer p(pointer);
    j[p.parent_pointer()].erase(p.back());
    INFO(pointer);
    CHECK_THAT(error_of(j), Catch::Contains("required field is missing"));
  }
}

TEST_CASE("too many limits are rejected") {
  json j = base();
  for (int i = 0; i < 16; ++i)
    j["limits"].push_back({{"name", "l" + std::to_string(i)}, {"limit", 1}, {"window", "1s"}});
  CHECK_THAT(error_of(j), Catch::StartsWith("f.json: limits: expected from 1 to 16 entries"));
}

TEST_CASE("a missing file is a clear error") {
  CHECK_THROWS_WITH(load_scenario("/nonexistent/x.json"),
                    "/nonexistent/x.json: cannot read the file");
}
