// The fault schedule: parsing and its errors, and each fault's effect on small hand-computed
// traffic (constant arrivals every 100 ms, a fixed round trip, no service time).
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <tuple>

#include "engine/faults.h"
#include "engine/run.h"
#include "report/result_json.h"
#include "scenario/load.h"
#include "strategy/registry.h"

namespace rlsim_test_faults {

using namespace rlsim;
using nlohmann::json;

namespace {

// One user at 10/s (arrivals at 0, 100 ms, 200 ms, ...) for 4 s; round trip 1 ms, timeout 50 ms.
std::string scenario_text(const std::string& faults, const std::string& strategy,
                          const std::string& extra = "", int instances = 1,
                          const std::string& limit = "1000") {
  return fmt::format(
      R"({{"name": "t", "duration": "4s",
          "limits": [{{"name": "per_user", "key": "user", "limit": {}, "window": "1m"}}],
          "instances": {{"count": {}}},
          "traffic": [{{"name": "u", "users": 1, "rate": "10/s", "arrival": "constant"}}],
          "redis": {{"rtt": "1ms", "service_time": "0us", "timeout": "50ms"{}}},
          "faults": [{}],
          "strategies": [{}]}})",
      limit, instances, extra, faults, strategy);
}

struct Run {
  StrategyResult result;
  json extra;  // the fields faults.cpp adds
};

Run run(const std::string& text) {
  const Scenario scenario = parse_scenario(text, "t.json");
  const auto resolved = resolve_strategies(scenario, "t.json");
  Run out{run_strategy(scenario, resolved.at(0), 1), {}};
  out.extra = json::parse(redis_side_json(out.result.redis_side.value()).dump());
  return out;
}

std::string parse_error(const std::string& faults, const std::string& redis_extra = "") {
  try {
    parse_scenario(scenario_text(faults, "\"redis_fixed_window\"", redis_extra), "t.json");
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("faults: parsed with their defaults") {
  const Scenario s =
      parse_scenario(scenario_text(R"({"type": "redis_down", "at": "1s", "for": "500ms"},
                      {"type": "partition", "at": "2s", "for": "1s", "instances": [0, 2]},
                      {"type": "redis_latency", "at": "0s", "for": "4s", "added": "5ms", "jitter": "15ms"},
                      {"type": "redis_slow", "at": "1s", "for": "1s", "multiplier": 20},
                      {"type": "instance_crash", "at": "3s", "instances": "all"})",
                                   "\"redis_fixed_window\"", R"(, "pool": 4)"),
                     "t.json");
  REQUIRE(s.faults.size() == 5);
  CHECK(s.redis.pool_size == 4);
  CHECK(s.faults[0].type == FaultType::kRedisDown);
  CHECK(s.faults[0].mode == FaultMode::kRefuse);
  CHECK(s.faults[0].at_us == kUsPerS);
  CHECK(s.faults[0].for_us == 500 * kUsPerMs);
  CHECK(s.faults[1].mode == FaultMode::kBlackhole);  // a partition drops packets by default
  CHECK(s.faults[1].instances == std::vector<std::uint32_t>{0, 2});
  CHECK_FALSE(s.faults[1].all_instances);
  CHECK(s.faults[2].added_rtt_us == 5000);
  CHECK(s.faults[2].rtt_jitter_us == 15000);
  CHECK(s.faults[2].rtt_multiplier == 1.0);
  CHECK(s.faults[3].service_multiplier == 20.0);
  CHECK(s.faults[4].all_instances);
  CHECK_FALSE(s.faults[4].restarts);
  CHECK(s.faults[4].for_us == kUsPerS);  // down to the end of the run
}

TEST_CASE("faults: a peer partition lists one side of the cut") {
  const Scenario s = parse_scenario(
      scenario_text(R"({"type": "peer_partition", "at": "1s", "for": "2s", "instances": [1, 2]},
                      {"type": "peer_partition", "at": "3s", "for": "1s", "instances": "all"})",
                    "\"redis_fixed_window\""),
      "t.json");
  REQUIRE(s.faults.size() == 2);
  CHECK(s.faults[0].type == FaultType::kPeerPartition);
  CHECK(std::string(to_string(s.faults[0].type)) == "peer_partition");
  CHECK(s.faults[0].instances == std::vector<std::uint32_t>{1, 2});
  CHECK_FALSE(s.faults[0].all_instances);
  CHECK(s.faults[0].for_us == 2 * kUsPerS);
  CHECK(s.faults[1].all_instances);
}

TEST_CASE("faults: redis_failover's phases, their defaults and what it is refused on") {
  const Scenario s = parse_scenario(
      scenario_text(R"({"type": "redis_failover", "at": "1s", "replication_lag": "20ms",
                        "down_after": "1s", "discovery": "250ms", "mode": "blackhole"})",
                    "\"redis_fixed_window\""),
      "t.json");
  REQUIRE(s.faults.size() == 1);
  CHECK(s.faults[0].type == FaultType::kRedisFailover);
  CHECK(s.faults[0].replication_lag_us == 20 * kUsPerMs);
  CHECK(s.faults[0].down_after_us == kUsPerS);
  CHECK(s.faults[0].promotion_us == kUsPerS);  // the default
  CHECK(s.faults[0].discovery_us == 250 * kUsPerMs);
  CHECK(s.faults[0].for_us == 2250 * kUsPerMs);  // their sum
  CHECK(s.faults[0].mode == FaultMode::kBlackhole);
  // Sentinel's down-after-milliseconds default, 30 s; a cluster's cluster-node-timeout, 15 s.
  const auto long_text = [](const std::string& redis_extra) {
    return fmt::format(
        R"({{"name": "t", "duration": "1m",
            "limits": [{{"name": "per_user", "key": "user", "limit": 10, "window": "1m"}}],
            "instances": {{"count": 1}},
            "traffic": [{{"name": "u", "users": 1, "rate": "1/s"}}],
            "redis": {{"rtt": "1ms"{}}},
            "faults": [{{"type": "redis_failover", "at": "1s", "replication_lag": "0us"}}],
            "strategies": ["redis_fixed_window"]}})",
        redis_extra);
  };
  CHECK(parse_scenario(long_text(""), "t.json").faults[0].down_after_us == 30 * kUsPerS);
  CHECK(
      parse_scenario(long_text(R"(, "cluster": {"nodes": 3})"), "t.json").faults[0].down_after_us ==
      15 * kUsPerS);
  try {
    parse_scenario(long_text(R"(, "url": "redis://127.0.0.1:6379")"), "t.json");
    FAIL("a real Redis was accepted");
  } catch (const ScenarioError& error) {
    CHECK(std::string(error.what()) ==
          "t.json: faults[0].type: redis_failover is embedded-only: remove redis.url / "
          "redis.cluster_url");
  }
}

TEST_CASE("faults: redis_failover on a run loses the lag's increments") {
  // One user at 10/s (calls run 0.5 ms after each arrival); the primary goes away at 2 s with
  // 300 ms of lag: the INCRs of the requests at 1.7, 1.8 and 1.9 s are lost.
  const Run r = run(scenario_text(R"({"type": "redis_failover", "at": "2s",
                                      "replication_lag": "300ms", "down_after": "500ms",
                                      "promotion": "0us"})",
                                  R"({"name": "redis_fixed_window", "on_error": "fail_closed"})"));
  const json& fault = r.extra["faults"][0];
  CHECK(fault["type"] == "redis_failover");
  CHECK(fault["for_s"] == 0.5);
  CHECK(fault["failover"]["lost_increments"] == 3);
  CHECK(fault["failover"]["lost_writes"] == 3);
  CHECK(fault["failover"]["promoted_s"] == 2.5);
  CHECK(fault["during"]["allowed"] == 0);
  CHECK(fault["during"]["offered"] == 5);
}

TEST_CASE("faults: redis_failover on an embedded cluster fails over every node it hits") {
  // As above, on 3 masters each with its own replica: the user's counter lives on one of them.
  // (A service time of 5 us: an embedded cluster with 0 us crashes in main's report code.)
  const std::string text = R"({"name": "t", "duration": "4s",
      "limits": [{"name": "per_user", "key": "user", "limit": 1000, "window": "1m"}],
      "instances": {"count": 1},
      "traffic": [{"name": "u", "users": 1, "rate": "10/s", "arrival": "constant"}],
      "redis": {"rtt": "1ms", "service_time": "5us", "timeout": "50ms", "cluster": {"nodes": 3}},
      "faults": [{"type": "redis_failover", "at": "2s", "replication_lag": "300ms",
                  "down_after": "500ms", "promotion": "0us"}],
      "strategies": [{"name": "redis_fixed_window", "on_error": "fail_closed"}]})";
  const Run all = run(text);
  CHECK(all.extra["faults"][0]["failover"]["lost_increments"] == 3);
  CHECK(all.extra["faults"][0]["for_s"] == 0.5);
}

TEST_CASE("faults: every mistake names the path and what was expected") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"type": "meteor", "at": "1s", "for": "1s"})",
       "t.json: faults[0].type: expected one of \"redis_down\", \"redis_latency\", "
       "\"redis_slow\", \"partition\", \"instance_crash\", \"redis_restart\", "
       "\"peer_partition\", \"redis_failover\", \"clock_offset\", \"clock_drift\", "
       "\"clock_jump\", got \"meteor\""},
      {R"({"type": "redis_down", "at": "1s"})", "t.json: faults[0].for: required field is missing"},
      {R"({"type": "redis_down", "at": "1s", "for": "5s"})",
       "t.json: faults[0].for: expected a duration from 1us to 3s, got \"5s\""},
      {R"({"type": "redis_down", "at": "4s", "for": "1s"})",
       "t.json: faults[0].at: expected a time before the end of the run (4s)"},
      {R"({"type": "redis_down", "at": "1s", "for": "1s", "mode": "off"})",
       "t.json: faults[0].mode: expected one of \"refuse\", \"blackhole\", got \"off\""},
      {R"({"type": "redis_latency", "at": "1s", "for": "1s"})",
       "t.json: faults[0]: expected at least one of \"added\", \"multiplier\", \"jitter\""},
      {R"({"type": "redis_latency", "at": "1s", "for": "1s", "multiplier": 0.5})",
       "t.json: faults[0].multiplier: expected a number from 1 to 1000, got 0.5"},
      {R"({"type": "redis_slow", "at": "1s", "for": "1s"})",
       "t.json: faults[0].multiplier: required field is missing"},
      {R"({"type": "partition", "at": "1s", "for": "1s"})",
       "t.json: faults[0].instances: required field is missing (\"all\" or a list of ids)"},
      {R"({"type": "partition", "at": "1s", "for": "1s", "instances": [1, 1]})",
       "t.json: faults[0].instances[1]: duplicate instance id"},
      {R"({"type": "partition", "at": "1s", "for": "1s", "instances": "some"})",
       "t.json: faults[0].instances: expected \"all\" or a non-empty array of instance ids, got "
       "\"some\""},
      {R"({"type": "peer_partition", "at": "1s", "for": "1s"})",
       "t.json: faults[0].instances: required field is missing (\"all\" or a list of ids)"},
      {R"({"type": "peer_partition", "at": "1s", "for": "1s", "instances": [0], "mode": "refuse"})",
       "t.json: faults[0].mode: unknown field (expected one of: at, for, instances, type)"},
      {R"({"type": "redis_down", "at": "1s", "for": "1s", "nodes": [0]})",
       "t.json: faults[0].nodes: a node index needs \"redis.cluster\" (the scenario has one Redis "
       "node)"},
      {R"({"type": "redis_down", "at": "1s", "for": "1s", "instances": "all"})",
       "t.json: faults[0].instances: unknown field (expected one of: at, for, mode, nodes, region, "
       "type)"},
      {R"({"type": "instance_crash", "at": "1s", "for": "1s", "instances": "all"})",
       "t.json: faults[0].for: not allowed for \"instance_crash\""},
      {R"({"type": "instance_crash", "at": "1s", "instances": [0], "restart_after": "9s"})",
       "t.json: faults[0].restart_after: expected a duration from 1us to 3s, got \"9s\""},
      {R"({"type": "redis_failover", "at": "1s", "down_after": "1s"})",
       "t.json: faults[0].replication_lag: required field is missing"},
      {R"({"type": "redis_failover", "at": "1s", "for": "1s", "replication_lag": "1ms"})",
       "t.json: faults[0].for: not allowed for \"redis_failover\""},
      {R"({"type": "redis_failover", "at": "1s", "replication_lag": "1ms"})",
       "t.json: faults[0].down_after: down_after + promotion + discovery must be positive and end "
       "by the end of the run (3s), got 31s"},
      {R"({"type": "redis_failover", "at": "1s", "replication_lag": "1ms", "down_after": "1s"},
          {"type": "redis_failover", "at": "3s", "replication_lag": "1ms", "down_after": "0s",
           "promotion": "1ms"})",
       "t.json: faults[1].nodes: a second redis_failover of node 0: the model fails each node "
       "over once (the promoted replica has no replica)"},
  };
  for (const auto& [faults, message] : cases) {
    INFO(faults);
    CHECK(parse_error(faults) == message);
  }
  CHECK(parse_error(R"({"type": "redis_down", "at": "1s", "for": "1s"})", R"(, "pool": -1)") ==
        "t.json: redis.pool: expected an integer from 0 to 10000, got -1");
}

TEST_CASE("faults: overlapping faults compose") {
  FaultSpec down_refuse, down_blackhole, latency_a, latency_b;
  down_refuse.type = down_blackhole.type = FaultType::kRedisDown;
  down_blackhole.mode = FaultMode::kBlackhole;
  latency_a.type = latency_b.type = FaultType::kRedisLatency;
  latency_a.added_rtt_us = 1000;
  latency_a.rtt_multiplier = 2;
  latency_b.added_rtt_us = 500;
  latency_b.rtt_multiplier = 3;
  latency_b.rtt_jitter_us = 100;
  const RedisConditions c =
      compose_conditions({&down_refuse, &down_blackhole, &latency_a, &latency_b});
  CHECK(c.down == DownMode::kBlackhole);  // the worse of the two
  CHECK(c.rtt_multiplier == 6.0);
  CHECK(c.added_rtt_us == 1500);
  CHECK(c.rtt_jitter_us == 100);
  CHECK(compose_conditions({&down_refuse}).down == DownMode::kRefuse);
  CHECK(compose_conditions({}).down == DownMode::kUp);
}

TEST_CASE("faults: redis_slow faults become slow periods, multiplied where they overlap") {
  const auto slow = [](TimeUs at_us, TimeUs for_us, double multiplier, std::int32_t region) {
    FaultSpec fault;
    fault.type = FaultType::kRedisSlow;
    fault.at_us = at_us;
    fault.for_us = for_us;
    fault.service_multiplier = multiplier;
    fault.region = region;
    return fault;
  };
  FaultSpec latency;
  latency.type = FaultType::kRedisLatency;
  latency.for_us = 10 * kUsPerS;
  // x4 over [1 s, 3 s), x5 over [2 s, 4 s) on region 1 only, x1 over [5 s, 6 s) (no slow-down).
  const std::vector<FaultSpec> faults{slow(kUsPerS, 2 * kUsPerS, 4, -1),
                                      slow(2 * kUsPerS, 2 * kUsPerS, 5, 1),
                                      slow(5 * kUsPerS, kUsPerS, 1, -1), latency};
  using Periods = std::vector<std::tuple<TimeUs, TimeUs, double>>;
  const auto periods_of = [&](std::int32_t region) {
    Periods out;
    for (const SlowPeriod& p : slow_periods(
             faults, [region](const FaultSpec& f) { return f.region < 0 || f.region == region; }))
      out.emplace_back(p.from_us, p.until_us, p.multiplier);
    return out;
  };
  CHECK(periods_of(0) == Periods{{1'000'000, 3'000'000, 4.0}});
  CHECK(periods_of(1) == Periods{{1'000'000, 2'000'000, 4.0},
                                 {2'000'000, 3'000'000, 20.0},
                                 {3'000'000, 4'000'000, 5.0}});
  const auto every = [](const FaultSpec&) { return true; };
  CHECK(slow_periods({latency}, every).empty());
  // Two faults of the same multiplier back to back make one period.
  CHECK(slow_periods({slow(kUsPerS, kUsPerS, 3, -1), slow(2 * kUsPerS, kUsPerS, 3, -1)}, every)
            .size() == 1);
}

TEST_CASE("faults: redis_down refuse fails exactly the requests inside [at, at + for) at once") {
  const Run r = run(scenario_text(R"({"type": "redis_down", "at": "1s", "for": "1s"})",
                                  "\"redis_fixed_window\""));
  // Arrivals at 1.0 .. 1.9 s: ten refused calls, each decided at once (fail open: allowed).
  CHECK(r.result.totals.errors == 10);
  CHECK(r.result.totals.allowed == 40);
  CHECK(r.extra["redis_node"]["errors"]["refused"] == 10);
  CHECK(r.extra["redis_node"]["errors"]["timeouts"] == 0);
  // One key, counted from its first operation: exact (30 INCRs that ran, one EXPIRE).
  CHECK(r.extra["redis_node"]["hot_keys"] ==
        json::parse(R"([{"key": "rl:user:0:29167200", "ops": 31, "ops_min": 31}])"));
  CHECK(r.extra["waited_full_timeout"] == 0);
  const json& fault = r.extra["faults"][0];
  CHECK(fault["during"]["offered"] == 10);
  CHECK(fault["during"]["errors"] == 10);
  CHECK(fault["after"]["errors"] == 0);
  CHECK(r.result.totals.latency_us.quantile(0.5) == 1000);  // a healthy INCR: one round trip
}

TEST_CASE("faults: redis_down blackhole makes each of its requests wait the full timeout") {
  const Run r =
      run(scenario_text(R"({"type": "redis_down", "mode": "blackhole", "at": "1s", "for": "1s"})",
                        R"({"name": "redis_fixed_window", "on_error": "fail_closed"})"));
  CHECK(r.result.totals.errors == 10);
  CHECK(r.result.totals.denied == 10);  // fail closed
  CHECK(r.extra["waited_full_timeout"] == 10);
  CHECK(r.extra["redis_node"]["errors"]["lost"] == 10);
  CHECK(r.result.totals.latency_us.max() == 50'000);
  CHECK(r.extra["faults"][0]["during"]["false_denials"] == 10);
}

TEST_CASE("faults: redis_latency adds to every round trip while it lasts") {
  const Run r = run(scenario_text(
      R"({"type": "redis_latency", "at": "1s", "for": "1s", "added": "4ms", "multiplier": 2})",
      "\"redis_fixed_window_lua\""));
  // 1 ms x 2 + 4 ms during the fault, 1 ms otherwise; nothing times out.
  CHECK(r.result.totals.latency_us.max() == 6000);
  CHECK(r.result.totals.latency_us.quantile(0.5) == 1000);
  CHECK(r.result.totals.errors == 0);
  CHECK(r.extra["redis_node"]["call_latency_us"]["max"] == 6000);
}

TEST_CASE("faults: redis_slow multiplies the service time") {
  const std::string text =
      scenario_text(R"({"type": "redis_slow", "at": "0s", "for": "4s", "multiplier": 10})",
                    "\"redis_fixed_window_lua\"");
  // 100 us per command, x10: 1 ms round trip + 1 ms of service; the first request pays two
  // (EVALSHA answered NOSCRIPT, then EVAL).
  json j = json::parse(text);
  j["redis"]["service_time"] = "100us";
  const Run r = run(j.dump());
  CHECK(r.result.totals.latency_us.max() == 4000);
  CHECK(r.result.totals.latency_us.quantile(0.5) == Approx(2000).epsilon(0.002));
  CHECK(r.extra["redis_node"]["utilization"] == Approx(41 * 1000.0 / 4e6).margin(0.0001));
}

TEST_CASE("faults: a partition cuts off only the listed instances") {
  const Run r = run(scenario_text(
      R"({"type": "partition", "mode": "refuse", "at": "1s", "for": "1s", "instances": [1]})",
      "\"redis_fixed_window\"", "", 2));
  // Round robin: instance 1 gets every other request, five of the ten in the fault.
  CHECK(r.result.totals.errors == 5);
  CHECK(r.extra["redis_node"]["errors"]["refused"] == 5);
}

TEST_CASE("faults: an instance crash loses local state, and its restart starts afresh") {
  const Run r = run(scenario_text(
      R"({"type": "instance_crash", "at": "1050ms", "instances": [0], "restart_after": "1s"})",
      "\"in_memory\"", "", 2, "5"));
  // Before the crash instances 0 and 1 admit 5 each; the restarted instance (a new id) starts
  // with an empty counter and admits 5 more in the same minute.
  CHECK(r.result.totals.allowed == 15);
  REQUIRE(r.result.instance_counts.size() == 3);
  CHECK(r.result.instance_counts[1] == std::pair<TimeUs, int>{1'050'000, 1});
  CHECK(r.result.instance_counts[2] == std::pair<TimeUs, int>{2'050'000, 2});
}

TEST_CASE("faults: requests in flight on a crashed instance fail, and none are routed to it") {
  // Every instance crashes at 1.0005 s, while the request of 1.0 s waits for its 1 ms reply;
  // with no instance left, the ten arrivals from 1.1 to 2.0 s fail at once (the restart comes at
  // 2.0005 s).
  const Run r = run(scenario_text(
      R"({"type": "instance_crash", "at": "1000500us", "instances": "all", "restart_after": "1s"})",
      "\"redis_fixed_window\""));
  CHECK(r.result.totals.errors == 11);
  CHECK(r.result.totals.denied == 11);
  CHECK(r.extra["faults"][0]["during"]["errors"] == 11);
  CHECK(r.result.instance_counts.back() == std::pair<TimeUs, int>{2'000'500, 1});
}

TEST_CASE("faults: a small connection pool makes calls wait for a connection") {
  // 10 requests/s, a 150 ms round trip and one connection: each call waits for the previous.
  json j = json::parse(
      scenario_text(R"({"type": "redis_slow", "at": "3s", "for": "1s", "multiplier": 1})",
                    "\"redis_fixed_window_lua\"", R"(, "pool": 1)"));
  j["redis"]["rtt"] = "150ms";
  j["redis"]["timeout"] = "1s";
  const Run r = run(j.dump());
  CHECK(r.extra["redis_node"]["pool"]["waits"].get<int>() > 0);
  CHECK(r.result.totals.latency_us.max() > 150'000);
}

TEST_CASE("faults: local_fallback admits limit / divisor per instance while Redis is down") {
  const Run r = run(
      scenario_text(R"({"type": "redis_down", "at": "0s", "for": "4s"})",
                    R"({"name": "redis_fixed_window", "on_error": "local_fallback", "divisor": 4})",
                    "", 2, "20"));
  // Two instances, 20 / 4 = 5 each: 10 of the 40 requests in the minute.
  CHECK(r.result.totals.allowed == 10);
  CHECK(r.extra["resilience"]["fallback_decisions"] == 40);
  CHECK(r.extra["resilience"]["divisor"] == 4);
}

TEST_CASE("faults: an open breaker stops calling Redis and returns after the cool-down") {
  const Run r =
      run(scenario_text(R"({"type": "redis_down", "mode": "blackhole", "at": "1s", "for": "1s"})",
                        R"({"name": "redis_fixed_window", "on_error": "fail_open",
          "breaker": {"failures": 2, "window": "10s", "cooldown": "450ms", "probes": 1}})"));
  // 1.0 and 1.1 s time out and open it at 1.15 s; 1.2-1.5 s short-circuit; the probe at 1.6 s
  // (cool-down over at 1.6 s) times out and re-opens it at 1.65 s; 1.7-2.0 s short-circuit; the
  // probe at 2.1 s (Redis is back) closes it.
  const json& res = r.extra["resilience"];
  CHECK(r.extra["waited_full_timeout"] == 3);
  CHECK(res["short_circuited"] == 8);
  CHECK(res["breaker"]["opened"] == 2);
  CHECK(res["breaker"]["transitions"] == 5);
  const json& timeline = res["breaker"]["timeline"];
  REQUIRE(timeline.size() == 5);
  CHECK(timeline[0]["at_s"] == 1.15);
  CHECK(timeline[4]["to"] == "closed");
  CHECK(timeline[4]["at_s"] == 2.101);
}

TEST_CASE(
    "faults: recovery_s is the time from the fault's end to the last admission beyond the limit") {
  // Limit 20 per minute. 0.0-0.9 s: ten INCRs admitted (Redis counts 10). 1.0-1.9 s: refused, fail
  // open admits ten more that Redis never counts (the oracle's count reaches 20: no excess yet).
  // From 2.0 s Redis admits up to its 20th INCR: 2.0-2.9 s, ten admissions beyond the limit, the
  // last decided at 2.901 s; 3.0 s is denied. Back within the limit 0.901 s after the fault.
  const Run open = run(scenario_text(R"({"type": "redis_down", "at": "1s", "for": "1s"})",
                                     "\"redis_fixed_window\"", "", 1, "20"));
  const json& fault = open.extra["faults"][0];
  CHECK(fault["during"]["allowed"] == 10);
  CHECK(fault["during"]["excess"] == 0);
  CHECK(fault["after"]["excess"] == 10);
  CHECK(fault["recovery_s"] == Approx(0.901));
  CHECK(open.result.totals.allowed == 30);
  // Fail closed admits nothing during the outage, so nothing beyond the limit follows it.
  const Run closed = run(
      scenario_text(R"({"type": "redis_down", "at": "1s", "for": "1s"})",
                    R"({"name": "redis_fixed_window", "on_error": "fail_closed"})", "", 1, "20"));
  CHECK(closed.extra["faults"][0]["after"]["excess"] == 0);
  CHECK(closed.extra["faults"][0]["recovery_s"] == 0.0);
  // A fault that starts before the damage ends stops the first one's measure: the excess from
  // 2.0 s on is recovery from the second fault (ended at 2.0 s), not the first (ended at 1.5 s).
  const Run two = run(scenario_text(R"({"type": "redis_down", "at": "1s", "for": "500ms"},
                                       {"type": "redis_down", "at": "1500ms", "for": "500ms"})",
                                    "\"redis_fixed_window\"", "", 1, "20"));
  CHECK(two.extra["faults"][0]["recovery_s"] == 0.0);
  CHECK(two.extra["faults"][1]["recovery_s"] == Approx(0.901));
}

TEST_CASE("faults: every policy composes with every strategy that takes on_error") {
  // Redis refuses every call of the run: each policy decides all 40 requests, whatever the
  // algorithm behind it (limit 20 per minute, one instance, local_fallback's divisor 4: 5).
  int tested = 0;
  for (const StrategyInfo& info : strategy_registry()) {
    const bool takes_on_error =
        std::any_of(info.params.begin(), info.params.end(),
                    [](const ParamSpec& p) { return p.name == "on_error"; });
    const bool needs_more = std::any_of(info.params.begin(), info.params.end(),
                                        [](const ParamSpec& p) { return p.required; });
    if (!takes_on_error || needs_more) continue;
    const auto run_with = [&](const std::string& policy) {
      return run(scenario_text(R"({"type": "redis_down", "at": "0s", "for": "4s"})",
                               fmt::format(R"({{"name": "{}", {}}})", info.name, policy), "", 1,
                               "20"));
    };
    const Run open = run_with(R"("on_error": "fail_open")");
    INFO(info.name);
    ++tested;
    CHECK(open.result.totals.allowed == 40);
    CHECK(open.extra["resilience"]["policy"] == "fail_open");
    CHECK(run_with(R"("on_error": "fail_closed")").result.totals.allowed == 0);
    const Run fallback = run_with(R"("on_error": "local_fallback", "divisor": 4)");
    CHECK(fallback.result.totals.allowed == 5);
    CHECK(fallback.extra["resilience"]["fallback_decisions"] == 40);
    const Run breaker = run_with(R"("on_error": "local_fallback", "divisor": 4,
                                    "breaker": {"failures": 2, "cooldown": "1s"})");
    CHECK(breaker.result.totals.allowed == 5);
    CHECK(breaker.extra["resilience"]["breaker"]["opened"].get<int>() >= 1);
    CHECK(breaker.extra["resilience"]["short_circuited"].get<int>() >= 30);
  }
  CHECK(tested >= 12);  // custom_lua needs a script: tests/test_strategy_custom_lua.cpp
}

TEST_CASE("faults: at one instant the autoscaling step applies before the fault boundary") {
  // The step at 1 s starts instance 1; the crash at 1 s finds it running and stops it. Were the
  // fault first, instance 1 would not exist yet and the crash would be ignored.
  json j = json::parse(scenario_text(R"({"type": "instance_crash", "at": "1s", "instances": [1]})",
                                     "\"in_memory\"", "", 1));
  j["instances"]["schedule"] = json::array({{{"at", "1s"}, {"count", 2}}});
  const Run r = run(j.dump());
  CHECK(r.result.instance_counts ==
        std::vector<std::pair<TimeUs, int>>{{0, 1}, {1'000'000, 2}, {1'000'000, 1}});
}

TEST_CASE("faults: redis_slow past the timeout: the fault's calls time out, INCRs still count") {
  // 200 us per command x 1000 = 200 ms during [1 s, 2 s): each of the ten calls of that second
  // waits longer than the 50 ms timeout. The server is slow only while the fault lasts: the call
  // that started at 1.8005 s finishes at 2.000001 s (199.5 of its 200 us of work in the fault),
  // and the five calls queued behind it then take 200 us each, so the calls of 2.0 s on are on
  // time. (A fork or a GC pause ends; the work it held up does not stay slow.)
  json j = json::parse(
      scenario_text(R"({"type": "redis_slow", "at": "1s", "for": "1s", "multiplier": 1000})",
                    "\"redis_fixed_window\""));
  j["redis"]["service_time"] = "200us";
  const Run r = run(j.dump());
  CHECK(r.result.totals.errors == 10);
  CHECK(r.extra["redis_node"]["errors"]["timeouts"] == 10);
  CHECK(r.extra["faults"][0]["during"]["errors"] == 10);
  CHECK(r.extra["faults"][0]["after"]["errors"] == 0);
  CHECK(r.extra["waited_full_timeout"] == 10);
  // The call that reached the server at 1.5005 s waited until 2.000001 s for the thread.
  CHECK(r.extra["redis_node"]["max_queue_wait_us"] == 499'501);
  // Every INCR sent ran on the server, the timed-out ones included.
  CHECK(r.extra["redis_node"]["commandstats"]["INCR"] == 40);
}

}  // namespace rlsim_test_faults
