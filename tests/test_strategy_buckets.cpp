// Decisions of redis_token_bucket and redis_gcra on small traffic computed by hand: with the same
// shape (burst 2, one token per 100 ms) they admit exactly the same requests.
#include <catch2/catch.hpp>

#include "strategy_harness.h"

namespace rlsim_test_strategy_buckets {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

const char* kLimit5PerSecond = R"({"name": "per_user", "key": "user", "limit": 5, "window": "1s"})";

constexpr TimeUs ms(std::int64_t value) { return value * kUsPerMs; }
constexpr TimeUs unix_at(TimeUs at_us) { return kEpochUnixUs + at_us; }

// Capacity 2, 10 tokens per second:
//   0, 0, 0 ms: 2 -> 1 -> 0 -> denied;  100: +1 -> admitted -> 0;  100: denied;
//   350: +2.5, capped at 2 -> admitted -> 1;  360: +0.1 -> 1.1 -> admitted -> 0.1;
//   370: 0.2 -> denied.
// GCRA with T = 100 ms, tau = 100 ms gives the same: TAT 100, 200, (200 > 100) no, 300, no,
// max(300, 350) + 100 = 450, 550 (450 <= 460), 550 > 470 no.
const std::vector<int> kArrivalsMs = {0, 0, 0, 100, 100, 350, 360, 370};
const char* kExpected = "11010110";

}  // namespace

TEST_CASE("redis_token_bucket: burst of capacity, then the refill rate") {
  StrategyHarness h(kLimit5PerSecond,
                    R"({"name": "redis_token_bucket", "capacity": 2, "refill_rate": "10/s"})");
  for (int at : kArrivalsMs) h.request(ms(at));
  CHECK(h.pattern() == kExpected);
  const Reply tokens = h.store().run({"HGET", "rl:user:0:bucket", "tokens"}, unix_at(ms(400)));
  CHECK(std::stod(tokens.text) == Approx(0.2));
  CHECK(to_display(h.store().run({"HGET", "rl:user:0:bucket", "ts"}, unix_at(ms(400)))) ==
        "\"1750032000370000\"");
  // The TTL is the time an empty bucket takes to fill, capacity / rate, + 1 ms: 201 ms from the
  // last call's millisecond (run at 370.5 ms: Redis counts from 370 ms), so 171 ms left at 400 ms.
  CHECK(to_display(h.store().run({"PTTL", "rl:user:0:bucket"}, unix_at(ms(400)))) ==
        "(integer) 171");
}

TEST_CASE("redis_gcra: the same shape with one TAT per key") {
  StrategyHarness h(kLimit5PerSecond, R"({"name": "redis_gcra", "burst": 2, "rate": "10/s"})");
  for (int at : kArrivalsMs) h.request(ms(at));
  CHECK(h.pattern() == kExpected);
  // The last admission (360 ms, run at 360.5 ms) left TAT = 550 ms with PX 190 from its
  // millisecond, 360 ms: 150 ms left at 400 ms.
  CHECK(to_display(h.store().run({"GET", "rl:user:0:tat"}, unix_at(ms(400)))) ==
        "\"1750032000550000\"");
  CHECK(to_display(h.store().run({"PTTL", "rl:user:0:tat"}, unix_at(ms(400)))) == "(integer) 150");
}

TEST_CASE("bucket defaults: capacity = the limit, refilled at limit per window") {
  // 5 per second: 6 at once -> 5 admitted; at 200 ms one token back -> 1 admitted, 1 denied.
  for (const char* name : {"\"redis_token_bucket\"", "\"redis_gcra\""}) {
    INFO(name);
    StrategyHarness h(kLimit5PerSecond, name);
    for (int i = 0; i < 6; ++i) h.request(0);
    h.request(ms(200));
    h.request(ms(200));
    CHECK(h.pattern() == "11111010");
  }
}

TEST_CASE("bucket shapes for the oracle follow the parameters") {
  const Limit limit{"l", LimitKey::kUser, 100, kUsPerMin};
  const StrategyInfo* bucket = find_strategy("redis_token_bucket");
  const StrategyInfo* gcra = find_strategy("redis_gcra");
  std::string field, error;
  const auto defaults = resolve_params(*bucket, nlohmann::json::object(), field, error);
  REQUIRE(defaults);
  CHECK(bucket->bucket_shape(ParamReader(*defaults), limit).capacity == 100);
  CHECK(bucket->bucket_shape(ParamReader(*defaults), limit).refill_per_s == Approx(100.0 / 60));
  const auto given =
      resolve_params(*gcra, nlohmann::json{{"burst", 10}, {"rate", "2/s"}}, field, error);
  REQUIRE(given);
  CHECK(gcra->bucket_shape(ParamReader(*given), limit).capacity == 10);
  CHECK(gcra->bucket_shape(ParamReader(*given), limit).refill_per_s == 2);
  CHECK_FALSE(resolve_params(*bucket, nlohmann::json{{"refill_rate", "fast"}}, field, error));
  CHECK(field == "refill_rate");
  CHECK(error == "expected a rate such as \"100/m\" or \"2.5/s\", got \"fast\"");
  CHECK_FALSE(resolve_params(*gcra, nlohmann::json{{"burst", 0}}, field, error));
  CHECK(field == "burst");
  CHECK(error == "expected a positive integer (at most 1000000000), got 0");
}

TEST_CASE("a token bucket does not refill from a clock that runs behind") {
  // Capacity 2, 10/s. Instance 1's clock is 50 ms behind: its call at true 30 ms reads -20 ms,
  // before the stored ts (0): no refill, and ts stays at 0 (moving it back to -20 ms would hand
  // out 0.2 tokens more later, and the request at 180 ms would pass).
  StrategyHarness h(kLimit5PerSecond,
                    R"({"name": "redis_token_bucket", "capacity": 2, "refill_rate": "10/s"})",
                    {0, -ms(50)});
  h.request(0, 0, 0);        // 2 -> 1
  h.request(0, 0, 0);        // 1 -> 0
  h.request(ms(30), 0, 1);   // local -20 ms: 0 -> denied
  h.request(ms(100), 0, 0);  // + 1.0 -> admitted -> 0
  h.request(ms(180), 0, 0);  // + 0.8 -> denied
  CHECK(h.pattern() == "11010");
}

}  // namespace rlsim_test_strategy_buckets
