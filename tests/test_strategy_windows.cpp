// Decisions of the window strategies that run a script (redis_fixed_window_lua,
// redis_sliding_log, redis_sliding_counter) on small traffic computed by hand. Requests are
// decided at their arrival on the instance's clock; each round trip takes 1 ms.
#include <catch2/catch.hpp>

#include "strategy/script.h"
#include "strategy_harness.h"
#include "test_util.h"

namespace rlsim_test_strategy_windows {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

const char* kLimit3PerSecond = R"({"name": "per_user", "key": "user", "limit": 3, "window": "1s"})";
const char* kLimit4PerSecond = R"({"name": "per_user", "key": "user", "limit": 4, "window": "1s"})";

constexpr TimeUs ms(std::int64_t value) { return value * kUsPerMs; }
// Store time (Unix microseconds) at true time `at_us`.
constexpr TimeUs unix_at(TimeUs at_us) { return kEpochUnixUs + at_us; }

std::string metric(const Strategy& strategy, const char* name) {
  nlohmann::ordered_json out;
  strategy.write_metrics(out);
  return out.at(name).dump();
}

}  // namespace

TEST_CASE("redis_fixed_window_lua: the count per window, across instances") {
  // Two instances take turns; arrivals every 100 ms for 1.5 s. Window [0, 1 s) admits the
  // requests at 0, 100, 200 ms; window [1 s, 2 s) those at 1000, 1100, 1200 ms.
  StrategyHarness h(kLimit3PerSecond, R"("redis_fixed_window_lua")", {0, 0});
  for (int i = 0; i < 15; ++i) h.request(ms(100 * i), 0, i % 2);
  CHECK(h.pattern() == "111000000011100");
  // EVALSHA, NOSCRIPT, EVAL for the first request; EVALSHA alone for the other 14.
  CHECK(h.stats().round_trips == 16);
  CHECK(h.stats().commands == 16);
  CHECK(metric(h.strategy(), "script_reloads") == "1");
  CHECK(metric(h.strategy(), "script_errors") == "0");
  // Window 1 (key ...:1750032001) was created at 1000.5 ms with a TTL of 2 windows, counted from
  // that millisecond as Redis does: 1500 ms left at 1500 ms.
  CHECK(to_display(h.store().run({"GET", "rl:user:0:1750032001"}, unix_at(ms(1500)))) == "\"5\"");
  CHECK(to_display(h.store().run({"PTTL", "rl:user:0:1750032001"}, unix_at(ms(1500)))) ==
        "(integer) 1500");
}

TEST_CASE("a timed-out INCR leaves redis_fixed_window's key without a TTL, the script cannot") {
  // The round trip (5 ms) exceeds the client timeout (2 ms): the client gives up, the server
  // still runs the command at 2.5 ms.
  StrategyHarness split(kLimit3PerSecond, R"("redis_fixed_window")", {0}, ms(5), ms(2));
  split.request(0);
  const auto split_decisions = split.run();
  CHECK(split_decisions[0].error);
  CHECK(split_decisions[0].allowed);  // on_error allow
  // INCR created the counter, but the client never saw "1", so it never sent EXPIRE.
  CHECK(to_display(split.store().run({"GET", "rl:user:0:1750032000"}, unix_at(ms(10)))) == "\"1\"");
  CHECK(to_display(split.store().run({"TTL", "rl:user:0:1750032000"}, unix_at(ms(10)))) ==
        "(integer) -1");
  CHECK(split.stats().round_trips == 1);

  StrategyHarness lua(kLimit3PerSecond, R"("redis_fixed_window_lua")", {0}, ms(5), ms(2));
  // A warm script cache (otherwise the timed-out EVALSHA hides its NOSCRIPT and nothing runs).
  lua.store().run({"SCRIPT", "LOAD", kFixedWindowLuaScript}, unix_at(0));
  lua.request(0);
  CHECK(lua.run()[0].error);
  CHECK(to_display(lua.store().run({"GET", "rl:user:0:1750032000"}, unix_at(ms(10)))) == "\"1\"");
  // PEXPIRE ran in the same script as INCR, at 2.5 ms (millisecond 2): 2000 - 8 ms left at 10 ms.
  CHECK(to_display(lua.store().run({"PTTL", "rl:user:0:1750032000"}, unix_at(ms(10)))) ==
        "(integer) 1992");
}

TEST_CASE("redis_sliding_log: at most the limit in any window's length") {
  // Limit 3 per 1 s. Log after each admission, in ms:
  //   0, 100, 200 admitted; 300 and 999 see 3 -> denied;
  //   1000 trims scores <= 0 -> 2 left -> admitted {100, 200, 1000};
  //   1100 trims <= 100 -> admitted {200, 1000, 1100}; 1150 trims <= 150 -> 3 -> denied;
  //   1201 trims <= 201 -> admitted.
  StrategyHarness h(kLimit3PerSecond, R"("redis_sliding_log")");
  for (int at : {0, 100, 200, 300, 999, 1000, 1100, 1150, 1201}) h.request(ms(at));
  CHECK(h.pattern() == "111001101");
  CHECK(to_display(h.store().run({"ZCARD", "rl:user:0"}, unix_at(ms(1300)))) == "(integer) 3");
  CHECK(to_display(
            h.store().run({"ZRANGE", "rl:user:0", "0", "-1", "WITHSCORES"}, unix_at(ms(1300)))) ==
        "[\"1750032001000000-0-5\", \"1750032001000000\", \"1750032001100000-0-6\", "
        "\"1750032001100000\", \"1750032001201000-0-8\", \"1750032001201000\"]");
  // The last admission (1201 ms, run at 1201.5 ms) set a TTL of 2 windows from millisecond
  // 1201: 1901 ms left.
  CHECK(to_display(h.store().run({"PTTL", "rl:user:0"}, unix_at(ms(1300)))) == "(integer) 1901");
}

TEST_CASE("redis_sliding_log: two requests in the same microsecond are two members") {
  StrategyHarness h(kLimit3PerSecond, R"("redis_sliding_log")", {0, 0});
  h.request(ms(10), 0, 0);
  h.request(ms(10), 0, 1);
  CHECK(h.pattern() == "11");
  CHECK(to_display(h.store().run({"ZCARD", "rl:user:0"}, unix_at(ms(20)))) == "(integer) 2");
}

TEST_CASE("redis_sliding_counter: the previous window weighted by its overlap") {
  // Limit 4 per 1 s. Window 0: 100..400 ms admitted (current 0..3 < 4), 500 denied.
  // Window 1 (previous = 4): 1250: 4 * 0.75 + 0 = 3 < 4 yes; 1300: 2.8 + 1 = 3.8 yes;
  //   1500: 2 + 2 = 4 no; 1750: 1 + 2 = 3 yes; 1800: 0.8 + 3 = 3.8 yes; 1900: 0.4 + 4 no.
  // Window 2 (previous = 4): 2000: 4 + 0 no; 2500: 2 + 0 yes.
  StrategyHarness h(kLimit4PerSecond, R"("redis_sliding_counter")");
  for (int at : {100, 200, 300, 400, 500, 1250, 1300, 1500, 1750, 1800, 1900, 2000, 2500})
    h.request(ms(at));
  CHECK(h.pattern() == "1111011011001");
  // Denied requests are not counted; the keys carry the user in a hash tag.
  CHECK(to_display(h.store().run({"GET", "rl:{user:0}:1750032001"}, unix_at(ms(2600)))) == "\"4\"");
  CHECK(to_display(h.store().run({"GET", "rl:{user:0}:1750032002"}, unix_at(ms(2600)))) == "\"1\"");
  CHECK(to_display(h.store().run({"PTTL", "rl:{user:0}:1750032002"}, unix_at(ms(2600)))) ==
        "(integer) 1900");  // set at 2500.5 ms: from millisecond 2500
  // The TTL is set when a window's counter is created: window 1's at 1250.5 ms, not refreshed.
  CHECK(to_display(h.store().run({"PTTL", "rl:{user:0}:1750032001"}, unix_at(ms(2600)))) ==
        "(integer) 650");
}

TEST_CASE("script strategies check limits in order, the first that denies is denied_by") {
  // Per user 10/s and per endpoint 2/s: the third request to /a is denied by limit 1, the
  // request to /b passes.
  const std::string limits =
      std::string(R"({"name": "per_user", "key": "user", "limit": 10, "window": "1s"},)") +
      R"({"name": "per_ep", "key": "endpoint", "limit": 2, "window": "1s"})";
  for (const char* name :
       {"\"redis_fixed_window_lua\"", "\"redis_sliding_log\"", "\"redis_sliding_counter\"",
        "\"redis_token_bucket\"", "\"redis_gcra\""}) {
    INFO(name);
    StrategyHarness h(limits, name);
    h.request(ms(10), 1, 0, 0, 0);
    h.request(ms(20), 2, 0, 0, 0);
    h.request(ms(30), 3, 0, 0, 0);
    h.request(ms(40), 4, 0, 0, 1);
    const auto decisions = h.run();
    CHECK(decisions[0].allowed);
    CHECK(decisions[1].allowed);
    CHECK_FALSE(decisions[2].allowed);
    CHECK(decisions[2].denied_by == 1);
    CHECK(decisions[3].allowed);
  }
}

TEST_CASE("on_error: a failed script call fails open or closed") {
  for (const char* on_error : {"allow", "deny"}) {
    INFO(on_error);
    StrategyHarness h(kLimit3PerSecond,
                      fmt::format(R"({{"name": "redis_sliding_log", "on_error": "{}"}})", on_error),
                      {0}, ms(5), ms(1));
    h.request(0);
    h.request(ms(10));
    const auto decisions = h.run();
    for (const Decision& d : decisions) {
      CHECK(d.error);
      CHECK(d.allowed == (std::string(on_error) == "allow"));
      if (!d.allowed) CHECK(d.denied_by == 0);
    }
    CHECK(metric(h.strategy(), "script_errors") == "2");
  }
}

TEST_CASE("over a run with timeouts, only redis_fixed_window leaves keys without a TTL") {
  // 100 users at 2/s, a limit of 5 per 1 s for 60 s; round trips p50 1 ms, p99 20 ms and a 5 ms
  // timeout: about 10% of calls time out (lognormal, sigma = ln 20 / 2.326). A key whose
  // creating INCR timed out never gets its EXPIRE: ~5200 keys are created (a user is seen in a
  // second with probability 1 - e^-2), so ~550 stay. Keys with a TTL (2 s) live at most 2 windows:
  // at most 200 remain at the end.
  const Scenario s = parse_scenario(
      R"({"name": "t", "seed": 3, "duration": "60s",
          "limits": [{"name": "per_user", "key": "user", "limit": 5, "window": "1s"}],
          "instances": {"count": 4},
          "traffic": [{"name": "u", "users": 100, "rate": "2/s"}],
          "redis": {"rtt": {"p50": "1ms", "p99": "20ms"}, "timeout": "5ms"},
          "strategies": ["redis_fixed_window", "redis_fixed_window_lua"]})",
      "t.json");
  const auto result = rlsim::testing::run_text(s);
  const auto& split = rlsim::testing::by_label(result, "redis_fixed_window");
  const auto& lua = rlsim::testing::by_label(result, "redis_fixed_window_lua");
  CHECK(split.redis_timeouts > 1000);
  CHECK(lua.redis_timeouts > 1000);
  CHECK(lua.redis_keys_at_end <= 200);
  const auto without_ttl = static_cast<std::int64_t>(split.redis_keys_at_end) -
                           static_cast<std::int64_t>(lua.redis_keys_at_end);
  CHECK(without_ttl >= 400);
  CHECK(without_ttl <= 700);
}

}  // namespace rlsim_test_strategy_windows
