// limitador_cached (Kuadrant Limitador's redis_cached storage, strategy/limitador_cached.cpp) on
// small traffic computed by hand: decisions from the local cache, the urgent flush of an unseen
// counter, the merge of the others' increments at each flush, the windows of flush_period or less,
// a partition (increments returned, except a counter's first flush in a window), a response
// timeout whose script still ran, eviction, the parameters, and the scenario's headline numbers.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "strategy_harness.h"
#include "test_util.h"

namespace rlsim_test_strategy_limitador_cached {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

constexpr TimeUs ms(std::int64_t value) { return value * kUsPerMs; }

std::string limit_per_minute(int limit) {
  return R"({"name": "per_user", "key": "user", "limit": )" + std::to_string(limit) +
         R"(, "window": "1m"})";
}

// key_for_counter's text encoding of user `user`'s counter of the per-minute limit.
std::string counter_key(const std::string& user, int seconds = 60) {
  return R"(namespace:{rlsim},counter:{"limit":{"namespace":"rlsim","seconds":)" +
         std::to_string(seconds) +
         R"(,"conditions":["descriptors[0].limit == 'per_user'"],"variables":["descriptors[0].user"]},)"
         R"("set_variables":{"descriptors[0].user":")" +
         user + R"("},"remaining":null,"expires_in":null})";
}

// The mock store, answering every command with an error while the server's clock is in
// [from, until) (true time): Redis failing for a while.
class OutageStore final : public DataStore {
 public:
  OutageStore(TimeUs from_us, TimeUs until_us) : from_us_(from_us), until_us_(until_us) {}
  void execute(std::span<const Command> commands, TimeUs server_now_us,
               std::vector<Reply>& replies) override {
    const TimeUs t = server_now_us - kEpochUnixUs;
    if (t >= from_us_ && t < until_us_) {
      for (std::size_t i = 0; i < commands.size(); ++i) replies.push_back(Reply::error("ERR down"));
      return;
    }
    last_now_us = server_now_us;
    inner.execute(commands, server_now_us, replies);
  }
  std::size_t key_count() const override { return inner.key_count(); }
  void lose_data() override { inner.lose_data(); }
  std::string get(const std::string& key) {
    return to_display(inner.run({"GET", key}, last_now_us));
  }

  MockStore inner;
  TimeUs last_now_us = kEpochUnixUs;

 private:
  TimeUs from_us_;
  TimeUs until_us_;
};

}  // namespace

TEST_CASE(
    "limitador_cached: an unseen counter counts 0, and each instance learns the others' "
    "increments only from its own flushes") {
  StrategyHarness h(limit_per_minute(3), R"({"name": "limitador_cached"})", {0, 0});
  // Instance 0: unseen at 0 ms (admitted, urgent flush: Redis 1), then 2 and 3 from its cache.
  for (int at : {0, 10, 20, 30}) h.request(ms(at), 0, 0);
  // Instance 1: unseen at 100 ms (admitted; its urgent flush makes Redis 2 and brings the other
  // 1), then 3 at 110 ms; instance 0's 2 increments of 10 and 20 ms wait for its tick.
  for (int at : {100, 110, 120, 130}) h.request(ms(at), 0, 1);
  // Ticks at 1001 ms (instance 0: +2, Redis 4) and 1101 ms (instance 1: +1, Redis 5).
  h.request(ms(2000), 0, 0);
  h.request(ms(2000), 0, 1);
  CHECK(h.pattern() == "1110110000");
  CHECK(h.get(counter_key("0")) == "\"5\"");  // 5 admitted against a limit of 3
  const auto metrics = h.metrics();
  CHECK(metrics.at("flushes") == 4);
  CHECK(metrics.at("urgent_flushes") == 2);
  CHECK(metrics.at("writes_flushed") == 5);
  // Instance 1 learns 1 at 100 ms and 2 at 1101 ms, instance 0 learns 1 at 1001 ms.
  CHECK(metrics.at("remote_increments_merged") == 4);
  CHECK(metrics.at("counter_overshoot_max") == 2);  // instance 1 at 1101 ms: 5 against 3
  CHECK(h.redis({"HEXISTS",
                 R"(namespace:{rlsim},counters_of_limit:{"namespace":"rlsim","seconds":60,)"
                 R"("conditions":["descriptors[0].limit == 'per_user'"],)"
                 R"("variables":["descriptors[0].user"]})",
                 counter_key("0")}) == "(integer) 1");
}

TEST_CASE("limitador_cached: a shorter flush_period tells the others sooner") {
  // Instance 0 admits 3 (Redis 1 after its urgent flush, +2 at its tick), instance 1 asks at
  // 500 ms: with flush_period 1s it has not ticked yet (Redis 1 + 1), with 100ms it has (3 + 1).
  for (const auto& [period, expected] :
       {std::pair{"1s", std::string("11111")}, std::pair{"100ms", std::string("11110")}}) {
    StrategyHarness h(
        limit_per_minute(3),
        std::string(R"({"name": "limitador_cached", "flush_period": ")") + period + "\"}", {0, 0});
    for (int at : {0, 10, 20}) h.request(ms(at), 0, 0);
    h.request(ms(500), 0, 1);  // unseen: admitted either way, urgent flush
    h.request(ms(600), 0, 1);  // from its cache: 2 (1s) or 4 (100ms)
    CHECK(h.pattern() == expected);
  }
}

TEST_CASE(
    "limitador_cached: a window of flush_period or less makes every increment urgent, and "
    "the window follows Redis's expiry") {
  StrategyHarness h(R"({"name": "per_user", "key": "user", "limit": 2, "window": "1s"})",
                    R"({"name": "limitador_cached"})");
  // 0 ms unseen; 10 ms: 990 ms left <= flush_period, urgent; 20 ms denied; 1005 ms: the window
  // (Redis's expiry, 1000 ms on the instance's clock) is over, a new one starts at 1.
  for (int at : {0, 10, 20, 1005}) h.request(ms(at));
  CHECK(h.pattern() == "1101");
  CHECK(h.metrics().at("urgent_flushes") == 3);
  CHECK(h.metrics().at("flushes") == 3);
  CHECK(h.get(counter_key("0", 1)) == "\"1\"");  // the new window's key
}

TEST_CASE(
    "limitador_cached: partitioned, an instance limits alone and returns its increments "
    "for the next flush") {
  OutageStore store(ms(100), ms(2500));
  StrategyHarness h(limit_per_minute(5), R"({"name": "limitador_cached"})", {0}, 1000, 50'000, ".",
                    &store);
  // 0 ms: urgent flush, Redis 1. 200, 300 ms: pending 2. Tick at 1001 ms fails: the 2 are
  // returned; 1500 ms: admitted from the cache while partitioned (pending 3). Tick at 2002 ms
  // fails again; the one at 3003 ms sends 3 (Redis 4). 3500 ms: 5; 3600 ms: denied.
  for (int at : {0, 200, 300, 1500, 3500, 3600}) h.request(ms(at));
  CHECK(h.pattern() == "111110");
  CHECK(store.get(counter_key("0")) == "\"5\"");  // the 3500 ms increment at the 4004 ms tick
  const auto metrics = h.metrics();
  CHECK(metrics.at("flush_failures") == 2);
  CHECK(metrics.at("partitioned_periods") == 1);
  CHECK(metrics.at("partitioned_decisions") == 1);
  CHECK(metrics.at("writes_retried") == 5);  // 2, then 3
  CHECK(metrics.at("writes_dropped_on_failure") == 0);
  for (const Decision& d : h.run()) CHECK_FALSE(d.error);  // no decision waits for Redis
}

TEST_CASE(
    "limitador_cached: the increments of a counter's first flush in a window never reach "
    "Redis when that flush fails") {
  OutageStore store(0, ms(1500));
  StrategyHarness h(limit_per_minute(3), R"({"name": "limitador_cached"})", {0}, 1000, 50'000, ".",
                    &store);
  // 0 ms: unseen, its urgent flush fails with initial_value 0: revert_writes cannot return it.
  // 100 ms: still not from Redis, urgent again: fails, returned. The tick at 1101 ms fails too;
  // 2102 ms sends 1 (Redis 1, 2 admitted). 2500 ms: 3 (Redis 2), 2600 ms denied.
  for (int at : {0, 100, 2500, 2600}) h.request(ms(at));
  CHECK(h.pattern() == "1110");
  CHECK(store.get(counter_key("0")) == "\"2\"");
  CHECK(h.metrics().at("writes_dropped_on_failure") == 1);
  CHECK(h.metrics().at("writes_retried") == 2);
}

TEST_CASE(
    "limitador_cached: a flush whose reply comes after response_timeout is retried, though "
    "Redis ran it") {
  // A 400 ms round trip: the script runs on Redis at 200 ms, the reply would come at 400 ms. An
  // hour's window, so that the retries below all fall in it (once the window is over on the
  // instance's clock there is nothing left to send).
  const std::string limits = R"({"name": "per_user", "key": "user", "limit": 10, "window": "1h"})";
  StrategyHarness slow_reply(limits, R"({"name": "limitador_cached"})", {0}, ms(400), ms(5000));
  StrategyHarness patient(limits, R"({"name": "limitador_cached", "response_timeout": "1s"})", {0},
                          ms(400), ms(5000));
  for (StrategyHarness* h : {&slow_reply, &patient}) {
    h->request(0);
    h->request(ms(1000));
  }
  CHECK(slow_reply.pattern() == "11");
  CHECK(patient.pattern() == "11");
  CHECK(patient.get(counter_key("0", 3600)) == "\"2\"");
  // Every flush times out at 350 ms and returns its increment, which the next flush sends again:
  // the first one (at 0 ms, dropped) and then 60 (the bound on retries with no decision).
  CHECK(slow_reply.get(counter_key("0", 3600)) == "\"61\"");
  CHECK(slow_reply.metrics().at("flush_failures") == 61);
  CHECK(slow_reply.metrics().at("writes_retried") == 60);
}

TEST_CASE("limitador_cached: a counter evicted from the cache starts at 0 again") {
  for (const auto& [max_cached, expected] :
       {std::pair{1, std::string("11110")}, std::pair{10000, std::string("11100")}}) {
    StrategyHarness h(limit_per_minute(2), R"({"name": "limitador_cached", "max_cached": )" +
                                               std::to_string(max_cached) + "}");
    h.request(0, 0);         // user 0: urgent flush, Redis 1
    h.request(ms(10), 0);    // 2; flushed at 1001 ms (Redis 2), leaves the batcher
    h.request(ms(2000), 1);  // user 1: with max_cached 1 user 0's counter is evicted
    h.request(ms(2100), 0);  // evicted: unseen, 0, admitted (Redis 3); else 2: denied
    h.request(ms(2200), 0);
    CHECK(h.pattern() == expected);
    CHECK(h.metrics().at("evictions") == (max_cached == 1 ? 2 : 0));
  }
}

TEST_CASE("limitador_cached: a stopped instance loses its pending increments") {
  StrategyHarness h(limit_per_minute(10), R"({"name": "limitador_cached"})");
  for (int at : {0, 10, 20}) h.request(ms(at));
  h.stop(ms(500), 0);  // before its tick at 1001 ms
  CHECK(h.pattern() == "111");
  CHECK(h.get(counter_key("0")) == "\"1\"");
  CHECK(h.metrics().at("writes_lost_on_stop") == 2);
}

TEST_CASE("limitador_cached parameters: Limitador's defaults, and whole milliseconds") {
  const StrategyInfo* info = find_strategy("limitador_cached");
  REQUIRE(info != nullptr);
  std::string field, error;
  const auto defaults = resolve_params(*info, nlohmann::json::object(), field, error);
  REQUIRE(defaults);
  CHECK(defaults->at("flush_period") == "1s");
  CHECK(defaults->at("batch_size") == 100);
  CHECK(defaults->at("max_cached") == 10000);
  CHECK(defaults->at("response_timeout") == "350ms");
  CHECK_FALSE(resolve_params(*info, nlohmann::json{{"flush_period", "0ms"}}, field, error));
  CHECK(field == "flush_period");
  CHECK(error ==
        "expected a whole number of milliseconds, at least 1ms (Limitador's --flush-period is in "
        "ms), got 0 us");
  CHECK_FALSE(resolve_params(*info, nlohmann::json{{"response_timeout", "1500us"}}, field, error));
  CHECK(field == "response_timeout");
  CHECK(error ==
        "expected a whole number of milliseconds, at least 1ms (Limitador's --response-timeout is "
        "in ms), got 1500 us");
  CHECK_FALSE(resolve_params(*info, nlohmann::json{{"batch_size", 0}}, field, error));
  CHECK(field == "batch_size");
}

TEST_CASE("limitador_cached: a limit whose window is not whole seconds stops the run") {
  StrategyHarness h(R"({"name": "per_user", "key": "user", "limit": 2, "window": "1500ms"})",
                    R"({"name": "limitador_cached"})");
  CHECK(h.strategy().fatal_error() ==
        "limitador_cached: limit per_user: Limitador's windows are whole seconds, got 1500000 us");
}

TEST_CASE("limitador scenario: the flush period's overshoot, and an outage limited alone") {
  const Scenario scenario = load_scenario(RLSIM_SOURCE_DIR "/scenarios/limitador.json");
  std::vector<StrategyResult> results;
  for (const auto& strategy : resolve_strategies(scenario, "limitador.json"))
    if (strategy.label != "redis_fixed_window")
      results.push_back(run_strategy(scenario, strategy, scenario.seed));
  REQUIRE(results.size() == 2);
  const StrategyResult& flush_1s = results[0];
  const StrategyResult& flush_100ms = results[1];
  // Ten instances, 20 requests/s per user: the limit plus about N + 20/s x flush_period in the
  // windows before the outage (the first three minutes).
  for (std::size_t w = 0; w < 3; ++w) {
    INFO("window " << w);
    CHECK(flush_1s.totals.series[w].max_per_key > 100);
    CHECK(flush_1s.totals.series[w].max_per_key <= 100 + 10 + 20);
    CHECK(flush_100ms.totals.series[w].max_per_key > 100);
    CHECK(flush_100ms.totals.series[w].max_per_key <= 100 + 10 + 2);
    CHECK(flush_100ms.totals.series[w].max_per_key < flush_1s.totals.series[w].max_per_key);
  }
  // The outage: a window begins at about 3:01 and every instance admits its share alone until
  // Redis answers at 3:20 (about 5 users x 20/s x 19 s); no decision waits for Redis.
  const FaultWindowResult& outage = flush_1s.redis_side->faults->at(0);
  CHECK(outage.during.allowed > 1500);
  CHECK(outage.during.waited_full_timeout == 0);
  CHECK(flush_1s.totals.latency_us.max() == 0);
  // Afterwards the returned increments (over 100 per user) make a Redis window that starts at
  // 3:20: the users are denied until about 4:20, while the ideal admits 100 each from 4:00.
  CHECK(outage.after.false_denials == 500);
  const auto& metrics = flush_1s.strategy_metrics;
  CHECK(metrics.at("partitioned_periods") == 10);
  CHECK(metrics.at("writes_dropped_on_failure").get<std::int64_t>() >= 50);
  CHECK(metrics.at("writes_flushed").get<std::int64_t>() +
            metrics.at("writes_dropped_on_failure").get<std::int64_t>() ==
        flush_1s.totals.allowed);
}

}  // namespace rlsim_test_strategy_limitador_cached
