// Shadow mode ("mode": "shadow", engine/shadow.h, report/shadow_report.h): the run admits every
// request, counts what the strategy would have denied, and compares it with the enforcing run of
// the same strategy request by request.
#include <catch2/catch.hpp>
#include <fstream>

#include "report/report.h"
#include "report/shadow_report.h"
#include "test_util.h"

namespace rlsim_test_shadow {

using namespace rlsim;
using rlsim::testing::by_label;
using rlsim::testing::run_text;

namespace {

// One user sends 5 requests 200 ms apart (constant arrivals at 0, 0.2, ..., 0.8 s), all in one
// 10 s window of a fixed-window limit of 2.
const char* const kFiveInOneWindow = R"({
  "name": "shadow-five", "seed": 1, "duration": "1s",
  "limits": [{"name": "per_user", "key": "user", "limit": 2, "window": "10s"}],
  "instances": {"count": 1},
  "traffic": [{"name": "g", "users": 1, "rate": "5/s", "arrival": "constant"}],
  "redis": {"rtt": {"p50": "0.5ms", "p99": "0.5ms"}, "timeout": "20ms"},
  "strategies": [
    {"name": "redis_fixed_window", "label": "enforce"},
    {"name": "redis_fixed_window", "label": "shadow", "mode": "shadow"}
  ]
})";

}  // namespace

TEST_CASE("a shadow fixed window admits all five and would deny three") {
  const Scenario scenario = parse_scenario(kFiveInOneWindow, "five.json");
  REQUIRE(scenario.strategies[1].mode == StrategyMode::kShadow);
  const RunResult run = run_text(scenario);
  const StrategyResult& enforce = by_label(run, "enforce");
  const StrategyResult& shadow = by_label(run, "shadow");
  CHECK(enforce.totals.offered == 5);
  CHECK(enforce.totals.allowed == 2);
  CHECK(enforce.totals.denied == 3);
  CHECK_FALSE(enforce.shadow.has_value());
  CHECK(shadow.totals.offered == 5);
  CHECK(shadow.totals.allowed == 5);
  CHECK(shadow.totals.denied == 0);
  REQUIRE(shadow.shadow.has_value());
  CHECK(shadow.shadow->would_deny == 3);
  // The ideal fixed window denies the same three: every would-be denial is right.
  CHECK(shadow.shadow->would_deny_rightly == 3);
  CHECK(shadow.shadow->would_deny_wrongly == 0);
  // With the limiter off the oracle sees the true overload: 5 in a window of 2, 3 too many.
  CHECK(shadow.totals.limits[0].excess == 3);
  CHECK(enforce.totals.limits[0].excess == 0);
  // INCR before the decision: both runs count all five and decide the same, request by request.
  const auto agreement = shadow_agreement(shadow, run);
  REQUIRE(agreement.has_value());
  CHECK(agreement->label == "enforce");
  CHECK(agreement->compared == 5);
  CHECK(agreement->agreed == 5);
  CHECK(agreement->both_denied == 3);
  CHECK(agreement->agreement() == 1.0);
  // The same Redis load and latency as the enforcing run.
  CHECK(shadow.redis_commands == enforce.redis_commands);
  CHECK(shadow.totals.latency_us.max() == enforce.totals.latency_us.max());
}

TEST_CASE("the shadow block is written for shadow runs only") {
  const Scenario scenario = parse_scenario(kFiveInOneWindow, "five.json");
  const RunResult run = run_text(scenario);
  const auto report = report_json(run);
  CHECK_FALSE(report["strategies"][0].contains("shadow"));
  const auto& block = report["strategies"][1]["shadow"];
  CHECK(block["would_deny"] == 3);
  CHECK(block["would_deny_rate"] == 0.6);
  CHECK(block["would_deny_rightly"] == 3);
  CHECK(block["would_deny_wrongly"] == 0);
  CHECK(block["excess_unlimited"] == 3);
  CHECK(block["enforcing"]["label"] == "enforce");
  CHECK(block["enforcing"]["denied"] == 3);
  CHECK(block["enforcing"]["agreement"] == 1.0);
  CHECK(block["enforcing"]["only_shadow_denied"] == 0);
  // In full (the table wraps long lines): the shadow block of detail_notes, report.md's Details.
  const std::string table = detail_notes(run);
  CHECK(table.find("shadow shadow: would deny 3 of 5 (60.00%; 3 rightly, 0 wrongly") !=
        std::string::npos);
  CHECK(table.find("against enforce: same decision for 100.00% of 5 requests") !=
        std::string::npos);
}

TEST_CASE("a shadow run without an enforcing partner has no agreement") {
  nlohmann::json j = nlohmann::json::parse(kFiveInOneWindow);
  j["strategies"] = {{{"name", "redis_fixed_window"}, {"mode", "shadow"}},
                     {{"name", "redis_fixed_window"}, {"label", "other"}, {"on_error", "deny"}}};
  const Scenario scenario = parse_scenario(j.dump(), "five.json");
  const auto resolved = resolve_strategies(scenario, "five.json");
  CHECK(resolved[0].partner.empty());
  CHECK(resolved[1].partner.empty());
  const RunResult run = run_text(scenario);
  CHECK(by_label(run, "redis_fixed_window").shadow->would_deny == 3);
  CHECK_FALSE(shadow_agreement(by_label(run, "redis_fixed_window"), run).has_value());
  CHECK_FALSE(report_json(run)["strategies"][0]["shadow"].contains("enforcing"));
}

TEST_CASE("the shadow pairs with the enforcing run with the same parameters, defaults filled in") {
  nlohmann::json j = nlohmann::json::parse(kFiveInOneWindow);
  j["strategies"] = {{{"name", "redis_sliding_log"}, {"label", "a"}, {"on_error", "deny"}},
                     {{"name", "redis_sliding_log"}, {"label", "b"}},
                     {{"name", "redis_sliding_log"}, {"label", "s"}, {"mode", "shadow"}}};
  const Scenario scenario = parse_scenario(j.dump(), "five.json");
  const auto resolved = resolve_strategies(scenario, "five.json");
  CHECK(resolved[2].partner == "b");
  CHECK(resolved[1].partner == "s");
  CHECK(resolved[0].partner.empty());
}

TEST_CASE("a bad mode is rejected with its path") {
  nlohmann::json j = nlohmann::json::parse(kFiveInOneWindow);
  j["strategies"][1]["mode"] = "dry";
  CHECK_THROWS_WITH(
      parse_scenario(j.dump(), "five.json"),
      "five.json: strategies[1].mode: expected \"enforce\" or \"shadow\", got \"dry\"");
  j["strategies"][1]["mode"] = 1;
  CHECK_THROWS_WITH(parse_scenario(j.dump(), "five.json"),
                    "five.json: strategies[1].mode: expected a string, got an integer");
  j["strategies"][1]["mode"] = "enforce";
  CHECK(parse_scenario(j.dump(), "five.json").strategies[1].mode == StrategyMode::kEnforce);
}

TEST_CASE("shadow-mode.json: each dry run predicts its enforcing twin request by request") {
  const Scenario scenario = load_scenario(RLSIM_SOURCE_DIR "/scenarios/shadow-mode.json");
  const RunResult run = run_text(scenario);
  for (const std::string label : {"fixed", "log", "bucket"}) {
    INFO(label);
    const StrategyResult& enforce = by_label(run, label);
    const StrategyResult& shadow = by_label(run, label + "-shadow");
    REQUIRE(shadow.shadow.has_value());
    const auto agreement = shadow_agreement(shadow, run);
    REQUIRE(agreement.has_value());
    // Open-loop traffic, and the strategy never learns that the run overrode it.
    CHECK(agreement->compared == enforce.totals.offered);
    CHECK(agreement->agreement() == 1.0);
    CHECK(shadow.shadow->would_deny == enforce.totals.denied);
    CHECK(shadow.shadow->would_deny_wrongly == enforce.totals.limits[0].false_denials);
    CHECK(shadow.totals.denied == 0);
    CHECK(shadow.redis_commands == enforce.redis_commands);
    // The limiter off: every shadow sees the same true overload, well past the limit.
    CHECK(shadow.totals.limits[0].excess == by_label(run, "fixed-shadow").totals.limits[0].excess);
    CHECK(shadow.totals.limits[0].excess > enforce.totals.limits[0].excess);
  }
}

TEST_CASE("shadow-retries.json: once clients retry, the dry run underestimates enforcement") {
  const Scenario scenario = load_scenario(RLSIM_SOURCE_DIR "/scenarios/shadow-retries.json");
  const RunResult run = run_text(scenario);
  for (const std::string label : {"fixed", "log"}) {
    INFO(label);
    const StrategyResult& enforce = by_label(run, label);
    const StrategyResult& shadow = by_label(run, label + "-shadow");
    REQUIRE(enforce.retries.has_value());
    const RetryResult& retries = *enforce.retries;
    // Every retry is a request of the enforcing run only; every chain ends somewhere.
    CHECK(shadow.retries->sent == 0);
    CHECK(enforce.totals.offered == shadow.totals.offered + retries.sent);
    CHECK(retries.first_denied == retries.admitted + retries.gave_up + retries.cut);
    const auto agreement = shadow_agreement(shadow, run);
    REQUIRE(agreement.has_value());
    CHECK(agreement->compared == shadow.totals.offered);
    CHECK(agreement->agreement() < 0.7);
    CHECK(agreement->retries == std::optional<std::int64_t>(retries.sent));
    // The prediction falls short of the first sends denied, and further of all denials.
    CHECK(shadow.shadow->would_deny * 2 < retries.first_denied);
    CHECK(retries.first_denied < enforce.totals.denied);
    CHECK(shadow.redis_commands * 3 < enforce.redis_commands * 2);
  }
  const auto fixed = shadow_agreement(by_label(run, "fixed-shadow"), run);
  CHECK(by_label(run, "fixed-shadow").shadow->would_deny == 371);
  CHECK(by_label(run, "fixed").totals.denied == 3072);
  // A fixed window's counts only grow with retries: it denies every first send the dry run would.
  CHECK(fixed->only_shadow_denied == 0);
  CHECK(fixed->only_enforcing_denied == 896);

  // The same scenario without retry: the dry runs agree with enforcement on every request.
  std::ifstream file(RLSIM_SOURCE_DIR "/scenarios/shadow-retries.json");
  nlohmann::json j = nlohmann::json::parse(file);
  j["traffic"][0].erase("retry");
  j.erase("expect");
  const Scenario open_loop = parse_scenario(j.dump(), "open-loop.json");
  const RunResult open_run = run_text(open_loop);
  for (const std::string label : {"fixed", "log"}) {
    INFO(label);
    const StrategyResult& shadow = by_label(open_run, label + "-shadow");
    const auto agreement = shadow_agreement(shadow, open_run);
    REQUIRE(agreement.has_value());
    CHECK(agreement->agreement() == 1.0);
    CHECK(shadow.shadow->would_deny == by_label(open_run, label).totals.denied);
    CHECK_FALSE(agreement->retries.has_value());
  }
}

namespace {

// kFiveInOneWindow with a window of 1 s, run for 6 s, and clients that send a denied request
// again 1 s later, then 2 s after that.
Scenario five_retrying(bool retry) {
  nlohmann::json j = nlohmann::json::parse(kFiveInOneWindow);
  j["duration"] = "6s";
  j["limits"][0]["window"] = "1s";
  j["traffic"][0]["end"] = "1s";
  if (retry) j["traffic"][0]["retry"] = {{"after", "1s"}, {"max", 2}, {"backoff", 2}};
  return parse_scenario(j.dump(), "five.json");
}

}  // namespace

TEST_CASE("retries of a fixed window: admitted in the next window, counted when denied") {
  const Scenario scenario = five_retrying(true);
  const RunResult run = run_text(scenario);
  const StrategyResult& enforce = by_label(run, "enforce");
  // Window [0, 1 s): the first two admitted, the last three (0.4, 0.6, 0.8 s) denied. Their
  // retries arrive about 1.4, 1.6, 1.8 s: the window [1 s, 2 s) admits two and denies the third,
  // whose second retry (about 3.8 s) is admitted in [3 s, 4 s).
  REQUIRE(enforce.retries.has_value());
  CHECK(enforce.retries->first_denied == 3);
  CHECK(enforce.retries->sent == 4);
  CHECK(enforce.retries->admitted == 3);
  CHECK(enforce.retries->gave_up == 0);
  CHECK(enforce.retries->cut == 0);
  CHECK(enforce.totals.offered == 9);
  CHECK(enforce.totals.allowed == 5);
  CHECK(enforce.totals.denied == 4);
  // The dry run admits all five first sends: its clients retry nothing.
  const StrategyResult& shadow = by_label(run, "shadow");
  CHECK(shadow.totals.offered == 5);
  CHECK(shadow.retries->sent == 0);
  CHECK(shadow.shadow->would_deny == 3);
  // Compared over the five first sends, which both runs decide alike here; the retries apart.
  const auto agreement = shadow_agreement(shadow, run);
  REQUIRE(agreement.has_value());
  CHECK(agreement->compared == 5);
  CHECK(agreement->agreement() == 1.0);
  CHECK(agreement->retries == std::optional<std::int64_t>(4));
  CHECK(agreement->denied == 4);
  const auto report = report_json(run);
  CHECK(report["strategies"][0]["retries"]["sent"] == 4);
  CHECK(report["strategies"][0]["retries"]["admitted"] == 3);
  CHECK(report["strategies"][1]["shadow"]["enforcing"]["retries"] == 4);
  CHECK_THAT(report_table(run, false),
             Catch::Contains("enforce: retrying clients: 3 first sends denied; 4 retries sent, 3 "
                             "admitted; 0 gave up, 0 cut by the end"));
}

TEST_CASE("a scenario without retry reports no retries and keeps its decisions") {
  const Scenario scenario = five_retrying(false);
  const RunResult run = run_text(scenario);
  CHECK_FALSE(by_label(run, "enforce").retries.has_value());
  CHECK(by_label(run, "enforce").totals.offered == 5);
  const auto report = report_json(run);
  CHECK_FALSE(report["strategies"][0].contains("retries"));
  CHECK_FALSE(report["strategies"][1]["shadow"]["enforcing"].contains("retries"));
  // The first sends of the retrying run are decided at the same times as without retry: the
  // retries' own random stream moves nothing else.
  const Scenario retrying = five_retrying(true);
  const RunResult with_retry = run_text(retrying);
  CHECK(by_label(with_retry, "shadow").decision_digest == by_label(run, "shadow").decision_digest);
}

}  // namespace rlsim_test_shadow
