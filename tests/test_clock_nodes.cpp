// Every Redis node and every instance group has its own clock (docs/clocks.md): NTP for the Redis
// nodes (redis.clock.ntp), clock faults on one region's Redis or on cluster nodes, NTP per region
// (regions.list[].ntp), each against hand-computed readings and in a run's report; and the
// replication-delay sweep of scenarios/multi-region.json (docs/regions.md).
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_dir.h"
#include "engine/clock_report.h"
#include "redis/mock_store.h"
#include "report/html_report.h"
#include "report/report.h"
#include "scenario/load.h"
#include "strategy_harness.h"
#include "test_util.h"
#include "world/clock.h"

namespace rlsim_test_clock_nodes {

using namespace rlsim;
using Catch::Contains;

namespace {

ClockFault redis_change(TimeUs at_us, ClockFaultType type, DurationUs amount_us, double ppm = 0) {
  ClockFault f;
  f.at_us = at_us;
  f.type = type;
  f.amount_us = amount_us;
  f.drift_ppm = ppm;
  f.redis = true;
  return f;
}

// Three regions (eu home, us, ap), one instance each, with `regions_extra` inside each region
// entry i (JSON text, may be empty), `redis_extra` in `redis` and `faults`.
std::string three_regions(const std::vector<std::string>& regions_extra,
                          const std::string& redis_extra, const std::string& faults) {
  const char* names[] = {"eu", "us", "ap"};
  std::string list;
  for (std::size_t r = 0; r < 3; ++r)
    list += std::string(r == 0 ? "" : ", ") + R"({"name": ")" + names[r] + R"(", "instances": 1)" +
            regions_extra[r] + "}";
  return R"({"name": "t", "duration": "1m", "limits": [{"name": "l", "limit": 10, "window": "1s"}],
    "instances": {"count": 3},
    "regions": {"list": [)" +
         list + R"(], "rtt": [["0ms", "80ms", "150ms"], ["80ms", "0ms", "120ms"],
                                 ["150ms", "120ms", "0ms"]]},
    "redis": {"rtt": "1ms")" +
         redis_extra + R"(},
    "traffic": [{"name": "u", "users": 1, "rate": "5/s", "roaming": 0.5}],
    "strategies": ["region_local"], "faults": )" +
         faults + "}";
}

std::string error_of(const std::string& text) {
  try {
    parse_scenario(text, "t.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

// A clock's error in the report's series at true time `at_s` (a multiple of the series step).
std::int64_t error_at(const nlohmann::ordered_json& series, const nlohmann::ordered_json& clock,
                      double at_s) {
  const auto index = static_cast<std::size_t>(std::llround(at_s / series["step_s"].get<double>()));
  return clock["error_us"][index].get<std::int64_t>();
}

}  // namespace

TEST_CASE("Redis node NTP: redis.clock.ntp steps a Redis node's clock back within its bound") {
  ClockSpec spec;
  spec.ntp = NtpSpec{10 * kUsPerS, 0};  // the instances' NTP does not touch the Redis node
  spec.redis_ntp = NtpSpec{16 * kUsPerS, kUsPerMs};
  spec.faults = {redis_change(0, ClockFaultType::kOffset, 20 * kUsPerMs),
                 redis_change(0, ClockFaultType::kDrift, 0, 200),
                 redis_change(40 * kUsPerS, ClockFaultType::kJump, -5 * kUsPerS)};
  const ClockModel node(0, spec, ClockModel::kRedisNode);
  CHECK(node.error_us(10 * kUsPerS) == 20'000 + 2000);  // no sync at the instances' 10 s
  CHECK(node.error_us(16 * kUsPerS - 1) == 20'000 + 3199);
  CHECK(node.error_us(16 * kUsPerS) == 1000);              // sync 1: 23.2 ms -> +1 ms
  CHECK(node.error_us(26 * kUsPerS) == 1000 + 2000);       // 200 ppm of 10 s
  CHECK(node.error_us(32 * kUsPerS) == 1000);              // sync 2: 4.2 ms -> 1 ms
  CHECK(node.error_us(40 * kUsPerS) == 2600 - 5'000'000);  // the jump, until the next sync
  CHECK(node.error_us(48 * kUsPerS) == -1000);             // sync 3
  for (TimeUs t = 48 * kUsPerS; t < 300 * kUsPerS; t += 16 * kUsPerS) {
    CHECK(std::abs(node.error_us(t)) <= 1000);
    CHECK(std::abs(node.error_us(t + 16 * kUsPerS - 1)) <= 1000 + 3200);
  }
  // Without redis.clock.ntp the node keeps its error, as before.
  spec.redis_ntp = NtpSpec{};
  CHECK(ClockModel(0, spec, ClockModel::kRedisNode).error_us(100 * kUsPerS) ==
        20'000 + 20'000 - 5'000'000);
}

TEST_CASE("Redis node clocks: a clock fault names one region's Redis or some cluster nodes") {
  ClockSpec spec;
  ClockFault us = redis_change(kUsPerS, ClockFaultType::kJump, 7000);
  us.region = 1;
  ClockFault nodes = redis_change(kUsPerS, ClockFaultType::kOffset, -300);
  nodes.nodes = {1, 2};
  ClockFault every = redis_change(2 * kUsPerS, ClockFaultType::kJump, 50);
  spec.faults = {us, nodes, every};
  // Regions (no cluster): node 0 of each region.
  CHECK(ClockModel::redis_node(spec, 0, 0).error_us(3 * kUsPerS) == 50);
  CHECK(ClockModel::redis_node(spec, 1, 0).error_us(3 * kUsPerS) == 7000 + 50);
  CHECK(ClockModel::redis_node(spec, 1, 0).error_us(kUsPerS - 1) == 0);
  // A cluster (no regions): node indexes.
  CHECK(ClockModel::redis_node(spec, -1, 0).error_us(3 * kUsPerS) == 7000 + 50);
  CHECK(ClockModel::redis_node(spec, -1, 2).error_us(1500 * kUsPerMs) == -300);
  CHECK(ClockModel::redis_node(spec, -1, 2).error_us(3 * kUsPerS) == -300 + 50);
  // Instances never take a Redis node's fault.
  CHECK(ClockModel(0, spec, 0).exact());
}

TEST_CASE("scenario: redis.clock.ntp, a region's ntp and Redis clock faults by region are read") {
  const Scenario s = parse_scenario(
      three_regions({"", R"(, "ntp": {"interval": "10s", "max_error": "2ms", "mode": "slew"})",
                     R"(, "ntp": "off")"},
                    R"(, "clock": {"ntp": {"interval": "20s", "max_error": "1ms"}})",
                    R"([{"type": "clock_offset", "at": "5s", "nodes": "all", "region": "us",
                         "amount": "-300ms"},
                        {"type": "clock_jump", "at": "5s", "amount": "1s"}])"),
      "t.json");
  const ClockSpec& clock = s.instances.clock;
  CHECK(clock.configured);
  CHECK(clock.redis_ntp.interval_us == 20 * kUsPerS);
  CHECK(clock.redis_ntp.max_error_us == kUsPerMs);
  REQUIRE(clock.instance_ntp.size() == 3);        // by instance id: eu, us, ap
  CHECK(clock.instance_ntp[0].interval_us == 0);  // eu: instances.clock.ntp, absent here
  CHECK(clock.instance_ntp[1].interval_us == 10 * kUsPerS);
  CHECK(clock.instance_ntp[1].mode == NtpMode::kSlew);
  CHECK(clock.instance_ntp[2].interval_us == 0);  // "off"
  REQUIRE(clock.faults.size() == 2);
  CHECK(clock.faults[0].redis);
  CHECK(clock.faults[0].region == 1);
  CHECK_FALSE(clock.faults[1].redis);

  const std::vector<std::string> none{"", "", ""};
  CHECK_THAT(error_of(three_regions(none, "", R"([{"type": "clock_jump", "at": "1s",
                                                   "nodes": "all", "region": "mars",
                                                   "amount": "1s"}])")),
             Contains("t.json: faults[0].region: expected one of the regions (\"eu\", \"us\", "
                      "\"ap\"), got \"mars\""));
  CHECK_THAT(error_of(three_regions(none, "", R"([{"type": "clock_jump", "at": "1s",
                                                   "region": "us", "amount": "1s"}])")),
             Contains("faults[0].region: a clock fault names a region's Redis with \"nodes\""));
  CHECK_THAT(error_of(three_regions(none, "", R"([{"type": "clock_jump", "at": "1s",
                                                   "nodes": [1], "amount": "1s"}])")),
             Contains("faults[0].nodes: a node index needs \"redis.cluster\""));
  CHECK_THAT(error_of(three_regions(none, "", R"([{"type": "clock_jump", "at": "1s",
                                                   "nodes": "some", "amount": "1s"}])")),
             Contains("faults[0].nodes: expected \"all\" (every Redis node's clock), a cluster"));
  CHECK_THAT(error_of(three_regions(none, R"(, "clock": {"ntp": {"interval": "1ms",
                                                                  "max_error": "1ms"}})",
                                    "[]")),
             Contains("redis.clock.ntp.interval: expected a duration from 1s"));
  CHECK_THAT(error_of(three_regions(none, R"(, "clock": {"offset": "1ms"})", "[]")),
             Contains("redis.clock.offset: unknown field (expected one of: ntp)"));
  CHECK_THAT(error_of(three_regions({"", R"(, "ntp": true)", ""}, "", "[]")),
             Contains("regions.list[1].ntp: expected an object"));
}

TEST_CASE("a run: each region's Redis and instances have their own clock, in the report") {
  const Scenario s = parse_scenario(
      three_regions(
          {"", R"(, "ntp": {"interval": "10s", "max_error": "1ms"})", R"(, "ntp": "off")"},
          R"(, "clock": {"ntp": {"interval": "20s", "max_error": "2ms"}})",
          R"([{"type": "clock_offset", "at": "10s", "nodes": "all", "region": "us",
                         "amount": "-300ms"},
                        {"type": "clock_drift", "at": "0s", "nodes": "all", "amount": 100},
                        {"type": "clock_jump", "at": "5s", "amount": "1s"}])"),
      "t.json");
  const RunResult result = rlsim::testing::run_text(s);
  const auto json = report_json(result);
  // The HTML clock chart draws each node's clock by name.
  const std::string html = report_html(result, "rlsim run t.json");
  CHECK_THAT(html, Contains("Redis eu"));
  CHECK_THAT(html, Contains("Redis us"));
  CHECK_THAT(html, Contains("Redis ap"));
  const auto& series = json["strategies"][0]["clock"]["series"];  // a point every 0.6 s
  const auto& nodes = series["redis_nodes"];
  REQUIRE(nodes.size() == 3);
  CHECK(nodes[0]["name"] == "eu");
  CHECK(nodes[1]["name"] == "us");
  // Every node drifts 100 ppm; redis.clock.ntp every 20 s leaves 2 ms alone.
  CHECK(error_at(series, nodes[0], 15) == 1500);
  CHECK(error_at(series, nodes[2], 18) == 1800);
  CHECK(error_at(series, nodes[2], 21) == 2100);
  // us's Redis alone: set to -300 ms at 10 s, stepped to -2 ms at the sync at 20 s.
  CHECK(error_at(series, nodes[1], 15) == -300'000 + 500);
  CHECK(error_at(series, nodes[1], 18) == -300'000 + 800);
  CHECK(error_at(series, nodes[1], 21) == -1900);
  // series.redis is the home region's, as without per-node clocks.
  CHECK(series["redis"]["error_us"] == nodes[0]["error_us"]);
  // Instances (ids by region: eu 0, us 1, ap 2) jump 1 s at 5 s: eu has no NTP, us's syncs
  // every 10 s with a 1 ms bound, ap's is off.
  const auto& instances = series["instances"];
  CHECK(error_at(series, instances[0], 30) == 1'000'000);
  CHECK(error_at(series, instances[1], 9) == 1'000'000);
  CHECK(error_at(series, instances[1], 10.2) == 1000);
  CHECK(error_at(series, instances[2], 58.8) == 1'000'000);
}

TEST_CASE("a region's Redis serves TIME from its own clock") {
  ClockSpec spec;
  ClockFault us = redis_change(kUsPerS, ClockFaultType::kJump, 2 * kUsPerS);
  us.region = 1;
  spec.faults = {us};
  spec.configured = true;
  RegionsSpec regions;
  regions.list = {RegionSpec{"eu", 1}, RegionSpec{"us", 1}};
  Simulator sim;
  MockStore eu_store, us_store;
  RedisServer eu(sim, eu_store, RedisTiming{0, 0, 0, 50'000}, Rng(1, "network"));
  RedisServer us_server(sim, us_store, RedisTiming{0, 0, 0, 50'000}, Rng(1, "network", 1));
  ClockWatch watch(spec, 1);
  watch.attach_nodes(eu, nullptr, {&eu, &us_server}, regions);
  CHECK(eu.clock_unix_us(3 * kUsPerS) == kEpochUnixUs + 3 * kUsPerS);
  CHECK(us_server.clock_unix_us(3 * kUsPerS) == kEpochUnixUs + 5 * kUsPerS);
  CHECK(us_server.clock_unix_us(kUsPerS - 1) == kEpochUnixUs + kUsPerS - 1);
}

TEST_CASE("multi-region.json: a sweep over replication_delay, overshoot rising with the delay") {
  std::ifstream in(std::string(RLSIM_SOURCE_DIR) + "/scenarios/multi-region.json");
  std::stringstream text;
  text << in.rdbuf();
  rlsim::testing::CliDir dir("sweep-crdt", text.str());
  REQUIRE(dir.rlsim("sweep s.json --set 'strategies[2].replication_delay=0ms,1s,10s,60s' "
                    "--strategy crdt_100ms --strategy region_local --metric overshoot "
                    "--metric excess --jobs 1 --out sw") == 0);
  const auto json =
      nlohmann::json::parse(rlsim::testing::read_text_file(dir.path / "sw" / "sweep.json"));
  REQUIRE(json["points"].size() == 4);
  const auto metric = [&](std::size_t point, const std::string& label, const char* name) {
    for (const auto& strategy : json["points"][point]["strategies"])
      if (strategy["label"] == label) return strategy["metrics"][name]["mean"].get<double>();
    FAIL("no strategy " << label);
    return 0.0;
  };
  CHECK(metric(0, "crdt_100ms", "excess") == 0);  // delivered before the next decision
  CHECK(metric(0, "crdt_100ms", "overshoot") < metric(1, "crdt_100ms", "overshoot"));
  CHECK(metric(1, "crdt_100ms", "overshoot") < metric(2, "crdt_100ms", "overshoot"));
  CHECK(metric(2, "crdt_100ms", "overshoot") < metric(3, "crdt_100ms", "overshoot"));
  // A delay as long as the window: no region hears of the others in time, as region_local.
  CHECK(metric(3, "crdt_100ms", "excess") == metric(3, "region_local", "excess"));
  CHECK_THAT(dir.out(), Contains("strategies[2].replication_delay"));
}

TEST_CASE("a run on an embedded cluster: a clock fault on some nodes, each node in the report") {
  const Scenario s = parse_scenario(
      R"({"name": "t", "duration": "1m", "limits": [{"name": "l", "limit": 10, "window": "1s"}],
          "instances": {"count": 2}, "redis": {"cluster": {"nodes": 3}},
          "traffic": [{"name": "u", "users": 3, "rate": "5/s"}],
          "strategies": [{"name": "redis_sliding_log", "clock": "redis_time"}],
          "faults": [{"type": "clock_offset", "at": "6s", "nodes": [1, 2], "amount": "2s"},
                     {"type": "clock_jump", "at": "12s", "nodes": 2, "amount": "-500ms"}]})",
      "t.json");
  const auto json = report_json(rlsim::testing::run_text(s));
  const auto& series = json["strategies"][0]["clock"]["series"];  // a point every 0.6 s
  const auto& nodes = series["redis_nodes"];
  REQUIRE(nodes.size() == 3);
  CHECK(nodes[2]["name"] == "node 2");
  CHECK(nodes[0]["max_abs_error_us"] == 0);
  CHECK(error_at(series, nodes[1], 5.4) == 0);
  CHECK(error_at(series, nodes[1], 6) == 2'000'000);
  CHECK(error_at(series, nodes[1], 30) == 2'000'000);
  CHECK(error_at(series, nodes[2], 30) == 1'500'000);
  CHECK(series["redis"]["error_us"] == nodes[0]["error_us"]);
}

TEST_CASE("redis_fixed_window takes a clock source: TIME picks the window, not the skewed clock") {
  const std::string limit = R"({"name": "l", "limit": 100, "window": "1s"})";
  const std::int64_t first = kEpochUnixUs / kUsPerS;  // the window of true time 0..1 s
  const auto has_key = [](rlsim::testing::StrategyHarness& h, std::int64_t window) {
    return h.store()
               .run(Command{"EXISTS", "rl:user:0:" + std::to_string(window)},
                    kEpochUnixUs + 900'000)
               .integer == 1;
  };
  SECTION("local (the default): 0.6 s ahead counts in the next window") {
    rlsim::testing::StrategyHarness h(limit, R"("redis_fixed_window")", {0, 600'000});
    h.request(500'000, 0, 0);
    h.request(500'000, 0, 1);
    CHECK(h.pattern() == "11");
    CHECK(has_key(h, first));
    CHECK(has_key(h, first + 1));
    nlohmann::ordered_json metrics;
    h.strategy().write_metrics(metrics);
    CHECK_FALSE(metrics.contains("time_calls"));  // a local-clock report keeps its shape
  }
  SECTION("redis_time: one TIME round trip, then INCR and EXPIRE in TIME's window") {
    rlsim::testing::StrategyHarness h(
        limit, R"({"name": "redis_fixed_window", "clock": "redis_time"})", {0, 600'000});
    h.request(500'000, 0, 0);
    h.request(500'000, 0, 1);
    CHECK(h.pattern() == "11");
    CHECK(has_key(h, first));
    CHECK_FALSE(has_key(h, first + 1));
    CHECK(h.stats().round_trips == 2 + 3);  // TIME each; INCR each; one EXPIRE
    nlohmann::ordered_json metrics;
    h.strategy().write_metrics(metrics);
    CHECK(metrics["time_calls"] == 2);
    CHECK(metrics["clock_lag_us"]["mean"] == 500.0);  // TIME's return leg of the 1 ms RTT
  }
  SECTION("redis_time_cached: TIME once per refresh per instance") {
    rlsim::testing::StrategyHarness h(
        limit, R"({"name": "redis_fixed_window", "clock": "redis_time_cached"})", {600'000});
    h.request(100'000);
    h.request(300'000);
    h.request(700'000);
    CHECK(h.pattern() == "111");
    CHECK(has_key(h, first));
    CHECK_FALSE(has_key(h, first + 1));
    nlohmann::ordered_json metrics;
    h.strategy().write_metrics(metrics);
    CHECK(metrics["time_calls"] == 1);
  }
}

TEST_CASE("global_redis and region_local read TIME from the Redis they count in") {
  std::string text = three_regions({"", "", ""}, R"(, "timeout": "1s")", "[]");
  const std::string one = R"("strategies": ["region_local"])";
  text.replace(text.find(one), one.size(),
               R"("strategies": [{"name": "region_local", "clock": "redis_time"},
                                 {"name": "global_redis", "clock": "redis_time"}])");
  const auto result = rlsim::testing::run_text(parse_scenario(text, "t.json"));
  const auto p50 = [&](const char* label, std::size_t region) {
    return rlsim::testing::by_label(result, label).regions.value().at(region).latency_us.p50;
  };
  // RTT 1 ms inside a region; us is 80 ms from eu (home), ap 150 ms. TIME and INCR are two round
  // trips a decision (three with a window's EXPIRE); p50 is a histogram bucket's top.
  for (std::size_t region : {0, 1, 2}) {
    CHECK(p50("region_local", region) >= 2000);
    CHECK(p50("region_local", region) < 3 * 1000 + 100);
  }
  CHECK(p50("global_redis", 0) < 3 * 1000 + 100);
  CHECK(p50("global_redis", 1) >= 2 * 81'000);
  CHECK(p50("global_redis", 1) < 3 * 81'000);
  CHECK(p50("global_redis", 2) >= 2 * 151'000);
  CHECK(p50("global_redis", 2) < 3 * 151'000);
}

TEST_CASE("multi_limit and sharded_global take a clock source too: one TIME, then the pipeline") {
  const std::string limits = R"({"name": "u", "key": "user", "limit": 100, "window": "1s"},
                                {"name": "g", "key": "global", "limit": 1000, "window": "1s"})";
  const std::int64_t first = kEpochUnixUs / kUsPerS;
  for (const char* name : {"multi_limit", "sharded_global"}) {
    for (const char* clock : {"local", "redis_time"}) {
      const std::string entry =
          std::string(R"({"name": ")") + name + R"(", "clock": ")" + clock + R"("})";
      rlsim::testing::StrategyHarness h(limits, entry, {0, 600'000});
      h.request(500'000, 0, 0);
      h.request(500'000, 0, 1);
      CHECK(h.pattern() == "11");
      const auto user_key = [&](std::int64_t window) {
        return h.store()
                   .run(Command{"EXISTS", "rl:user:0:" + std::to_string(window)},
                        kEpochUnixUs + 900'000)
                   .integer == 1;
      };
      const bool redis_time = std::string(clock) == "redis_time";
      INFO(name << " with clock " << clock);
      CHECK(user_key(first));
      CHECK(user_key(first + 1) == !redis_time);  // 0.6 s ahead: the next window on its own clock
      // One pipeline a request, and one TIME before it with redis_time.
      CHECK(h.stats().round_trips == (redis_time ? 4u : 2u));
      nlohmann::ordered_json metrics;
      h.strategy().write_metrics(metrics);
      CHECK(metrics.contains("time_calls") == redis_time);
    }
  }
}

TEST_CASE("local_budget and token_reservation take a clock source: the claim's window from TIME") {
  const std::string limit = R"({"name": "u", "key": "user", "limit": 100, "window": "1s"})";
  const std::int64_t first = kEpochUnixUs / kUsPerS;
  for (const char* name : {"local_budget", "token_reservation"}) {
    for (const char* clock : {"local", "redis_time", "redis_time_cached"}) {
      const std::string entry =
          std::string(R"({"name": ")") + name + R"(", "batch": 10, "clock": ")" + clock + R"("})";
      rlsim::testing::StrategyHarness h(limit, entry, {0, 600'000});
      // Instance 1 runs 0.6 s ahead: at true 0.5 s its own clock is in the next window.
      h.request(500'000, 0, 0);
      h.request(500'000, 0, 1);
      h.request(520'000, 0, 1);  // spent from instance 1's local tokens
      CHECK(h.pattern() == "111");
      const auto claimed = [&](std::int64_t window) {
        const Reply count = h.store().run(Command{"GET", "rl:user:0:" + std::to_string(window)},
                                          kEpochUnixUs + 900'000);
        return count.type == Reply::Type::kNil ? std::string("none") : count.text;
      };
      const std::string source = clock;
      INFO(name << " with clock " << clock);
      nlohmann::ordered_json metrics;
      h.strategy().write_metrics(metrics);
      CHECK(metrics["claims"] == 2);
      if (source == "local") {
        CHECK(claimed(first) == "10");
        CHECK(claimed(first + 1) == "10");  // instance 1 claimed in its own next window
        CHECK_FALSE(metrics.contains("time_calls"));
      } else {
        CHECK(claimed(first) == "20");  // both claims in TIME's window
        CHECK(claimed(first + 1) == "none");
        // redis_time reads TIME for every decision, also one spent from local tokens;
        // redis_time_cached once per instance per refresh.
        CHECK(metrics["time_calls"] == (source == "redis_time" ? 3 : 2));
      }
    }
  }
}

}  // namespace rlsim_test_clock_nodes
