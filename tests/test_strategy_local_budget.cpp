// local_budget: claims through the Lua script, local spending, waste, window reset, waiting for a
// claim in flight, instance stops; on small traffic computed by hand (round trip 1 ms).
#include <catch2/catch.hpp>

#include "strategy_harness.h"

namespace rlsim_test_strategy_local_budget {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

const char* kUser5 = R"({"name": "per_user", "key": "user", "limit": 5, "window": "1s"})";
const char* kKey = "rl:user:0:1750032000";  // user 0's counter for true time [0, 1 s)

std::int64_t metric(const StrategyHarness& h, const char* name) {
  return h.metrics()[name].get<std::int64_t>();
}

}  // namespace

TEST_CASE("local_budget: two instances, batch 3, limit 5") {
  StrategyHarness h(*find_strategy("local_budget"), kUser5, R"({"batch": 3})", {0, 0});
  // A = instance 0, B = instance 1, all user 0.
  h.request(0, /*user=*/0,
            /*instance=*/0);  // A claims: INCRBY 3 -> 3, granted 3, spends 1 (A holds 2)
  h.request(10'000, /*user=*/0, /*instance=*/0);  // A spends (1 left)
  h.request(20'000, /*user=*/0, /*instance=*/0);  // A spends (0 left)
  h.request(30'000, /*user=*/0,
            /*instance=*/1);  // B claims: 6 > 5, DECRBY 1, granted 2, spends 1 (B holds 1)
  h.request(40'000, /*user=*/0, /*instance=*/1);  // B spends (0 left)
  h.request(50'000, /*user=*/0,
            /*instance=*/0);  // A claims: 8 > 5, DECRBY 3, granted 0: denied, A marks the key full
  h.request(60'000, /*user=*/0,
            /*instance=*/0);  // A: full in this window, denied without asking Redis
  h.request(70'000, /*user=*/0, /*instance=*/1);  // B claims: granted 0, denied
  const auto decisions = h.run();
  CHECK(h.pattern() == "11111000");
  for (std::size_t k = 5; k < 8; ++k) CHECK(decisions[k].denied_by == 0);
  for (const auto& d : decisions) CHECK_FALSE(d.error);
  CHECK(h.get(kKey) == "\"5\"");
  // The first claim sends EVALSHA, gets NOSCRIPT and sends EVAL: 2 ms. Spending is free. The
  // request answered from the "full" mark needs no round trip.
  CHECK(h.decided_at() ==
        std::vector<TimeUs>{2000, 10'000, 20'000, 31'000, 40'000, 51'000, 60'000, 71'000});
  CHECK(h.stats().round_trips == 5);  // 4 claims + the EVAL after NOSCRIPT
  const auto metrics = h.metrics();
  CHECK(metrics["claims"] == 4);
  CHECK(metrics["claims_empty"] == 2);
  CHECK(metrics["tokens_claimed"] == 5);
  CHECK(metrics["tokens_used"] == 5);
  CHECK(metrics["tokens_wasted"] == 0);
  CHECK(metrics["script_reloads"] == 1);
  // The lesson's script sets the TTL only on a claim that was not capped: PEXPIRE 2000 ms at
  // 1.5 ms (the EVAL). The last command ran at 70.5 ms: 2001.5 - 70.5 = 1931.
  CHECK(h.redis({"PTTL", kKey}) == "(integer) 1931");
}

TEST_CASE("local_budget: reset_on_window drops old tokens, without it they are carried over") {
  // One instance, batch 3, limit 5: a request at 0 leaves 2 tokens of window 0; six requests in
  // window 1 at 1000, 1010, ..., 1050 ms.
  const auto queue = [](StrategyHarness& h) {
    h.request(0);
    for (int k = 0; k < 6; ++k) h.request(1'000'000 + 10'000 * k);
  };
  SECTION("reset_on_window true") {
    StrategyHarness h(*find_strategy("local_budget"), kUser5, R"({"batch": 3})");
    queue(h);
    // Window 1: the 2 old tokens are dropped (wasted); claims of 3 and 2 (capped) admit 5; the
    // sixth request's claim gets nothing.
    CHECK(h.pattern() == "1111110");
    CHECK(metric(h, "claims") == 4);
    CHECK(metric(h, "tokens_claimed") == 8);
    CHECK(metric(h, "tokens_used") == 6);
    CHECK(metric(h, "tokens_wasted") == 2);
    CHECK(metric(h, "tokens_carried_over") == 0);
    CHECK(h.get("rl:user:0:1750032001") == "\"5\"");
  }
  SECTION("reset_on_window false") {
    StrategyHarness h(*find_strategy("local_budget"), kUser5,
                      R"({"batch": 3, "reset_on_window": false})");
    queue(h);
    // Window 1: the 2 carried tokens admit 1000 and 1010 ms, then claims of 3 (1020-1040) and 2
    // (1050, one left over): 6 admitted in a window of limit 5.
    CHECK(h.pattern() == "1111111");
    CHECK(metric(h, "claims") == 3);
    CHECK(metric(h, "tokens_claimed") == 8);
    CHECK(metric(h, "tokens_used") == 7);
    CHECK(metric(h, "tokens_wasted") == 1);  // still held when the run ended
    CHECK(metric(h, "tokens_carried_over") == 2);
  }
}

TEST_CASE("local_budget: requests wait for the claim in flight instead of claiming again") {
  StrategyHarness h(*find_strategy("local_budget"), kUser5, R"({"batch": 3})");
  h.request(0);
  h.request(300);
  h.request(600);
  h.request(900);  // the claim (2 ms with the script reload) grants 3: the fourth claims again
  const auto decisions = h.run();
  CHECK(h.pattern() == "1111");
  // Requests 1 and 2 are answered when the first claim returns; request 3 finds no token left
  // and claims again (EVALSHA, now cached: 1 ms).
  CHECK(h.decided_at() == std::vector<TimeUs>{2000, 2000, 2000, 3000});
  CHECK(metric(h, "claims") == 2);
  CHECK(metric(h, "tokens_claimed") == 5);  // 3, then the 2 left under the limit
  CHECK(metric(h, "tokens_used") == 4);
  CHECK(metric(h, "tokens_wasted") == 1);
}

TEST_CASE("local_budget: a stopped instance's tokens are wasted") {
  StrategyHarness h(*find_strategy("local_budget"), kUser5, R"({"batch": 3})", {0, 0});
  h.request(0, /*user=*/0, /*instance=*/0);  // instance 0 claims 3, spends 1
  h.stop(100'000, 0);
  h.request(200'000, /*user=*/0, /*instance=*/1);  // instance 1 claims what is left: 2
  h.run();
  CHECK(h.pattern() == "11");
  CHECK(metric(h, "tokens_claimed") == 5);
  CHECK(metric(h, "tokens_used") == 2);
  CHECK(metric(h, "tokens_wasted") ==
        3);  // 2 lost with instance 0, 1 held by instance 1 at the end
}

TEST_CASE("local_budget: a request denied by a later limit gives its tokens back") {
  // Global 10/s checked first, then per user 1/s; batch 3.
  StrategyHarness h(*find_strategy("local_budget"),
                    R"({"name": "global", "key": "global", "limit": 10, "window": "1s"},
                     {"name": "per_user", "key": "user", "limit": 1, "window": "1s"})",
                    R"({"batch": 3})");
  h.request(0);       // global: claim 3, take 1; user: claim 3 -> 3 > 1, granted 1, take it
  h.request(10'000);  // global: take 1; user: claim -> granted 0: denied, the global token returns
  h.request(20'000);  // global: take 1; user: full in this window: denied, token returns again
  const auto decisions = h.run();
  CHECK(h.pattern() == "100");
  CHECK(decisions[1].denied_by == 1);
  CHECK(decisions[2].denied_by == 1);
  CHECK(metric(h, "tokens_claimed") == 4);
  CHECK(metric(h, "tokens_used") == 2);    // one global and one per-user token, by request 0
  CHECK(metric(h, "tokens_wasted") == 2);  // the global tokens still held at the end
  CHECK(h.get("rl:global:all:1750032000") == "\"3\"");
}

TEST_CASE("local_budget: on_error decides when Redis times out") {
  // Made without the resilience decorator: fail_open must admit as its old name allow does.
  for (const char* on_error : {"allow", "deny", "fail_open", "fail_closed"}) {
    INFO(on_error);
    StrategyHarness h(*find_strategy("local_budget"), kUser5,
                      fmt::format(R"({{"on_error": "{}"}})", on_error), {0}, 5000, 1000);
    h.request(0);
    h.request(10'000);  // nothing was granted: it claims again (and times out again)
    const auto decisions = h.run();
    for (const auto& d : decisions) {
      CHECK(d.error);
      CHECK(d.allowed ==
            (std::string(on_error) == "allow" || std::string(on_error) == "fail_open"));
    }
    CHECK(metric(h, "claims") == 2);
    CHECK(metric(h, "tokens_claimed") == 0);
  }
}

TEST_CASE("local_budget: parameters and defaults") {
  const StrategyInfo& info = *find_strategy("local_budget");
  std::string field, error;
  const auto resolved = resolve_params(info, nlohmann::json::object(), field, error);
  REQUIRE(resolved);
  CHECK((*resolved)["batch"] == 100);
  CHECK((*resolved)["reset_on_window"] == true);
  CHECK((*resolved)["on_error"] == "fail_open");  // "allow" is its older alias (docs/resilience.md)
  CHECK_FALSE(resolve_params(info, nlohmann::json{{"batch", 0}}, field, error));
  CHECK(field == "batch");
  CHECK(info.algorithm == Algorithm::kFixedWindow);
}

}  // namespace rlsim_test_strategy_local_budget
