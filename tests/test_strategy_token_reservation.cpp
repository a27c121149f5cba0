// token_reservation: the claim as INCRBY, then DECRBY of the excess in a second round trip, and the
// race between instances that claim at the same time; small traffic computed by hand.
#include <catch2/catch.hpp>

#include "strategy_harness.h"

namespace rlsim_test_strategy_token_reservation {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

const char* kUser5 = R"({"name": "per_user", "key": "user", "limit": 5, "window": "1s"})";
const char* kKey = "rl:user:0:1750032000";

std::int64_t metric(const StrategyHarness& h, const char* name) {
  return h.metrics()[name].get<std::int64_t>();
}

// A (instance 0) claims at 0; B and C (instances 1, 2) claim 0.2 ms apart at 10 ms; D (instance 3)
// claims at 20 ms; then A spends its two other tokens and B its second.
void queue_claims_together(StrategyHarness& h) {
  h.request(0, /*user=*/0, /*instance=*/0);
  h.request(10'000, /*user=*/0, /*instance=*/1);
  h.request(10'200, /*user=*/0, /*instance=*/2);
  h.request(20'000, /*user=*/0, /*instance=*/3);
  h.request(21'000, /*user=*/0, /*instance=*/0);
  h.request(22'000, /*user=*/0, /*instance=*/0);
  h.request(23'000, /*user=*/0, /*instance=*/1);
}

}  // namespace

TEST_CASE("token_reservation: two instances, batch 3, limit 5, claims apart") {
  StrategyHarness h(*find_strategy("token_reservation"), kUser5, R"({"batch": 3})", {0, 0});
  h.request(0, /*user=*/0,
            /*instance=*/0);  // A: INCRBY 3 -> 3, granted 3 (one round trip), spends 1
  h.request(10'000, /*user=*/0, /*instance=*/0);  // A spends
  h.request(20'000, /*user=*/0, /*instance=*/0);  // A spends
  h.request(30'000, /*user=*/0,
            /*instance=*/1);  // B: INCRBY -> 6 > 5, DECRBY 1 (second round trip), granted 2
  h.request(40'000, /*user=*/0, /*instance=*/1);  // B spends
  h.request(50'000, /*user=*/0,
            /*instance=*/0);  // A: INCRBY -> 8, DECRBY 3, granted 0: denied, key marked full on A
  h.request(60'000, /*user=*/0, /*instance=*/0);  // A: full, denied locally
  h.request(70'000, /*user=*/0, /*instance=*/1);  // B: granted 0, denied
  const auto decisions = h.run();
  CHECK(h.pattern() == "11111000");
  CHECK(decisions[7].denied_by == 0);
  CHECK(h.decided_at() ==
        std::vector<TimeUs>{1000, 10'000, 20'000, 32'000, 40'000, 52'000, 60'000, 72'000});
  CHECK(h.get(kKey) == "\"5\"");
  CHECK(h.stats().round_trips == 7);  // 1 + 2 + 2 + 2
  CHECK(h.stats().commands == 11);    // INCRBY + EXPIRE per claim, 3 DECRBYs
  CHECK(metric(h, "claims") == 4);
  CHECK(metric(h, "claims_empty") == 2);
  CHECK(metric(h, "give_backs") == 3);
  CHECK(metric(h, "tokens_claimed") == 5);
  CHECK(metric(h, "tokens_used") == 5);
  CHECK(metric(h, "tokens_wasted") == 0);
}

TEST_CASE("token_reservation: claims in flight together see each other's inflated totals") {
  // Limit 5, batch 3, counter at 3 after A's first claim. B and C (instances 1 and 2) claim at
  // 10.0 and 10.2 ms; their INCRBYs run at 10.5 and 10.7 ms: totals 6 and 9. B gives back 1 (at
  // 11.5 ms) and keeps 2; C gives back 4 (at 11.7 ms) and keeps nothing. The counter ends at 4
  // although 3 + 2 = 5 tokens are out: C's give-back undid one of B's tokens. D (instance 3)
  // claims at 20 ms and gets that token: 6 tokens in a window of limit 5.
  StrategyHarness h(*find_strategy("token_reservation"), kUser5, R"({"batch": 3})", {0, 0, 0, 0});
  queue_claims_together(h);
  const auto decisions = h.run();
  CHECK(h.pattern() == "1101111");
  CHECK(decisions[2].denied_by == 0);
  CHECK(h.get(kKey) == "\"5\"");
  CHECK(metric(h, "tokens_claimed") == 6);
  CHECK(metric(h, "tokens_used") == 6);
  CHECK(metric(h, "give_backs") == 3);
}

TEST_CASE("local_budget's script has no such race") {
  // The same traffic with the Lua claim: C's script runs after B's and finds the counter at 5.
  StrategyHarness h(*find_strategy("local_budget"), kUser5, R"({"batch": 3})", {0, 0, 0, 0});
  queue_claims_together(h);
  h.run();
  CHECK(h.pattern() == "1100111");
  CHECK(h.get(kKey) == "\"5\"");
  CHECK(metric(h, "tokens_claimed") == 5);
}

TEST_CASE("token_reservation: a lost INCRBY reply keeps the tokens counted in Redis") {
  // Round trip 5 ms, timeout 1 ms: the INCRBY runs at 2.5 ms, after the client gave up.
  StrategyHarness h(*find_strategy("token_reservation"), kUser5,
                    R"({"batch": 3, "on_error": "deny"})", {0}, 5000, 1000);
  h.request(0);
  const auto decisions = h.run();
  CHECK_FALSE(decisions[0].allowed);
  CHECK(decisions[0].error);
  CHECK(h.get(kKey) == "\"3\"");
  CHECK(metric(h, "tokens_claimed") == 0);
}

TEST_CASE("token_reservation: parameters as local_budget") {
  const StrategyInfo& info = *find_strategy("token_reservation");
  std::vector<std::string> names, lb_names;
  for (const auto& p : info.params) names.push_back(p.name);
  for (const auto& p : find_strategy("local_budget")->params) lb_names.push_back(p.name);
  CHECK(names == lb_names);
  CHECK(names == std::vector<std::string>{"batch", "reset_on_window", "on_error", "clock",
                                          "clock_refresh", "divisor", "breaker"});
}

}  // namespace rlsim_test_strategy_token_reservation
