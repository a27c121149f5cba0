// The headline claims of the bundled fault scenarios, measured on full runs (the same claims are
// in their `expect` lists; here they are also compared with each other).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "engine/run.h"
#include "report/result_json.h"
#include "scenario/load.h"

namespace rlsim_test_fault_scenarios {

using namespace rlsim;
using nlohmann::json;

namespace {

struct Runs {
  Scenario scenario;
  std::vector<StrategyResult> results;
  const StrategyResult& by_label(const std::string& label) const {
    for (const auto& r : results)
      if (r.label == label) return r;
    FAIL("no strategy " << label);
    return results.front();
  }
};

Runs run_all(const std::string& name) {
  Runs runs{load_scenario(std::string(RLSIM_SOURCE_DIR) + "/scenarios/" + name), {}};
  for (const auto& strategy : resolve_strategies(runs.scenario, name))
    runs.results.push_back(run_strategy(runs.scenario, strategy, runs.scenario.seed));
  return runs;
}

json extra(const StrategyResult& r) {
  return json::parse(redis_side_json(r.redis_side.value()).dump());
}

// The counts over decisions made during the scenario's first fault (docs/faults.md).
json during_fault(const StrategyResult& r) { return extra(r)["faults"][0]["during"]; }

}  // namespace

TEST_CASE("redis-outage: each policy's trade-off, side by side") {
  const Runs runs = run_all("redis-outage.json");
  const StrategyResult& open = runs.by_label("fail_open");
  const StrategyResult& closed = runs.by_label("fail_closed");
  const StrategyResult& fallback = runs.by_label("local_fallback");
  const StrategyResult& breaker = runs.by_label("circuit_breaker");
  const json during_open = during_fault(open);
  const json during_closed = during_fault(closed);
  const json during_fallback = during_fault(fallback);
  const json during_breaker = during_fault(breaker);
  // Fail open: everything through. Fail closed: nothing, and legitimate users blocked.
  CHECK(during_open["allowed"] == during_open["offered"]);
  CHECK(during_open["excess"].get<int>() > 900);
  CHECK(during_closed["allowed"] == 0);
  CHECK(during_closed["false_denials"].get<int>() >= 900);
  // Local fallback: about the limit (10 users x 100 per minute) during the 20 s.
  CHECK(during_fallback["allowed"].get<int>() == Approx(1000).margin(100));
  CHECK(during_fallback["excess"] == 0);
  // No divisor in the file: the scenario's initial instance count, 10 (the lesson's limit // 10).
  CHECK(extra(fallback)["resilience"]["divisor"] == 10);
  // The breaker decides the same way without waiting out the timeout.
  CHECK(during_breaker["allowed"] == during_fallback["allowed"]);
  CHECK(extra(breaker)["waited_full_timeout"].get<int>() * 10 <
        extra(fallback)["waited_full_timeout"].get<int>());
  CHECK(breaker.totals.latency_us.quantile(0.99) < 5000);
  CHECK(fallback.totals.latency_us.quantile(0.99) == 100'000);
  // Overshoot ordering: open > fallback > closed.
  CHECK(open.totals.limits[0].overshoot > fallback.totals.limits[0].overshoot);
  CHECK(fallback.totals.limits[0].overshoot > closed.totals.limits[0].overshoot);
  CHECK(closed.totals.limits[0].overshoot <= 1.0);
}

TEST_CASE("partition: what the cut-off instances admit comes on top of the central counter") {
  const Runs runs = run_all("partition.json");
  const StrategyResult& fallback = runs.by_label("local_fallback");
  // The partition covers exactly the window [2m, 3m): per user, the seven connected instances
  // admit the limit (100) through Redis, and each of the three cut-off instances' local counter
  // admits 100/10. 10 users x (100 + 3 x 10) = 1300, 300 of them beyond the limit.
  CHECK(extra(fallback)["resilience"]["divisor"] == 10);
  CHECK(during_fault(fallback)["allowed"] == 1300);
  CHECK(during_fault(fallback)["excess"] == 300);
  CHECK(fallback.totals.limits[0].overshoot == Approx(1.30));
  // Fail closed: the connected seven alone hold the limit exactly; the cut-off three deny
  // requests the ideal limiter admits.
  const json closed = during_fault(runs.by_label("fail_closed"));
  CHECK(closed["allowed"] == 1000);
  CHECK(closed["excess"] == 0);
  CHECK(closed["false_denials"].get<int>() > 0);
  // Fail open: every request a cut-off instance receives (about 30% of 600 per user) on top.
  const StrategyResult& open = runs.by_label("fail_open");
  CHECK(during_fault(open)["excess"].get<int>() > 1500);
  CHECK(open.totals.limits[0].overshoot > 2.5);
  // The breaker: the same fallback decisions, without waiting out the timeout on each.
  const StrategyResult& breaker = runs.by_label("circuit_breaker");
  CHECK(during_fault(breaker)["allowed"] == 1300);
  CHECK(extra(breaker)["waited_full_timeout"].get<int>() * 10 <
        extra(fallback)["waited_full_timeout"].get<int>());
  CHECK(breaker.totals.latency_us.quantile(0.99) < 5000);
}

TEST_CASE("redis-fork: a one-second stall saturates Redis, and its backlog drains after it") {
  const Runs runs = run_all("redis-fork.json");
  const StrategyResult& open = runs.by_label("fail_open");
  const json node = extra(open)["redis_node"];
  const json busy = node["utilization_series"]["values"];
  REQUIRE(busy.size() >= 8);
  // 10,000 calls/s at 20 us: 0.2 busy; the fork second (x50) is saturated; the next one drains
  // a backlog of ~9,000 calls at full speed (0.18 s), and the one after is back to 0.2.
  CHECK(busy[4].get<double>() == Approx(0.2).margin(0.01));
  CHECK(busy[5].get<double>() == 1.0);
  CHECK(busy[6].get<double>() > 0.3);
  CHECK(busy[6].get<double>() < 0.5);
  CHECK(busy[7].get<double>() == Approx(0.2).margin(0.01));
  // The fork second's requests wait out the timeout, and so do those stuck behind the backlog;
  // nothing times out a second after the fork.
  const json during = during_fault(open);
  CHECK(during["waited_full_timeout"].get<int>() > 9000);
  CHECK(extra(open)["faults"][0]["after"]["errors"].get<int>() > 1000);
  CHECK(node["errors"]["timeouts"].get<int>() <
        during["offered"].get<int>() + extra(open)["faults"][0]["after"]["errors"].get<int>() + 10);
  // Fail open lets the timed-out requests through; fail closed denies them.
  CHECK(during["excess"].get<int>() > 4000);
  CHECK(during_fault(runs.by_label("fail_closed"))["false_denials"].get<int>() > 4000);
  // The breakers stop feeding the queue: the fork second is no longer saturated.
  const json shed = extra(runs.by_label("circuit_breaker"))["redis_node"];
  CHECK(shed["utilization_series"]["values"][5].get<double>() < 0.8);
  CHECK(shed["errors"]["timeouts"].get<int>() * 10 < node["errors"]["timeouts"].get<int>());
}

TEST_CASE("redis-saturation: utilization, queue and latency climb, timeouts follow") {
  const Runs runs = run_all("redis-saturation.json");
  const json node = extra(runs.by_label("lua_per_request"))["redis_node"];
  const json ops = node["ops_per_s"]["values"];
  REQUIRE(ops.size() >= 4);
  // The offered load ramps up: each second's operations exceed the previous one's, until the
  // single thread's ceiling (50,000 calls/s at 20 us each).
  CHECK(ops[0].get<double>() < ops[1].get<double>());
  CHECK(ops[1].get<double>() < ops[2].get<double>());
  CHECK(ops[3].get<double>() <= 50'000);
  CHECK(node["utilization"].get<double>() > 0.6);
  // Utilization is over the run's 4 s only: the mean of its four 1 s buckets (each rounded to 4
  // places), never the fifth bucket's backlog served after the end, which is drain_us (it read
  // 0.6995, the five buckets over 4 s, before they were told apart).
  const json per_second = node["utilization_series"]["values"];
  REQUIRE(per_second.size() == 5);
  double in_run = 0;
  for (int s = 0; s < 4; ++s) in_run += per_second[s].get<double>();
  CHECK(node["utilization"].get<double>() == Approx(in_run / 4).margin(1e-4));
  CHECK(node["utilization"].get<double>() <= 1.0);
  // The fifth bucket's busy share is the drain: drain_us is at least that much time.
  CHECK(node["drain_us"].get<double>() >= per_second[4].get<double>() * 1e6 - 100);
  CHECK(node["queue_length_p99"].get<int>() > 1000);
  CHECK(node["errors"]["timeouts"].get<int>() > 1000);
  CHECK(node["commandstats"]["EVALSHA"].get<int>() > 100'000);
  // Utilization, the longest queue and the limiter's p99 climb second by second (the fifth bucket
  // is the timed-out calls draining after the end): the thread reaches 1 in the fourth second.
  const json busy = node["utilization_series"]["values"];
  const json queue = node["queue_length_max_series"]["values"];
  const auto& windows = runs.by_label("lua_per_request").totals.series;
  REQUIRE(windows.size() >= 4);
  for (std::size_t s = 1; s < 4; ++s) {
    CHECK(busy[s - 1].get<double>() < busy[s].get<double>());
    CHECK(queue[s - 1].get<int>() < queue[s].get<int>());
    CHECK(windows[s - 1].latency_p99_us <= windows[s].latency_p99_us);
  }
  CHECK(busy[3].get<double>() > 0.98);
  CHECK(windows[3].latency_p99_us == 50'000);  // the client's timeout
  // Timed-out calls still ran: every call the client sent was executed by the server.
  CHECK(node["commandstats"]["EVALSHA"].get<std::int64_t>() +
            node["commandstats"]["EVAL"].get<std::int64_t>() ==
        static_cast<std::int64_t>(runs.by_label("lua_per_request").redis_commands));
}

TEST_CASE("latency-spike: the rate check passes 5 ms and calls wait for connections") {
  const Runs runs = run_all("latency-spike.json");
  const json e = extra(runs.by_label("lua_counter"));
  CHECK(e["redis_node"]["call_latency_us"]["p99"].get<int>() > 5000);
  CHECK(e["redis_node"]["pool"]["waits"].get<int>() > 1000);
  CHECK(e["faults"][0]["during"]["excess"] == 0);
  // The spike lasts exactly the fault's minute: the limiter's p99 per window is about one round
  // trip before and after, tens of ms (round trip + jitter + pool wait) during.
  const auto& windows = runs.by_label("lua_counter").totals.series;
  REQUIRE(windows.size() == 3);
  CHECK(windows[0].latency_p99_us < 2000);
  CHECK(windows[1].latency_p99_us > 20'000);
  CHECK(windows[2].latency_p99_us < 2000);
  // A pool wait is limiter latency too: the wait comes before the call's own 50 ms timeout, so
  // some requests take longer than the timeout although no call timed out.
  CHECK(e["redis_node"]["errors"]["timeouts"] == 0);
  CHECK(e["redis_node"]["pool"]["max_wait_us"].get<int>() > 20'000);
  CHECK(e["waited_full_timeout"].get<int>() > 0);
}

TEST_CASE("instance-crash: in-memory and local_budget state dies with the process") {
  const Runs runs = run_all("instance-crash.json");
  const StrategyResult& memory = runs.by_label("in_memory");
  const StrategyResult& budget = runs.by_label("local_budget");
  const StrategyResult& central = runs.by_label("redis_fixed_window");
  // Minute 0: 4 instances x 100. Minute 1: instance 0 crashed at 1:30 after its 100; its
  // replacement starts from zero and admits 100 more.
  REQUIRE(memory.totals.series.size() >= 3);
  CHECK(memory.totals.series[0].max_per_key == 400);
  CHECK(memory.totals.series[1].max_per_key == 500);
  // Minute 2: instance 1 crashed at 2:02 holding claimed tokens: Redis counted them, nobody spent
  // them, so the minute admits fewer than 100 and the user is wrongly denied meanwhile.
  REQUIRE(budget.totals.series.size() >= 3);
  CHECK(budget.totals.series[1].max_per_key == 100);
  CHECK(budget.totals.series[2].max_per_key < 100);
  CHECK(budget.totals.series[2].max_per_key + budget.strategy_metrics["tokens_wasted"].get<int>() ==
        100);
  CHECK(extra(budget)["faults"][1]["during"]["false_denials"].get<int>() >= 10);
  CHECK(budget.totals.limits[0].max_in_window == 100);
  // The central counter keeps no state in the instances: exactly the limit every minute.
  for (std::size_t w = 0; w < 3; ++w) CHECK(central.totals.series[w].max_per_key == 100);
  CHECK(central.totals.limits[0].false_denials == 0);
}

TEST_CASE("hot-key: one key per window loads one node, tagged shards spread keys and nodes") {
  const Runs runs = run_all("hot-key.json");
  const json one_key = extra(runs.by_label("one_key"));
  const json tagged = extra(runs.by_label("sharded_tagged"));
  // Per key: every write of the window goes to one key, or a third to each of three shards.
  CHECK(runs.by_label("one_key").strategy_metrics["global_limits"][0]["hottest_key_share"] == 1.0);
  CHECK(runs.by_label("sharded_tagged")
            .strategy_metrics["global_limits"][0]["hottest_key_share"]
            .get<double>() < 0.34);
  // Per node: the one key's node is saturated, each second on one node; shards share the load.
  CHECK(one_key["redis_cluster"]["peak_utilization"].get<double>() > 0.95);
  CHECK(tagged["redis_cluster"]["peak_utilization"].get<double>() < 0.6);
  for (const auto& node : tagged["redis_nodes"]) {
    CHECK(node["utilization"].get<double>() > 0.5);
    // Each node's hottest key is its own shard, with about a third of the writes.
    CHECK(node["hot_keys"][0]["key"].get<std::string>().rfind("rl:{global-s", 0) == 0);
  }
  CHECK(runs.by_label("one_key").totals.latency_us.quantile(0.99) >
        3 * runs.by_label("sharded_tagged").totals.latency_us.quantile(0.99));
}

TEST_CASE("redis-restart: a Redis without persistence forgets the counters mid-window") {
  const Runs runs = run_all("redis-restart.json");
  for (const char* label : {"redis_fixed_window", "redis_fixed_window_lua"}) {
    INFO(label);
    const StrategyResult& r = runs.by_label(label);
    // Minute 1 (1:00-2:00): each user's 100 were used by 1:30; the restart empties Redis, and
    // the 28 s after it admit another 100 at 5/s. The other minutes hold the limit exactly.
    REQUIRE(r.totals.series.size() >= 4);
    CHECK(r.totals.series[0].max_per_key == 100);
    CHECK(r.totals.series[1].max_per_key == 200);
    CHECK(r.totals.series[2].max_per_key == 100);
    CHECK(during_fault(r)["allowed"] == 0);  // fail closed while connections are refused
    CHECK(r.redis_keys_at_end > 0);
  }
  // The script cache went with the restart: NOSCRIPT, then one more load.
  CHECK(runs.by_label("redis_fixed_window_lua").strategy_metrics["script_reloads"].get<int>() >= 1);
}

TEST_CASE("redis-failover: the lag's increments lost and admitted again, next to a restart") {
  const Runs runs = run_all("redis-failover.json");
  for (const char* label : {"redis_fixed_window", "redis_fixed_window_lua"}) {
    INFO(label);
    const json faults = extra(runs.by_label(label))["faults"];
    const json& failover = faults[0]["failover"];
    // 10/s x 500 ms of lag: the requests at 9.5 .. 9.9 s, whose calls ran 0.5 ms after them.
    CHECK(failover["lost_increments"] == 5);
    CHECK(failover["lost_writes"] == 5);
    CHECK(failover["detected_s"] == 75.0);
    CHECK(failover["promoted_s"] == 76.0);
    CHECK(failover["clients_back_s"] == 77.0);
    // Failing closed, nothing passes until the clients find the new primary; then the counter,
    // 5 behind, lets 5 more through in that minute.
    CHECK(faults[0]["during"]["allowed"] == 0);
    CHECK(faults[0]["after"]["excess"] == 5);
    // The restart forgets the minute's 100; the outage loses nothing.
    CHECK(faults[1]["after"]["excess"] == 100);
    CHECK(faults[2]["after"]["excess"] == 0);
    CHECK_FALSE(faults[1].contains("failover"));
  }
  // A promoted replica has no scripts: NOSCRIPT and a reload, as after the restart (and the
  // first load).
  CHECK(runs.by_label("redis_fixed_window_lua").strategy_metrics["script_reloads"] == 3);
  // The token bucket, empty by then, lacks only the 0.8 token refilled in the lag.
  const json bucket = extra(runs.by_label("redis_token_bucket"))["faults"];
  CHECK(bucket[0]["failover"]["lost_writes"] == 5);
  CHECK(bucket[0]["after"]["excess"] == 1);
  CHECK(bucket[1]["after"]["excess"] == 88);
}

}  // namespace rlsim_test_fault_scenarios
