// instances.autoscale on a whole run (world/autoscaler.h, wired in engine/run.cpp): a constant
// rate whose decisions are computed by hand from the HPA formula, the start-up delay, the
// reported instance series, the metrics on admitted requests and CPU, and the loader's fields
// (scenario/load_autoscale.cpp) with their error messages.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scenario/error.h"
#include "test_util.h"

namespace rlsim_test_autoscaler {

using namespace rlsim;
using nlohmann::json;

namespace {

// 400 req/s evenly spaced from one user, 2 instances at first, an HPA on offered requests per
// instance with a target of 50/s and the HPA's default behavior.
json constant_rate() {
  return json::parse(R"({
    "name": "hpa", "duration": "60s",
    "limits": [{"name": "per_user", "key": "user", "limit": 1000000, "window": "1s"}],
    "instances": {"count": 2, "autoscale": {"minReplicas": 1, "maxReplicas": 20,
      "metric": {"name": "offered_per_s", "averageValue": 50, "window": "15s"}}},
    "traffic": [{"name": "t", "users": 1, "rate": "400/s", "arrival": "constant"}],
    "strategies": ["in_memory"]})");
}

const std::vector<HpaDecision>& decisions_of(const RunResult& result) {
  return *result.strategies.front().autoscale;
}

std::string error_of(const json& scenario) {
  try {
    parse_scenario(scenario.dump(), "f.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("autoscaler: a constant 400/s matches the HPA formula computed by hand") {
  const Scenario scenario = parse_scenario(constant_rate().dump(), "t.json");
  const RunResult result = testing::run_text(scenario);
  const auto& d = decisions_of(result);
  // Syncs at 15, 30, 45 and 60 s.
  REQUIRE(d.size() == 4);
  // 15 s: 6000 requests over 2 instances in 15 s: 200/s each; ceil(2 x 200 / 50) = 8, the
  // default policies allow max(2 + 4, 2 x 2) = 6.
  CHECK(d[0].metric == Approx(200));
  CHECK(d[0].recommendation == 8);
  CHECK(d[0].desired == 6);
  CHECK(std::string(d[0].reason) == "ScaleUpLimit");
  // 30 s: 6 instances, 1000 requests each in [15 s, 30 s): 66.666/s, ceil(6 x 1.33332) = 8.
  CHECK(d[1].current_replicas == 6);
  CHECK(d[1].metric == Approx(66.666));
  CHECK(d[1].desired == 8);
  // 45 and 60 s: 8 x 50/s, on target.
  CHECK(d[2].metric == Approx(50));
  CHECK(d[2].desired == 8);
  CHECK(d[3].desired == 8);
  const auto& counts = result.strategies.front().instance_counts;
  REQUIRE(counts.size() == 3);
  CHECK(counts[1] == std::pair<TimeUs, int>{15 * kUsPerS, 6});
  CHECK(counts[2] == std::pair<TimeUs, int>{30 * kUsPerS, 8});
}

TEST_CASE("autoscaler: a new instance takes traffic after the start-up delay") {
  json j = constant_rate();
  j["instances"]["autoscale"]["start_up_delay"] = "10s";
  const Scenario scenario = parse_scenario(j.dump(), "t.json");
  const RunResult result = testing::run_text(scenario);
  const auto& counts = result.strategies.front().instance_counts;
  REQUIRE(counts.size() >= 2);
  CHECK(counts[1] == std::pair<TimeUs, int>{25 * kUsPerS, 6});
  const auto& d = decisions_of(result);
  // 30 s: 6 replicas, all ready. Over the 15 s window the 2 old ones took 200/s for 10 s and
  // 66.666/s for 5 s: 2333.33 / 15 = 155.55/s; the 4 new ones 66.666/s for their 5 s.
  // (2 x 155.555 + 4 x 66.666) / 6 = 96.296: ceil(6 x 1.926) = 12, within max(6 + 4, 12).
  CHECK(d[1].ready_pods == 6);
  CHECK(d[1].metric == Approx(96.296).epsilon(0.001));
  CHECK(d[1].recommendation == 12);
  CHECK(d[1].desired == 12);
}

TEST_CASE("autoscaler: on admitted requests the limiter shields the metric") {
  json j = constant_rate();
  j["limits"][0]["limit"] = 10;  // each in-memory instance admits 10/s
  j["instances"]["autoscale"]["metric"]["name"] = "admitted_per_s";
  j["instances"]["autoscale"]["minReplicas"] = 2;
  const Scenario scenario = parse_scenario(j.dump(), "t.json");
  const RunResult result = testing::run_text(scenario);  // kept: d refers into it
  const auto& d = decisions_of(result);
  CHECK(d[0].metric == Approx(10));
  CHECK(d[0].recommendation == 1);  // ceil(2 x 10 / 50)
  CHECK(d[0].desired == 2);
  CHECK(std::string(d[0].reason) == "TooFewReplicas");
}

TEST_CASE("autoscaler: the CPU metric costs admitted and denied requests") {
  json j = constant_rate();
  j["limits"][0]["limit"] = 10;
  j["instances"]["autoscale"]["metric"] = {{"name", "cpu"},
                                           {"averageValue", 200},
                                           {"cpu_per_admitted", "5ms"},
                                           {"cpu_per_denied", "1ms"}};
  const Scenario scenario = parse_scenario(j.dump(), "t.json");
  const RunResult result = testing::run_text(scenario);  // kept: d refers into it
  const auto& d = decisions_of(result);
  // Each instance: 10 admitted x 5 ms + 190 denied x 1 ms = 240 ms per second = 240 millicores;
  // 240 / 200 = 1.2, ceil(2 x 1.2) = 3.
  CHECK(d[0].metric == Approx(240));
  CHECK(d[0].desired == 3);
}

TEST_CASE("autoscaler: the loader checks its fields") {
  json j = constant_rate();
  j["instances"]["schedule"] = json::array({{{"at", "10s"}, {"count", 3}}});
  CHECK(error_of(j) == "f.json: instances.autoscale: not supported together with \"schedule\"");
  j = constant_rate();
  j["instances"]["autoscale"]["maxReplicas"] = 0;
  CHECK(error_of(j) ==
        "f.json: instances.autoscale.maxReplicas: expected an integer from 1 to 10000, got 0");
  j = constant_rate();
  j["instances"]["autoscale"]["sync_period"] = "1500ms";
  CHECK(error_of(j) == "f.json: instances.autoscale.sync_period: expected whole seconds");
  j = constant_rate();
  j["instances"]["autoscale"]["behavior"] = {
      {"scaleUp", {{"policies", {{{"type", "Nodes"}, {"value", 1}, {"periodSeconds", 15}}}}}}};
  CHECK(error_of(j) ==
        "f.json: instances.autoscale.behavior.scaleUp.policies[0].type: expected one of "
        "\"Pods\", \"Percent\", got \"Nodes\"");
  j = constant_rate();
  j["instances"]["autoscale"]["metric"]["cpu_per_admitted"] = "1ms";
  CHECK(error_of(j).rfind("f.json: instances.autoscale.metric.cpu_per_admitted: unknown field",
                          0) == 0);
}

}  // namespace rlsim_test_autoscaler
