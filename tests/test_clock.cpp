// Clocks (docs/clocks.md): the clock model against hand-computed readings, the scenario fields
// that configure it, each clock source's staleness, window keys under skew, and the clock
// scenarios' headline numbers.
#include <catch2/catch.hpp>

#include "engine/clock_report.h"
#include "scenario/load.h"
#include "strategy_harness.h"
#include "test_util.h"
#include "world/clock.h"

namespace rlsim_test_clock {

using namespace rlsim;
using rlsim::testing::by_label;
using rlsim::testing::StrategyHarness;

namespace {

ClockFault fault(TimeUs at_us, ClockFaultType type, DurationUs amount_us, double ppm = 0,
                 std::vector<std::uint32_t> instances = {}) {
  ClockFault f;
  f.at_us = at_us;
  f.type = type;
  f.amount_us = amount_us;
  f.drift_ppm = ppm;
  f.instances = std::move(instances);
  return f;
}

std::string scenario_with(const std::string& instances_clock, const std::string& clock_faults) {
  return R"({"name": "t", "duration": "2m", "limits": [{"name": "l", "limit": 10, "window": "1s"}],
    "instances": {"count": 2)" +
         (instances_clock.empty() ? "" : ", \"clock\": " + instances_clock) + R"(},
    "traffic": [{"name": "u", "users": 1, "rate": "1/s"}], "strategies": ["redis_sliding_log"])" +
         (clock_faults.empty() ? "" : ", \"clock_faults\": " + clock_faults) + "}";
}

}  // namespace

TEST_CASE("clock model: a fixed offset and no faults") {
  ClockSpec spec;
  const ClockModel clock(2500, spec, 0);
  CHECK(clock.error_us(0) == 2500);
  CHECK(clock.unix_us(1'000'000) == kEpochUnixUs + 1'002'500);
  CHECK(clock.monotonic_us(1'000'000) == 1'000'000);  // the offset does not touch elapsed time
  CHECK(ClockModel().exact());
  CHECK(ClockModel(0, spec, 0).exact());
}

TEST_CASE("clock model: drift, a jump and a new offset, by hand") {
  ClockSpec spec;
  // +100 ppm from 0; at 10 s a jump of +3 s; at 20 s drift -50 ppm; at 30 s the offset set to 1 ms.
  spec.faults = {fault(0, ClockFaultType::kDrift, 0, 100),
                 fault(10 * kUsPerS, ClockFaultType::kJump, 3 * kUsPerS),
                 fault(20 * kUsPerS, ClockFaultType::kDrift, 0, -50),
                 fault(30 * kUsPerS, ClockFaultType::kOffset, kUsPerMs)};
  const ClockModel clock(5000, spec, 0);
  CHECK(clock.error_us(0) == 5000);
  CHECK(clock.error_us(5 * kUsPerS) == 5000 + 500);       // 100 ppm of 5 s
  CHECK(clock.error_us(10 * kUsPerS - 1) == 5000 + 999);  // floor(100e-6 * 9999999)
  CHECK(clock.error_us(10 * kUsPerS) == 5000 + 1000 + 3'000'000);
  CHECK(clock.error_us(20 * kUsPerS) == 5000 + 2000 + 3'000'000);
  CHECK(clock.error_us(25 * kUsPerS) == 5000 + 2000 + 3'000'000 - 250);  // -50 ppm of 5 s
  CHECK(clock.error_us(30 * kUsPerS) == 1000);
  CHECK(clock.error_us(40 * kUsPerS) == 1000 - 500);
  // Monotonic time: the drift only (+1000 by 10 s, +2000 by 20 s, then -50 ppm), no jump.
  CHECK(clock.monotonic_us(10 * kUsPerS) == 10 * kUsPerS + 1000);
  CHECK(clock.monotonic_us(40 * kUsPerS) == 40 * kUsPerS + 2000 - 1000);
  // Readings are a pure function of true time: asking out of order changes nothing.
  CHECK(clock.error_us(5 * kUsPerS) == 5500);
}

TEST_CASE("clock model: faults name their instances or the Redis node") {
  ClockSpec spec;
  spec.faults = {fault(kUsPerS, ClockFaultType::kJump, 7000, 0, {1})};
  ClockFault redis = fault(kUsPerS, ClockFaultType::kOffset, -300);
  redis.redis = true;
  spec.faults.push_back(redis);
  CHECK(ClockModel(0, spec, 0).error_us(2 * kUsPerS) == 0);
  CHECK(ClockModel(0, spec, 1).error_us(2 * kUsPerS) == 7000);
  CHECK(ClockModel(0, spec, ClockModel::kRedisNode).error_us(2 * kUsPerS) == -300);
  CHECK(ClockModel(0, spec, ClockModel::kRedisNode).error_us(kUsPerS - 1) == 0);
}

TEST_CASE("clock model: NTP steps the error back within its bound at each sync") {
  ClockSpec spec;
  spec.ntp = NtpSpec{16 * kUsPerS, kUsPerMs};
  spec.faults = {fault(0, ClockFaultType::kDrift, 0, 200),  // 200 ppm: 3.2 ms per 16 s
                 fault(40 * kUsPerS, ClockFaultType::kJump, -5 * kUsPerS)};
  const ClockModel clock(20 * kUsPerMs, spec, 0);
  CHECK(clock.error_us(16 * kUsPerS - 1) == 20'000 + 3199);
  // Sync 1 at 16 s: raw 23200 -> clamped to +1000.
  CHECK(clock.error_us(16 * kUsPerS) == 1000);
  // Drift goes on between syncs: +200 ppm of 10 s.
  CHECK(clock.error_us(26 * kUsPerS) == 1000 + 2000);
  // Sync 2 at 32 s: 1000 + 3200 = 4200 -> 1000.
  CHECK(clock.error_us(32 * kUsPerS) == 1000);
  // The jump at 40 s: 1000 + 1600 - 5 s, until sync 3 at 48 s clamps it to -1000.
  CHECK(clock.error_us(40 * kUsPerS) == 1000 + 1600 - 5'000'000);
  CHECK(clock.error_us(48 * kUsPerS - 1) == 1000 + 3199 - 5'000'000);
  CHECK(clock.error_us(48 * kUsPerS) == -1000);
  // Within the bound: left alone (-1000 + 3200 = 2200 > 1000 is clamped; check between syncs).
  CHECK(clock.error_us(50 * kUsPerS) == -1000 + 400);
  // The bound holds at every sync and the error between syncs is at most bound + drift * interval.
  // (After the jump's interval.)
  for (TimeUs t = 48 * kUsPerS; t < 200 * kUsPerS; t += 16 * kUsPerS) {
    CHECK(std::abs(clock.error_us(t)) <= 1000);
    CHECK(std::abs(clock.error_us(t + 16 * kUsPerS - 1)) <= 1000 + 3200);
  }
  // Earlier readings after later ones: the same values.
  CHECK(clock.error_us(16 * kUsPerS) == 1000);
  // NTP is for instances; the Redis node's clock keeps its error.
  CHECK(ClockModel(20 * kUsPerMs, spec, ClockModel::kRedisNode).error_us(100 * kUsPerS) ==
        20 * kUsPerMs);
}

TEST_CASE("scenario: clock_faults and instances.clock.ntp are read and checked") {
  const Scenario s = parse_scenario(
      scenario_with(R"({"ntp": {"interval": "16s", "max_error": "2ms"},
                        "attribution_threshold": "5ms"})",
                    R"([{"at": "30s", "type": "clock_jump", "instances": [1], "amount": "-4s"},
                        {"at": "10s", "type": "clock_drift", "amount": 50},
                        {"at": "20s", "type": "clock_offset", "redis": true, "amount": "3ms"}])"),
      "t.json");
  const ClockSpec& clock = s.instances.clock;
  CHECK(clock.configured);
  CHECK(clock.ntp.interval_us == 16 * kUsPerS);
  CHECK(clock.ntp.max_error_us == 2 * kUsPerMs);
  CHECK(clock.attribution_threshold_us == 5 * kUsPerMs);
  REQUIRE(clock.faults.size() == 3);
  CHECK(clock.faults[0].type == ClockFaultType::kDrift);  // sorted by time
  CHECK(clock.faults[0].drift_ppm == 50);
  CHECK(clock.faults[1].redis);
  CHECK(clock.faults[1].amount_us == 3000);
  CHECK(clock.faults[2].amount_us == -4 * kUsPerS);
  CHECK(clock.faults[2].instances == std::vector<std::uint32_t>{1});
  CHECK_FALSE(parse_scenario(scenario_with("", ""), "t.json").instances.clock.configured);

  const auto error_of = [](const std::string& text) {
    try {
      parse_scenario(text, "t.json");
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(error_of(scenario_with("", R"([{"at": "1s", "type": "clock_warp", "amount": "1s"}])")),
             Catch::Contains("clock_faults[0].type: expected one of"));
  CHECK_THAT(error_of(scenario_with("", R"([{"at": "3m", "type": "clock_jump", "amount": "1s"}])")),
             Catch::Contains("clock_faults[0].at: expected a duration from"));
  CHECK_THAT(error_of(scenario_with("", R"([{"at": "1s", "type": "clock_drift", "amount": "5"}])")),
             Catch::Contains("clock_faults[0].amount: expected a drift in parts per million"));
  CHECK_THAT(error_of(scenario_with("", R"([{"at": "1s", "type": "clock_jump", "redis": true,
                                             "instances": [0], "amount": "1s"}])")),
             Catch::Contains("clock_faults[0].instances: a fault on the Redis node"));
  CHECK_THAT(error_of(scenario_with("", R"([{"at": "1s", "type": "clock_jump", "amount": "1s",
                                             "size": 3}])")),
             Catch::Contains("clock_faults[0].size: unknown field"));
  CHECK_THAT(error_of(scenario_with(R"({"ntp": {"interval": "1ms", "max_error": "1ms"}})", "")),
             Catch::Contains("instances.clock.ntp.interval: expected a duration from 1s"));
}

TEST_CASE("clock sources: local, redis_time and redis_time_cached, and their staleness") {
  // RTT 1 ms (0.5 ms each way), no service time. The instance's clock is 7 s ahead.
  const std::string limit = R"({"name": "l", "limit": 100, "window": "10s"})";
  const auto member_scores = [](StrategyHarness& h) {
    const Reply reply = h.store().run(Command{"ZRANGE", "rl:user:0", "0", "-1", "WITHSCORES"},
                                      kEpochUnixUs + 5 * kUsPerS);
    std::vector<std::int64_t> scores;
    for (std::size_t i = 1; i < reply.elements.size(); i += 2)
      scores.push_back(std::stoll(reply.elements[i].text) - kEpochUnixUs);
    return scores;
  };

  SECTION("local: the instance's clock, no extra round trip") {
    StrategyHarness h(limit, R"("redis_sliding_log")", {7 * kUsPerS});
    h.request(10'000);
    CHECK(h.pattern() == "1");
    CHECK(member_scores(h) == std::vector<std::int64_t>{7 * kUsPerS + 10'000});
    CHECK(h.stats().round_trips == 2);  // EVALSHA, then EVAL after NOSCRIPT
  }
  SECTION("redis_time: TIME first, its value passed; stale by TIME's return leg when sent") {
    StrategyHarness h(limit, R"({"name": "redis_sliding_log", "clock": "redis_time"})",
                      {7 * kUsPerS});
    h.request(10'000);
    h.request(20'000);
    CHECK(h.pattern() == "11");
    // TIME runs at arrival + 0.5 ms; the script is sent at arrival + 1 ms and runs 0.5 ms later,
    // with the value TIME read: 1 ms old by then, whatever the instance's clock says.
    CHECK(member_scores(h) == std::vector<std::int64_t>{10'500, 20'500});
    CHECK(h.stats().round_trips == 5);  // TIME, EVALSHA, EVAL (NOSCRIPT); TIME, EVALSHA
    nlohmann::ordered_json metrics;
    h.strategy().write_metrics(metrics);
    CHECK(metrics["time_calls"] == 2);
    CHECK(metrics["clock_lag_us"]["mean"] == 500.0);  // measured when the script is sent
  }
  SECTION("redis_time_cached: TIME once per refresh, advanced by the monotonic clock") {
    StrategyHarness h(limit,
                      R"({"name": "redis_sliding_log", "clock": "redis_time_cached",
                          "clock_refresh": "1s"})",
                      {7 * kUsPerS});
    h.request(0);
    h.request(300'000);    // cached: TIME's 500 + (300000 - 1000) elapsed since its reply
    h.request(1'500'000);  // older than 1 s on the monotonic clock: TIME again
    CHECK(h.pattern() == "111");
    CHECK(member_scores(h) == std::vector<std::int64_t>{500, 299'500, 1'500'500});
    nlohmann::ordered_json metrics;
    h.strategy().write_metrics(metrics);
    CHECK(metrics["time_calls"] == 2);
    CHECK(metrics["clock_lag_us"]["max_abs"] == 500);
  }
}

TEST_CASE("window keys under skew: each instance's clock picks the window, TIME agrees") {
  const std::string limit = R"({"name": "l", "limit": 100, "window": "1s"})";
  const std::int64_t first = kEpochUnixUs / kUsPerS;  // the window of true time 0..1 s
  const auto has_key = [](StrategyHarness& h, std::int64_t window) {
    return h.store()
               .run(Command{"EXISTS", "rl:user:0:" + std::to_string(window)},
                    kEpochUnixUs + 900'000)
               .integer == 1;
  };
  SECTION("local clocks: 0.6 s ahead lands in the next window") {
    StrategyHarness h(limit, R"("redis_fixed_window_lua")", {0, 600'000});
    h.request(500'000, 0, 0);
    h.request(500'000, 0, 1);
    CHECK(h.pattern() == "11");
    CHECK(has_key(h, first));
    CHECK(has_key(h, first + 1));
  }
  SECTION("redis_time: both instances count in one window") {
    StrategyHarness h(limit, R"({"name": "redis_fixed_window_lua", "clock": "redis_time"})",
                      {0, 600'000});
    h.request(500'000, 0, 0);
    h.request(500'000, 0, 1);
    CHECK(h.pattern() == "11");
    CHECK(has_key(h, first));
    CHECK_FALSE(has_key(h, first + 1));
  }
}

TEST_CASE("a Redis node clock fault shows in TIME; a step back is held, never run backwards") {
  ClockSpec spec;
  ClockFault ahead = fault(kUsPerS, ClockFaultType::kOffset, 2 * kUsPerS);
  ahead.redis = true;
  ClockFault back = fault(2 * kUsPerS, ClockFaultType::kJump, -3 * kUsPerS);
  back.redis = true;
  spec.faults = {ahead, back};
  spec.configured = true;
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, RedisTiming{0, 0, 0, 50'000}, Rng(1, "network"));
  ClockWatch watch(spec, 1);
  watch.attach(server);
  std::vector<TimeUs> times;
  struct Probe : EventTarget {
    virtual ~Probe() = default;
    RedisServer* server;
    std::vector<TimeUs>* times;
    void on_event(std::uint64_t) override {
      [](RedisServer& s, std::vector<TimeUs>& out) -> Task<int> {
        const Reply r = std::move((co_await s.call(command("TIME"))).front());
        out.push_back(std::stoll(r.elements[0].text) * kUsPerS + std::stoll(r.elements[1].text) -
                      kEpochUnixUs);
        co_return 0;
      }(*server, *times)
                                                          .start_detached([](void*, int&&) {},
                                                                          nullptr);
    }
  } probe;
  probe.server = &server;
  probe.times = &times;
  for (TimeUs at : {500'000, 1'500'000, 2'500'000, 5'000'000}) sim.schedule(at, &probe, 0);
  sim.run_until(10 * kUsPerS);
  // At 2.5 s the node's clock reads -0.5 s (stepped back 3 s): the store's time is held at 3.5 s.
  // At 5 s it reads 4 s again, past the held time.
  CHECK(times == std::vector<TimeUs>{500'000, 3'500'000, 3'500'000, 4'000'000});
}

TEST_CASE("clock-skew.json: 50 ms of skew is about 5% of a 1 s window and nothing of 60 s") {
  const auto result = rlsim::testing::run_text(
      load_scenario(std::string(RLSIM_SOURCE_DIR) + "/scenarios/clock-skew.json"));
  const auto& local = by_label(result, "sliding_log_local").totals;
  const auto& redis_time = by_label(result, "sliding_log_redis_time").totals;
  CHECK(local.limits[0].rolling_overshoot >= 1.03);
  CHECK(local.limits[0].rolling_overshoot <= 1.10);
  CHECK(local.limits[1].rolling_overshoot <= 1.01);
  CHECK(redis_time.limits[0].excess == 0);
  CHECK(local.limits[0].excess > 0);
}

TEST_CASE("vm-resume.json: the jumped clock lets the local-clock log through, TIME holds") {
  const auto result = rlsim::testing::run_text(
      load_scenario(std::string(RLSIM_SOURCE_DIR) + "/scenarios/vm-resume.json"));
  const auto& local = by_label(result, "sliding_log_local");
  CHECK(local.totals.limits[0].excess >= 300);
  REQUIRE(local.clock);
  CHECK(local.clock->excess_while_off == local.clock->excess);
  CHECK(by_label(result, "sliding_log_redis_time").totals.limits[0].excess == 0);
  CHECK(by_label(result, "sliding_log_cached").totals.limits[0].excess == 0);
  // The clock error series: instance 1 is 5 s ahead from 65 s until the NTP sync at 90 s.
  const ClockResult& clock = *local.clock;
  const double step_s = clock.step_s;
  const auto& errors = clock.instances.at(1).errors.error_us;
  CHECK(errors[static_cast<std::size_t>(70 / step_s)] == 5'000'000);
  CHECK(errors[static_cast<std::size_t>(100 / step_s)] == 1000);
  CHECK(clock.instances.at(0).errors.max_abs_error_us == 0);
}

TEST_CASE("the JSON report has a clock section only when the scenario configures clocks") {
  const auto has_clock = [](const std::string& instances_clock) {
    const Scenario s = parse_scenario(scenario_with(instances_clock, ""), "t.json");
    const auto json = report_json(rlsim::testing::run_text(s));
    return json["strategies"][0].contains("clock");
  };
  CHECK_FALSE(has_clock(""));
  CHECK(has_clock(R"({"offsets": ["5ms"]})"));
}

}  // namespace rlsim_test_clock
