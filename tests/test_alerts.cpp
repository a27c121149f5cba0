// Alert rules (scenario `alerts`, report/alerts.h): evaluation over hand-made series (fires after
// `for`, resolves, never fires, `below`), time to detect and excess before it, validation errors,
// and the redis-outage scenario's headline figures from a run.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "engine/run.h"
#include "oracle/alert_series.h"
#include "report/alerts.h"
#include "scenario/load.h"

namespace rlsim_test_alerts {

using namespace rlsim;

namespace {

// One-second steps: step i has `decisions` decisions of which `denied[i]` were denied, and
// `excess[i]` admissions beyond the limit.
AlertSeries denial_series(const std::vector<std::int64_t>& denied,
                          const std::vector<std::int64_t>& excess = {}) {
  AlertSeries series;
  for (std::size_t i = 0; i < denied.size(); ++i) {
    AlertStep step;
    step.decisions = 10;
    step.denied = denied[i];
    step.excess = i < excess.size() ? excess[i] : 0;
    step.latency[0] = 10;
    series.steps.push_back(step);
  }
  return series;
}

AlertRule rule(AlertMetric metric, bool above, double threshold, DurationUs for_us,
               DurationUs window_us = kUsPerS) {
  AlertRule r;
  r.name = std::string(1, 'a');
  r.metric = metric;
  r.above = above;
  r.threshold = threshold;
  r.for_us = for_us;
  r.window_us = window_us;
  return r;
}

FaultSpec fault_at(TimeUs at_us) {
  FaultSpec fault;
  fault.at_us = at_us;
  fault.for_us = 3 * kUsPerS;
  return fault;
}

std::string parse_error(const std::string& alerts) {
  const std::string text = fmt::format(
      R"({{"name": "t", "duration": "10s",
          "limits": [{{"name": "per_user", "key": "user", "limit": 10, "window": "1s"}}],
          "instances": {{"count": 1}},
          "traffic": [{{"name": "u", "users": 1, "rate": "10/s"}}],
          "alerts": {},
          "strategies": [{{"name": "redis_fixed_window"}}]}})",
      alerts);
  try {
    parse_scenario(text, "t.json");
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("alerts: fire once the condition held for `for`, then resolve") {
  // Denied share per second: 0, 0, 1, 1, 1, 1, 0, 0 (steps end at 1 s, 2 s, ...).
  const AlertSeries series = denial_series({0, 0, 10, 10, 10, 10, 0, 0}, {0, 0, 4, 3, 2, 1, 0, 0});
  const AlertRule r = rule(AlertMetric::kDeniedShare, true, 0.5, 2 * kUsPerS);
  const AlertTimeline timeline = evaluate_alert(r, series, {}, {fault_at(2 * kUsPerS)});
  // Holds from the evaluation at 3 s; 2 s later (at 5 s) it fires; at 7 s it no longer holds.
  REQUIRE(timeline.firings.size() == 1);
  CHECK(timeline.firings[0].fired_us == 5 * kUsPerS);
  CHECK(timeline.firings[0].resolved_us == 7 * kUsPerS);
  REQUIRE(timeline.faults.size() == 1);
  CHECK(timeline.faults[0].time_to_detect_us == 3 * kUsPerS);
  // Excess in the steps [2 s, 5 s): 4 + 3 + 2.
  CHECK(timeline.faults[0].excess_before_detect == 9);

  // Without `for` it fires at the first evaluation that holds.
  const AlertTimeline at_once = evaluate_alert(rule(AlertMetric::kDeniedShare, true, 0.5, 0),
                                               series, {}, {fault_at(2 * kUsPerS)});
  REQUIRE(at_once.firings.size() == 1);
  CHECK(at_once.firings[0].fired_us == 3 * kUsPerS);
  CHECK(at_once.faults[0].time_to_detect_us == kUsPerS);
  CHECK(at_once.faults[0].excess_before_detect == 4);
}

TEST_CASE("alerts: a condition shorter than `for` never fires; the window smooths") {
  const AlertSeries series = denial_series({0, 10, 0, 10, 0, 0}, {0, 5, 5, 5, 5, 5});
  const AlertTimeline timeline = evaluate_alert(
      rule(AlertMetric::kDeniedShare, true, 0.5, 2 * kUsPerS), series, {}, {fault_at(kUsPerS)});
  CHECK(timeline.firings.empty());
  REQUIRE(timeline.faults.size() == 1);
  CHECK(!timeline.faults[0].time_to_detect_us);
  CHECK(timeline.faults[0].excess_before_detect == 25);  // to the end of the run
  // Over a 2 s window the share reads 0.5, 0.5, 0.5, 0.5, 0 from 2 s: never above 0.5 either.
  const AlertTimeline windowed =
      evaluate_alert(rule(AlertMetric::kDeniedShare, true, 0.5, 0, 2 * kUsPerS), series, {}, {});
  CHECK(windowed.firings.empty());
  // denied_per_s over the same 2 s window: 5/s from 2 s on; above 4 it fires at 2 s and resolves at
  // 6 s.
  const AlertTimeline rate =
      evaluate_alert(rule(AlertMetric::kDeniedPerS, true, 4, 0, 2 * kUsPerS), series, {}, {});
  REQUIRE(rate.firings.size() == 1);
  CHECK(rate.firings[0].fired_us == 2 * kUsPerS);
  CHECK(rate.firings[0].resolved_us == 6 * kUsPerS);  // the 2 s window still holds step 3
}

TEST_CASE("alerts: below, quantiles from latency buckets, and firing before the fault") {
  AlertSeries series = denial_series({0, 0, 0, 0});
  // Step 2: 1 of 10 decisions took 5 to 10 ms: the p99 is in the (5 ms, 10 ms] bucket.
  series.steps[2].latency[0] = 9;
  series.steps[2].latency[6] = 1;
  const AlertTimeline p99 = evaluate_alert(rule(AlertMetric::kRateCheckP99Ms, true, 5, 0), series,
                                           {}, {fault_at(2 * kUsPerS)});
  REQUIRE(p99.firings.size() == 1);
  CHECK(p99.firings[0].fired_us == 3 * kUsPerS);
  CHECK(p99.firings[0].resolved_us == 4 * kUsPerS);
  CHECK(p99.faults[0].time_to_detect_us == kUsPerS);
  // The p50 stays in the first bucket (0.1 ms).
  CHECK(evaluate_alert(rule(AlertMetric::kRateCheckP50Ms, true, 0.1, 0), series, {}, {})
            .firings.empty());
  // `below`: fewer than 1 fallback per second holds from the first evaluation, so an alert on it
  // is already firing when a fault at 2 s starts: time to detect 0, no excess before.
  const AlertTimeline below = evaluate_alert(rule(AlertMetric::kFallbackPerS, false, 1, 0), series,
                                             {}, {fault_at(2 * kUsPerS)});
  REQUIRE(below.firings.size() == 1);
  CHECK(below.firings[0].fired_us == kUsPerS);
  CHECK(!below.firings[0].resolved_us);
  CHECK(below.faults[0].time_to_detect_us == 0);
  CHECK(below.faults[0].excess_before_detect == 0);
}

TEST_CASE("alerts: Redis utilization and queue of the busiest node") {
  AlertSeries series = denial_series({0, 0, 0});
  NodeResult quiet, busy;
  quiet.utilization_series = {1.0, {0.1, 0.1, 0.1}};
  busy.utilization_series = {1.0, {0.2, 0.95, 0.99}};
  busy.queue_length_max_series = {1.0, {0, 40, 3}};
  const std::vector<const NodeResult*> nodes{&quiet, &busy};
  const AlertTimeline utilization =
      evaluate_alert(rule(AlertMetric::kRedisUtilization, true, 0.9, 0), series, nodes, {});
  REQUIRE(utilization.firings.size() == 1);
  CHECK(utilization.firings[0].fired_us == 2 * kUsPerS);
  const AlertTimeline queue =
      evaluate_alert(rule(AlertMetric::kRedisQueue, true, 10, 0), series, nodes, {});
  REQUIRE(queue.firings.size() == 1);
  CHECK(queue.firings[0].resolved_us == 3 * kUsPerS);
}

TEST_CASE("alerts: validation names the entry and the field") {
  CHECK(parse_error(R"([{"name": "x", "metric": "rate_check_p99_ms", "above": 5}])").empty());
  CHECK_THAT(parse_error(R"([{"name": "x", "metric": "p99", "above": 5}])"),
             Catch::Contains("alerts[0].metric") && Catch::Contains("unknown metric \"p99\"") &&
                 Catch::Contains("\"rate_check_p99_ms\""));
  CHECK_THAT(parse_error(R"([{"name": "x", "metric": "denied_share", "above": 1, "below": 0}])"),
             Catch::Contains("alerts[0]") && Catch::Contains("got both"));
  CHECK_THAT(parse_error(R"([{"name": "x", "metric": "denied_share"}])"),
             Catch::Contains("expected one of \"above\" or \"below\""));
  CHECK_THAT(parse_error(R"([{"name": "x", "metric": "denied_share", "above": 1, "for": "-1s"}])"),
             Catch::Contains("alerts[0].for") && Catch::Contains("\"-1s\""));
  CHECK_THAT(
      parse_error(R"([{"name": "x", "metric": "denied_share", "above": 1, "window": "-5s"}])"),
      Catch::Contains("alerts[0].window"));
  CHECK_THAT(parse_error(R"([{"name": "a.b", "metric": "denied_share", "above": 1}])"),
             Catch::Contains("alerts[0].name"));
  CHECK_THAT(parse_error(R"([{"name": "x", "metric": "denied_share", "above": "5"}])"),
             Catch::Contains("alerts[0].above") && Catch::Contains("expected a number"));
  CHECK_THAT(parse_error(R"([{"name": "x", "metric": "denied_share", "above": 1},
                              {"name": "x", "metric": "errors_per_s", "above": 1}])"),
             Catch::Contains("alerts[1].name") && Catch::Contains("duplicate alert name"));
  CHECK_THAT(parse_error(R"([{"name": "x", "metric": "denied_share", "above": 1, "when": 2}])"),
             Catch::Contains("alerts[0].when") && Catch::Contains("unknown field"));
  CHECK(parse_error(R"([{"name": "x", "metric": "near_limit_share", "ratio": 1, "above": 0.5}])")
            .empty());
  CHECK_THAT(parse_error(R"([{"name": "x", "metric": "denied_share", "ratio": 0.8, "above": 1}])"),
             Catch::Contains("alerts[0].ratio") &&
                 Catch::Contains("only the metric \"near_limit_share\" takes a ratio"));
  for (const char* ratio : {"0", "1.5", "\"0.8\""})
    CHECK_THAT(
        parse_error(fmt::format(
            R"([{{"name": "x", "metric": "near_limit_share", "ratio": {}, "above": 1}}])", ratio)),
        Catch::Contains("alerts[0].ratio") &&
            Catch::Contains("expected a number above 0 and at most 1"));
  CHECK_THAT(parse_error(R"({"name": "x"})"),
             Catch::Contains("alerts") && Catch::Contains("expected an array"));
}

TEST_CASE("alerts: near_limit_share counts the strategy's own count against a ratio of the limit") {
  // Limit 10 per second: ratio 0.8 means a count before the request of 8 or more, 0.5 of 5.
  Scenario scenario = parse_scenario(
      R"({"name": "t", "duration": "3s",
          "limits": [{"name": "per_user", "key": "user", "limit": 10, "window": "1s"}],
          "instances": {"count": 1}, "traffic": [{"name": "u", "users": 1, "rate": "10/s"}],
          "alerts": [{"name": "near", "metric": "near_limit_share", "above": 0.5},
                     {"name": "half", "metric": "near_limit_share", "ratio": 0.5, "above": 0.5},
                     {"name": "p99", "metric": "rate_check_p99_ms", "above": 5}],
          "strategies": [{"name": "in_memory"}]})",
      "t.json");
  REQUIRE(scenario.alerts[0].near_limit_ratio == 0.8);
  REQUIRE(scenario.alerts[1].near_limit_ratio == 0.5);
  Oracle oracle(scenario.limits, Algorithm::kFixedWindow);
  AlertWatch watch(scenario, oracle);
  Request request;
  const auto decide = [&](TimeUs at_us, std::int64_t observed, std::int64_t counted_before) {
    Outcome outcome;
    outcome.observed_count = observed;
    outcome.counted_before = counted_before;
    request.arrival_us = at_us;
    watch.on_decided(DecidedRequest{request, outcome, at_us, 1, false});
  };
  // Second 0: counts 0..9 (counted_before), one decision without a count (not in the share).
  for (std::int64_t count = 0; count < 10; ++count) decide(count * 1000, -1, count);
  decide(20'000, -1, -1);
  // Second 1: an observed count wins over counted_before; 7 is near neither way at 0.8.
  decide(kUsPerS + 1, 8, 0);
  decide(kUsPerS + 2, 7, 9);
  // Second 2: nothing with a count.
  decide(2 * kUsPerS + 1, -1, -1);
  const AlertSeries& series = watch.series();
  REQUIRE(series.near_limit_ratios == std::vector<double>{0.5, 0.8});
  CHECK(series.counted == std::vector<std::int64_t>{10, 2, 0});
  // Per step, ratio 0.5 then 0.8: second 0 has 5..9 (5) and 8, 9 (2); second 1: 8 (and 7 at 0.5).
  CHECK(series.near_limit == std::vector<std::int64_t>{5, 2, 2, 1, 0, 0});
  const std::vector<std::optional<double>> near = alert_values(scenario.alerts[0], series, {});
  REQUIRE(near.size() == 3);
  CHECK(*near[0] == Approx(0.2));
  CHECK(*near[1] == Approx(0.5));
  CHECK_FALSE(near[2]);  // no decision with a count: no value
  const std::vector<std::optional<double>> half = alert_values(scenario.alerts[1], series, {});
  CHECK(*half[0] == Approx(0.5));
  CHECK(*half[1] == Approx(1.0));
  // "above 0.5" holds only for ratio 0.5 in second 1: fired at its end, resolved at the next.
  const AlertTimeline timeline = evaluate_alert(scenario.alerts[1], series, {}, {});
  REQUIRE(timeline.firings.size() == 1);
  CHECK(timeline.firings[0].fired_us == 2 * kUsPerS);
  CHECK(timeline.firings[0].resolved_us == 3 * kUsPerS);
  CHECK(timeline.counted_decisions == 12);
  CHECK_FALSE(evaluate_alert(scenario.alerts[2], series, {}, {}).counted_decisions);
}

TEST_CASE("alerts: near_limit_share has no value for a strategy that reports no count") {
  // One user at 40/s against 10 per second: in_memory's count reaches the limit in every second;
  // redis_gcra's script answers only allowed or not, so its share never has a value.
  const Scenario scenario = parse_scenario(
      R"({"name": "t", "duration": "5s", "seed": 3,
          "limits": [{"name": "per_user", "key": "user", "limit": 10, "window": "1s"}],
          "instances": {"count": 1}, "traffic": [{"name": "u", "users": 1, "rate": "40/s"}],
          "alerts": [{"name": "near", "metric": "near_limit_share", "above": 0.5, "window": "1s"}],
          "strategies": [{"name": "in_memory"}, {"name": "redis_gcra"}]})",
      "t.json");
  const auto resolved = resolve_strategies(scenario, scenario.file);
  const StrategyResult counting = run_strategy(scenario, resolved.at(0), scenario.seed);
  const StrategyResult gcra = run_strategy(scenario, resolved.at(1), scenario.seed);
  const AlertTimeline seen = alert_timelines(scenario, counting).at(0);
  CHECK(seen.counted_decisions == counting.totals.offered);  // in_memory reports every count
  REQUIRE_FALSE(seen.firings.empty());
  CHECK(seen.firings[0].fired_us == kUsPerS);  // ~40 a second: ~30 of them at 8 or more
  const AlertTimeline blind = alert_timelines(scenario, gcra).at(0);
  CHECK(blind.counted_decisions == 0);
  CHECK(blind.firings.empty());
  for (const auto& value : alert_values(scenario.alerts[0], *gcra.alert_series, {}))
    CHECK_FALSE(value);
  const nlohmann::ordered_json json = alerts_json(scenario, gcra).at("near");
  CHECK(json.at("ratio") == 0.8);
  CHECK(json.at("counted_decisions") == 0);
  CHECK(json.at("first_fired_s").is_null());
  CHECK(json.at("fired_count") == 0);
  CHECK(alerts_json(scenario, counting).at("near").at("fired_count") == seen.firings.size());
  RunResult result;
  result.scenario = &scenario;
  result.strategies = {counting, gcra};
  CHECK_THAT(alert_notes(result),
             Catch::Contains("redis_gcra: near (near_limit_share (ratio 0.8) > 0.5 for 0us over "
                             "1s): never fired: no value, the strategy reported no count"));
}

TEST_CASE("alerts: redis-outage, the lesson's alerts against a 20 s black hole at 3:00") {
  const Scenario scenario =
      load_scenario(std::string(RLSIM_SOURCE_DIR) + "/scenarios/redis-outage.json");
  const auto resolved = resolve_strategies(scenario, scenario.file);
  // fail_open: every call waits the 100 ms timeout from 180 s, so the p99 over 10 s passes 5 ms
  // at the first evaluation after the start (181 s) and holds 1 s (for: 1s): fired at 182 s.
  const StrategyResult fail_open = run_strategy(scenario, resolved.at(0), scenario.seed);
  const std::vector<AlertTimeline> timelines = alert_timelines(scenario, fail_open);
  REQUIRE(timelines.size() == 4);
  REQUIRE(timelines[0].rule->name == "rate_check_p99");
  REQUIRE(!timelines[0].firings.empty());
  CHECK(timelines[0].faults.at(0).time_to_detect_us == 2 * kUsPerS);
  // Each user's first 100 of the window at 10/s take 10 s: detected before any excess.
  CHECK(timelines[0].faults.at(0).excess_before_detect == 0);
  // fail_open's timeouts count as fallback decisions: the first (at 180.1 s) shows at 181 s.
  REQUIRE(!timelines[1].firings.empty());
  CHECK(timelines[1].faults.at(0).time_to_detect_us == kUsPerS);
  // near_limit reads INCR's replies: none during the outage, so it has no value from 3:00 and
  // resolves once its 10 s window holds no count, mid-outage.
  REQUIRE(timelines[3].rule->name == "near_limit");
  const std::vector<std::optional<double>> near =
      alert_values(*timelines[3].rule, *fail_open.alert_series, {});
  CHECK(near.at(178));  // the step [178 s, 179 s) and the 10 s before it
  for (std::size_t second = 189; second < 200; ++second) CHECK_FALSE(near.at(second));
  bool resolved_mid_outage = false;
  for (const AlertFiring& firing : timelines[3].firings)
    resolved_mid_outage = resolved_mid_outage || firing.resolved_us == 190 * kUsPerS;
  CHECK(resolved_mid_outage);
  // denial_spike watches a minute: 5 of 6 requests are denied in every minute whether Redis is up
  // or not (6x the limit), which stays under 0.9, so fail_open, admitting through the outage,
  // never fires it; fail_closed, admitting nothing from 3:00, fires it once, when its minute
  // holds fewer than 600 of the 1000 admissions (about 3:04 plus `for`).
  REQUIRE(timelines[2].rule->name == "denial_spike");
  CHECK(timelines[2].firings.empty());
  const StrategyResult fail_closed = run_strategy(scenario, resolved.at(1), scenario.seed);
  const AlertTimeline spike = alert_timelines(scenario, fail_closed).at(2);
  REQUIRE(spike.firings.size() == 1);
  CHECK(spike.firings[0].fired_us >= 184 * kUsPerS);
  CHECK(spike.firings[0].fired_us <= 190 * kUsPerS);
  REQUIRE(spike.firings[0].resolved_us);
  CHECK(*spike.firings[0].resolved_us > 200 * kUsPerS);  // Redis back at 3:20: admissions again
}

}  // namespace rlsim_test_alerts
