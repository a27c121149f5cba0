// The OpenMetrics writer (report/openmetrics.h) on a tiny result made by hand: the exact text,
// escaping, timestamps from the epoch, cumulative counters and histogram buckets.
#include <catch2/catch.hpp>
#include <string>

#include "report/openmetrics.h"

namespace rlsim_test_openmetrics {

using namespace rlsim;

namespace {

// One strategy, labelled with every character a label value escapes, on a 1.5 s first limit: two
// windows of decisions and two 2 s buckets of its single Redis server.
RunResult tiny_result(Scenario& scenario) {
  scenario.name = "tiny";
  scenario.limits = {{"per_user", LimitKey::kUser, 10, 1'500'000}};
  StrategyResult strategy;
  strategy.label = "a\"b\\c\nd";
  SeriesPoint first;  // [0, 1.5 s): 3 allowed (one beyond the limit twice over), 1 denied
  first.admitted = 3;
  first.denied = 1;
  first.errors = 1;
  first.excess_by_limit = {2};
  first.latency_buckets[0] = 2;   // 50 us and 60 us: at most 100 us
  first.latency_buckets[5] = 1;   // 4 ms: above 2.5 ms, at most 5 ms
  first.latency_buckets[16] = 1;  // 20 s: above 10 s
  first.latency_sum_us = 50 + 60 + 4'000 + 20'000'000;
  SeriesPoint second;  // [1.5 s, 3 s): one allowed at 200 us; no decision counted any excess
  second.start_us = 1'500'000;
  second.admitted = 1;
  second.latency_buckets[1] = 1;
  second.latency_sum_us = 200;
  strategy.totals.series = {first, second};
  NodeResult node;
  node.ops_per_s = {2.0, {1.5, 0.0}};  // 3 commands in [0, 2 s), none in [2 s, 4 s)
  node.utilization_series = {2.0, {0.25, 0.0}};
  node.queue_length_max_series = {2.0, {4, 0}};
  RedisSideResult redis_side;
  redis_side.redis_node = node;
  ResilienceResult resilience;
  resilience.fallback_series = BucketSeries<double>{2.0, {0.5}};  // 1 fallback in [0, 2 s)
  redis_side.resilience = resilience;
  strategy.redis_side = redis_side;
  RunResult result;
  result.scenario = &scenario;
  result.strategies.push_back(strategy);
  return result;
}

// `text` with every "@" replaced by the strategy's labels, escaped as OpenMetrics writes them.
std::string with_labels(std::string text) {
  const std::string labels = R"(scenario="tiny",strategy="a\"b\\c\nd")";
  for (std::size_t at = text.find('@'); at != std::string::npos; at = text.find('@', at))
    text.replace(at, 1, labels);
  return text;
}

}  // namespace

TEST_CASE("the exact text of a tiny result, from epoch 1000 s") {
  Scenario scenario;
  const RunResult result = tiny_result(scenario);
  // Decision series: 0 at the first window's start (1000 s), then running totals at each window's
  // end (1001.5 s, 1003 s). Latency buckets cumulative over windows and over bounds: after the
  // first window 2 at or below 100 us, 3 at or below 5 ms, 4 in all, sum 20.00411 s; the second
  // adds one at 200 us (the 250 us bucket), sum 20.00431 s. Redis series from time 0 in 2 s
  // buckets, gauges at each bucket's end.
  const std::string expected = with_labels(R"(# TYPE rlsim_decisions counter
# HELP rlsim_decisions Decisions of the strategy by outcome (allowed or denied: each decision is one of the two), at the end of each window of the scenario's first limit
rlsim_decisions_total{@,outcome="allowed"} 0 1000
rlsim_decisions_total{@,outcome="allowed"} 3 1001.5
rlsim_decisions_total{@,outcome="allowed"} 4 1003
rlsim_decisions_total{@,outcome="denied"} 0 1000
rlsim_decisions_total{@,outcome="denied"} 1 1001.5
rlsim_decisions_total{@,outcome="denied"} 1 1003
# TYPE rlsim_decision_errors counter
# HELP rlsim_decision_errors Decisions during which a Redis call failed or timed out (each also counts as allowed or denied), per window of the first limit
rlsim_decision_errors_total{@} 0 1000
rlsim_decision_errors_total{@} 1 1001.5
rlsim_decision_errors_total{@} 1 1003
# TYPE rlsim_fallback_decisions counter
# HELP rlsim_fallback_decisions Decisions the error policy made instead of Redis: every failed call and every call an open breaker cut short (each also counts as allowed or denied), per Redis series bucket
rlsim_fallback_decisions_total{@} 0 1000
rlsim_fallback_decisions_total{@} 1 1002
# TYPE rlsim_rate_check_latency_seconds histogram
# UNIT rlsim_rate_check_latency_seconds seconds
# HELP rlsim_rate_check_latency_seconds Latency the rate check added to each request (decision time minus arrival), per window of the first limit
rlsim_rate_check_latency_seconds_bucket{@,le="0.0001"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="0.00025"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="0.0005"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="0.001"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="0.0025"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="0.005"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="0.01"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="0.025"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="0.05"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="0.1"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="0.25"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="0.5"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="1.0"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="2.5"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="5.0"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="10.0"} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="+Inf"} 0 1000
rlsim_rate_check_latency_seconds_count{@} 0 1000
rlsim_rate_check_latency_seconds_sum{@} 0 1000
rlsim_rate_check_latency_seconds_bucket{@,le="0.0001"} 2 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="0.00025"} 2 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="0.0005"} 2 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="0.001"} 2 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="0.0025"} 2 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="0.005"} 3 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="0.01"} 3 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="0.025"} 3 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="0.05"} 3 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="0.1"} 3 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="0.25"} 3 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="0.5"} 3 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="1.0"} 3 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="2.5"} 3 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="5.0"} 3 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="10.0"} 3 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="+Inf"} 4 1001.5
rlsim_rate_check_latency_seconds_count{@} 4 1001.5
rlsim_rate_check_latency_seconds_sum{@} 20.00411 1001.5
rlsim_rate_check_latency_seconds_bucket{@,le="0.0001"} 2 1003
rlsim_rate_check_latency_seconds_bucket{@,le="0.00025"} 3 1003
rlsim_rate_check_latency_seconds_bucket{@,le="0.0005"} 3 1003
rlsim_rate_check_latency_seconds_bucket{@,le="0.001"} 3 1003
rlsim_rate_check_latency_seconds_bucket{@,le="0.0025"} 3 1003
rlsim_rate_check_latency_seconds_bucket{@,le="0.005"} 4 1003
rlsim_rate_check_latency_seconds_bucket{@,le="0.01"} 4 1003
rlsim_rate_check_latency_seconds_bucket{@,le="0.025"} 4 1003
rlsim_rate_check_latency_seconds_bucket{@,le="0.05"} 4 1003
rlsim_rate_check_latency_seconds_bucket{@,le="0.1"} 4 1003
rlsim_rate_check_latency_seconds_bucket{@,le="0.25"} 4 1003
rlsim_rate_check_latency_seconds_bucket{@,le="0.5"} 4 1003
rlsim_rate_check_latency_seconds_bucket{@,le="1.0"} 4 1003
rlsim_rate_check_latency_seconds_bucket{@,le="2.5"} 4 1003
rlsim_rate_check_latency_seconds_bucket{@,le="5.0"} 4 1003
rlsim_rate_check_latency_seconds_bucket{@,le="10.0"} 4 1003
rlsim_rate_check_latency_seconds_bucket{@,le="+Inf"} 5 1003
rlsim_rate_check_latency_seconds_count{@} 5 1003
rlsim_rate_check_latency_seconds_sum{@} 20.00431 1003
# TYPE rlsim_excess counter
# HELP rlsim_excess Admissions beyond the limit in their key's aligned window, as the oracle counts them on true time, per window of the first limit
rlsim_excess_total{@,limit="per_user"} 0 1000
rlsim_excess_total{@,limit="per_user"} 2 1001.5
rlsim_excess_total{@,limit="per_user"} 2 1003
# TYPE rlsim_redis_commands counter
# HELP rlsim_redis_commands Commands the Redis node started, per Redis series bucket
rlsim_redis_commands_total{@,node="redis"} 0 1000
rlsim_redis_commands_total{@,node="redis"} 3 1002
rlsim_redis_commands_total{@,node="redis"} 3 1004
# TYPE rlsim_redis_utilization_ratio gauge
# UNIT rlsim_redis_utilization_ratio ratio
# HELP rlsim_redis_utilization_ratio Share of the Redis node's time spent executing commands over the bucket that ends at the sample
rlsim_redis_utilization_ratio{@,node="redis"} 0.25 1002
rlsim_redis_utilization_ratio{@,node="redis"} 0 1004
# TYPE rlsim_redis_queue_length_max gauge
# HELP rlsim_redis_queue_length_max Most commands queued in front of a starting call on the Redis node over the bucket that ends at the sample
rlsim_redis_queue_length_max{@,node="redis"} 4 1002
rlsim_redis_queue_length_max{@,node="redis"} 0 1004
# EOF
)");
  CHECK(openmetrics_text(result, 1000) == expected);
}

TEST_CASE("cluster nodes by index, a node no command reached, a strategy without Redis") {
  Scenario scenario;
  scenario.name = "c";
  scenario.limits = {{"l", LimitKey::kUser, 1, kUsPerS}};
  StrategyResult local;  // in memory: decisions but no Redis side, so no Redis or fallback series
  local.label = "local";
  local.totals.series.resize(1);
  local.totals.series[0].admitted = 1;
  StrategyResult cluster;
  cluster.label = "cl";
  NodeResult busy, idle;
  busy.node = 0;
  busy.ops_per_s = {1.0, {7.0}};
  idle.node = 1;
  idle.ops_per_s.bucket_s = 1.0;  // no bucket: the node started no command
  RedisSideResult side;
  side.redis_nodes = {busy, idle};
  cluster.redis_side = side;  // and no decision: the decision families list nothing for it
  RunResult result;
  result.scenario = &scenario;
  result.strategies = {local, cluster};
  const std::string text = openmetrics_text(result, 0);
  CHECK(
      text.find(R"(rlsim_decisions_total{scenario="c",strategy="local",outcome="allowed"} 1 1)") !=
      std::string::npos);
  CHECK(text.find(R"(strategy="cl",outcome=)") == std::string::npos);
  CHECK(text.find(R"(rlsim_redis_commands_total{scenario="c",strategy="cl",node="0"} 0 0
rlsim_redis_commands_total{scenario="c",strategy="cl",node="0"} 7 1
rlsim_redis_commands_total{scenario="c",strategy="cl",node="1"} 0 0
# TYPE rlsim_redis_utilization_ratio gauge)") != std::string::npos);
  CHECK(text.find(R"(strategy="local",node=)") == std::string::npos);
  CHECK(text.find("rlsim_fallback_decisions_total") == std::string::npos);
  // Every family is declared once even when no strategy has samples of it, and the text ends so.
  for (const char* family :
       {"rlsim_decisions counter", "rlsim_decision_errors counter",
        "rlsim_fallback_decisions counter", "rlsim_rate_check_latency_seconds histogram",
        "rlsim_excess counter", "rlsim_redis_commands counter",
        "rlsim_redis_utilization_ratio gauge", "rlsim_redis_queue_length_max gauge"}) {
    INFO(family);
    const std::string line = std::string("# TYPE ") + family + "\n";
    CHECK(text.find(line) != std::string::npos);
    CHECK(text.find(line) == text.rfind(line));
  }
  CHECK(text.size() >= 6);
  CHECK(text.substr(text.size() - 6) == "# EOF\n");
}

TEST_CASE("timestamps are the epoch plus virtual time in exact decimal") {
  Scenario scenario;
  scenario.name = "t";
  // A 7 s window: the oracle's first aligned window starts 3 s before virtual time 0.
  scenario.limits = {{"first", LimitKey::kUser, 1, 7 * kUsPerS},
                     {"second", LimitKey::kIp, 1, kUsPerS}};
  StrategyResult strategy;
  strategy.label = "s";
  strategy.totals.series.resize(1);
  SeriesPoint& point = strategy.totals.series[0];
  point.start_us = -3 * kUsPerS;
  point.excess_by_limit = {0, 5};
  point.latency_buckets[0] = 1;
  point.latency_sum_us = 1;
  RunResult result;
  result.scenario = &scenario;
  result.strategies = {strategy};
  const std::string text = openmetrics_text(result, kDefaultMetricsEpochUnixS);
  CHECK(kDefaultMetricsEpochUnixS == 1'750'032'000);  // 2025-06-16T00:00:00Z, docs/metrics.md
  CHECK(text.find(R"(rlsim_decisions_total{scenario="t",strategy="s",outcome="allowed"} 0 1750031997
rlsim_decisions_total{scenario="t",strategy="s",outcome="allowed"} 0 1750032004
)") != std::string::npos);
  CHECK(
      text.find(
          R"(rlsim_rate_check_latency_seconds_sum{scenario="t",strategy="s"} 0.000001 1750032004)") !=
      std::string::npos);
  // Every limit has its excess series, in the scenario's order.
  CHECK(text.find(R"(rlsim_excess_total{scenario="t",strategy="s",limit="first"} 0 1750032004
rlsim_excess_total{scenario="t",strategy="s",limit="second"} 0 1750031997
rlsim_excess_total{scenario="t",strategy="s",limit="second"} 5 1750032004
)") != std::string::npos);
}

}  // namespace rlsim_test_openmetrics
