// multi_limit: decisions, round trips and latency on small traffic computed by hand.
#include <catch2/catch.hpp>

#include "strategy_harness.h"

namespace rlsim_test_strategy_multi_limit {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

// Per user 2/s, per IP 3/s, per endpoint 10/s.
const char* kThreeLimits =
    R"({"name": "per_user", "key": "user", "limit": 2, "window": "1s"},
       {"name": "per_ip", "key": "ip", "limit": 3, "window": "1s"},
       {"name": "per_endpoint", "key": "endpoint", "limit": 10, "window": "1s"})";

// Users 0 and 1 share IP 0: user 0 at 0, 10, 20 ms, user 1 at 30, 40 ms (round trip 1 ms).
void queue_two_users_one_ip(StrategyHarness& h) {
  for (int k = 0; k < 3; ++k) h.request(10'000 * k, /*user=*/0, /*instance=*/0);
  for (int k = 3; k < 5; ++k) h.request(10'000 * k, /*user=*/1, /*instance=*/0);
}

}  // namespace

TEST_CASE("multi_limit: every limit counts, the first over denies") {
  for (const bool pipelined : {true, false}) {
    INFO("pipelined " << pipelined);
    StrategyHarness h(*find_strategy("multi_limit"), kThreeLimits,
                      pipelined ? R"({"pipelined": true})" : R"({"pipelined": false})");
    queue_two_users_one_ip(h);
    const auto decisions = h.run();
    // User 0: counts 1, 2, 3 (third over its 2). The IP counter sees every request: 1..5, so user
    // 1's requests (IP counts 4 and 5) are denied by the IP limit although only two requests of
    // that IP were admitted: the denied third one of user 0 was counted too.
    CHECK(h.pattern() == "11000");
    CHECK(decisions[2].denied_by == 0);
    CHECK(decisions[3].denied_by == 1);
    CHECK(decisions[4].denied_by == 1);
    for (const auto& d : decisions) CHECK_FALSE(d.error);
    CHECK(h.get("rl:user:0:1750032000") == "\"3\"");
    CHECK(h.get("rl:user:1:1750032000") == "\"2\"");
    CHECK(h.get("rl:ep:/a:1750032000") == "\"5\"");
    CHECK(h.redis({"TTL", "rl:user:0:1750032000"}) == "(integer) 2");
    CHECK(h.stats().commands == 30);  // INCR + EXPIRE for 3 limits, 5 requests
    if (pipelined) {
      CHECK(h.stats().round_trips == 5);
      CHECK(h.decided_at() == std::vector<TimeUs>{1000, 11'000, 21'000, 31'000, 41'000});
    } else {
      CHECK(h.stats().round_trips == 15);  // one per limit, all three even after one is over
      CHECK(h.decided_at() == std::vector<TimeUs>{3000, 13'000, 23'000, 33'000, 43'000});
    }
  }
}

TEST_CASE("multi_limit: windows that are not whole seconds use PEXPIRE") {
  StrategyHarness h(*find_strategy("multi_limit"),
                    R"({"name": "burst", "key": "user", "limit": 1, "window": "500ms"})", "{}");
  h.request(0);
  h.request(100'000);
  h.request(600'000);  // the next 500 ms window
  CHECK(h.pattern() == "101");
  // Window 3500064000 (ms / 500) holds two INCRs; each PEXPIRE set 1000 ms, the last one at
  // 100.5 ms: 500 ms are left when the last command runs, at 600.5 ms.
  CHECK(h.get("rl:user:0:3500064000") == "\"2\"");
  CHECK(h.redis({"PTTL", "rl:user:0:3500064000"}) == "(integer) 500");
}

TEST_CASE("multi_limit: on_error decides when Redis times out") {
  // Round trip 5 ms, timeout 1 ms: every call times out.
  for (const char* on_error : {"allow", "deny"}) {
    INFO(on_error);
    StrategyHarness h(*find_strategy("multi_limit"), kThreeLimits,
                      fmt::format(R"({{"on_error": "{}"}})", on_error), {0}, 5000, 1000);
    h.request(0);
    const auto decisions = h.run();
    CHECK(decisions[0].error);
    CHECK(decisions[0].allowed == (std::string(on_error) == "allow"));
    if (!decisions[0].allowed) CHECK(decisions[0].denied_by == 0);
    CHECK(h.decided_at()[0] == 1000);
  }
}

TEST_CASE("multi_limit: parameters and defaults") {
  const StrategyInfo& info = *find_strategy("multi_limit");
  std::string field, error;
  const auto resolved = resolve_params(info, nlohmann::json::object(), field, error);
  REQUIRE(resolved);
  CHECK((*resolved)["pipelined"] == true);
  CHECK((*resolved)["on_error"] == "fail_open");
  CHECK_FALSE(resolve_params(info, nlohmann::json{{"pipelined", "yes"}}, field, error));
  CHECK(field == "pipelined");
  CHECK(info.algorithm == Algorithm::kFixedWindow);
  CHECK(info.explain.find("2/3") != std::string::npos);
}

}  // namespace rlsim_test_strategy_multi_limit
