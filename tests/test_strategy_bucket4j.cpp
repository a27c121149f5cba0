// bucket4j (Bucket4j's compare-and-swap proxy manager on Redis, strategy/bucket4j.cpp) on small
// traffic computed by hand: the GET then CAS with its retry on conflict, the node clock's refill
// (ahead refills early, behind refills nothing), greedy and intervally refill, batching, the
// delaying optimization's local service and its debt, the key's TTL, failures, the parameter
// checks, and the headline numbers of scenarios/bucket4j.json. The harness's round trip is 1 ms:
// a command sent at t runs at t + 0.5 ms and its reply arrives at t + 1 ms.
#include <catch2/catch.hpp>
#include <sstream>

#include "strategy_harness.h"
#include "test_util.h"

namespace rlsim_test_strategy_bucket4j {

using namespace rlsim;
using rlsim::testing::FailingStore;
using rlsim::testing::StrategyHarness;

namespace {

// A bucket per user: by default capacity 3, refilled with 3 tokens per second.
const char* kLimit3PerSecond = R"({"name": "per_user", "key": "user", "limit": 3, "window": "1s"})";
const std::string kKey = "rl:user:0";

constexpr TimeUs ms(std::int64_t value) { return value * kUsPerMs; }

// The tokens field of the state text "last_refill_ns tokens rounding_error consumed".
std::int64_t stored_tokens(StrategyHarness& h) {
  const std::string reply = h.get(kKey);  // "\"<text>\""
  std::istringstream fields(reply.substr(1, reply.size() - 2));
  std::int64_t last_refill_ns = 0, tokens = 0;
  fields >> last_refill_ns >> tokens;
  return tokens;
}

}  // namespace

TEST_CASE("bucket4j: a new bucket costs two GETs and a SET NX; a denial writes nothing") {
  StrategyHarness h(kLimit3PerSecond, R"({"name": "bucket4j"})");
  // 40 ms refill 3 * 0.04 = 0.12 of a token: the fourth and fifth find none.
  for (int at : {0, 10, 20, 30, 40}) h.request(ms(at));
  CHECK(h.pattern() == "11100");
  // GET (not found), GET + SET NX; then GET + CAS twice; then two GETs alone.
  CHECK(h.stats().commands == 3 + 4 + 2);
  CHECK(h.metrics().at("cas_attempts") == 3);
  CHECK(h.metrics().at("cas_conflicts") == 0);
  CHECK(h.decided_at()[0] == ms(3));
  CHECK(stored_tokens(h) == 0);
  CHECK(h.redis({"PTTL", kKey}) == "(integer) -1");  // expiration none: the key stays
}

TEST_CASE("bucket4j: a write between the GET and the CAS is a conflict, and the loser retries") {
  StrategyHarness h(R"({"name": "per_user", "key": "user", "limit": 10, "window": "1s"})",
                    R"({"name": "bucket4j"})", {0, 0});
  h.request(0, 0, 0);  // creates the bucket: 9 left
  // Both GET at 100.5 ms and swap at 101.5 ms: instance 0's CAS runs first and wins; instance
  // 1's finds another value, GETs again at 102.5 ms and swaps at 103.5 ms.
  h.request(ms(100), 0, 0);
  h.request(ms(100), 0, 1);
  CHECK(h.pattern() == "111");
  CHECK(h.decided_at()[1] == ms(102));
  CHECK(h.decided_at()[2] == ms(104));
  CHECK(h.metrics().at("cas_conflicts") == 1);
  CHECK(h.metrics().at("cas_attempts") == 4);
  CHECK(h.metrics().at("most_cas_attempts") == 2);
  // Created at 2 ms with 9; at 101 ms 0.99 of a token has come back (kept as the rounding
  // error) and the winner leaves 8; the retry reads at 103 ms: 1.01 tokens, one whole: 9, then 8.
  CHECK(stored_tokens(h) == 8);
  // The second operation started with two on the key (band 2-3), and it had the conflict.
  const auto bands = h.metrics().at("conflicts_by_concurrency");
  CHECK(bands[0].at("operations") == 2);
  CHECK(bands[1].at("operations") == 1);
  CHECK(bands[1].at("conflicts_per_operation") == 1.0);
}

TEST_CASE("bucket4j max_retries: the attempts run out and the request fails") {
  StrategyHarness h(R"({"name": "per_user", "key": "user", "limit": 10, "window": "1s"})",
                    R"({"name": "bucket4j", "max_retries": 1})", {0, 0});
  h.request(0, 0, 0);
  h.request(ms(100), 0, 0);
  h.request(ms(100), 0, 1);
  CHECK(h.pattern() == "110");
  CHECK(h.run()[2].error);
  CHECK(h.metrics().at("cas_gave_up") == 1);
}

TEST_CASE("bucket4j: three requests on one node at once, without and with batching") {
  // Capacity 3: the first request leaves 2; then three arrive together at 100 ms.
  StrategyHarness plain(kLimit3PerSecond, R"({"name": "bucket4j"})");
  StrategyHarness batching(kLimit3PerSecond, R"({"name": "bucket4j", "optimization": "batching"})");
  for (StrategyHarness* h : {&plain, &batching}) {
    h->request(0);
    for (int i = 0; i < 3; ++i) h->request(ms(100));
  }
  // Without: all three swap from 2; one wins, two retry from 1; one wins, the last finds 0.
  CHECK(plain.pattern() == "1110");
  CHECK(plain.metrics().at("cas_conflicts") == 3);
  CHECK(plain.stats().commands == 3 + 2 * 3 + 2 * 2 + 1);
  // With: the first goes alone (GET + CAS), the other two wait and go as one batch (GET + CAS):
  // one token left for the two of them, the first in arrival order gets it.
  CHECK(batching.pattern() == "1110");
  CHECK(batching.metrics().at("cas_conflicts") == 0);
  CHECK(batching.metrics().at("requests_merged") == 1);
  CHECK(batching.stats().commands == 3 + 2 + 2);
  CHECK(batching.decided_at()[3] == ms(104));
}

TEST_CASE(
    "bucket4j clocks: a node ahead refills early, one behind the stored refill adds nothing") {
  // Capacity 2, 2 tokens per second; instance 1's clock runs 1 s ahead.
  StrategyHarness h(R"({"name": "per_user", "key": "user", "limit": 2, "window": "1s"})",
                    R"({"name": "bucket4j"})", {0, kUsPerS});
  h.request(0, 0, 0);         // created full at 2 ms: 1 left
  h.request(ms(10), 0, 0);    // 0 left
  h.request(ms(20), 0, 1);    // its clock reads 1.02 s: refilled to 2 at once, 1 left
  h.request(ms(30), 0, 0);    // 0.03 s is before the stored 1.02 s: no refill; takes the last
  h.request(ms(40), 0, 0);    // none
  h.request(ms(600), 0, 0);   // true time gives 1.2 tokens, but 0.6 s < 1.02 s: still none
  h.request(ms(1300), 0, 0);  // 1.3 s: 0.28 s past the stored refill, 0.56 of a token: none
  h.request(ms(1600), 0, 0);  // 1.6 s: 1.16 tokens since 1.02 s
  CHECK(h.pattern() == "11110001");
}

TEST_CASE("bucket4j refill: greedy adds tokens continuously, intervally per whole period") {
  const char* limit = R"({"name": "per_user", "key": "user", "limit": 2, "window": "1s"})";
  StrategyHarness greedy(limit, R"({"name": "bucket4j"})");
  StrategyHarness intervally(limit, R"({"name": "bucket4j", "refill": "intervally"})");
  for (StrategyHarness* h : {&greedy, &intervally})
    for (int at : {0, 10, 600, 1100}) h->request(ms(at));
  CHECK(greedy.pattern() == "1111");      // 0.6 s: 1.2 tokens; 1.1 s: 1 more (0.2 + 0.98)
  CHECK(intervally.pattern() == "1101");  // nothing before a whole second, then 2 at once
}

TEST_CASE("bucket4j delaying: each node spends from its snapshot, and the sync leaves a debt") {
  // Capacity 4 and almost no refill (4 per hour); 4 tokens per node between syncs, or 100 ms.
  StrategyHarness h(R"({"name": "per_user", "key": "user", "limit": 4, "window": "1h"})",
                    R"({"name": "bucket4j", "optimization": "delaying",
                        "max_unsynchronized_tokens": 4,
                        "max_timeout_between_synchronization": "100ms"})",
                    {0, 0});
  h.request(0, 0, 0);       // remote: creates the bucket, 3 left; the snapshot says 3
  h.request(ms(10), 0, 1);  // remote: 2 left; its snapshot says 2
  for (int at : {20, 21, 22, 23}) h.request(ms(at), 0, 0);  // local: 3 admitted, then none
  for (int at : {30, 31, 32}) h.request(ms(at), 0, 1);      // local: 2, then none
  h.request(ms(200), 0, 0);             // 100 ms passed: sync 3 postponed: 2 - 3 = -1, denied
  h.request(ms(210), 0, 1);             // sync 2 postponed: -1 - 2 = -3, denied
  CHECK(h.pattern() == "11111011000");  // 7 admitted from a bucket of 4
  CHECK(stored_tokens(h) == -3);
  CHECK(h.metrics().at("served_locally") == 7);
  CHECK(h.metrics().at("syncs") == 4);
  CHECK(h.metrics().at("postponed_lost") == 0);
  // Two GETs and a SET NX, then GET + CAS three times; the local decisions sent nothing.
  CHECK(h.stats().commands == 3 + 3 * 2);
}

TEST_CASE("bucket4j expiration: the key's TTL from the time to refill, or fixed") {
  const char* limit = R"({"name": "per_user", "key": "user", "limit": 10, "window": "1s"})";
  StrategyHarness refill(limit, R"({"name": "bucket4j",
      "expiration": "based_on_time_for_refilling_bucket_up_to_max",
      "keep_after_refill_duration": "50ms"})");
  StrategyHarness fixed(
      limit, R"({"name": "bucket4j", "expiration": "fixed_time_to_live", "time_to_live": "5s"})");
  refill.request(0);
  fixed.request(0);
  refill.run();
  fixed.run();
  // One token short of 10 at 10 per second: full in 100 ms, kept 50 ms more.
  CHECK(refill.redis({"PTTL", kKey}) == "(integer) 150");
  CHECK(fixed.redis({"PTTL", kKey}) == "(integer) 5000");
}

TEST_CASE("bucket4j: a failed Redis call throws, and the request fails") {
  FailingStore failing;
  StrategyHarness h(kLimit3PerSecond, R"({"name": "bucket4j"})", {0}, 1000, 50'000, ".", &failing);
  for (int at : {0, 1, 2}) h.request(ms(at));
  CHECK(h.pattern() == "000");
  for (const Decision& d : h.run()) CHECK(d.error);
}

TEST_CASE("bucket4j parameters: defaults from the limit, and Bucket4j's checks") {
  const StrategyInfo* info = find_strategy("bucket4j");
  REQUIRE(info != nullptr);
  std::string field, error;
  const auto resolved = resolve_params(*info, nlohmann::json::object(), field, error);
  REQUIRE(resolved);
  CHECK(resolved->at("optimization") == "none");
  CHECK(resolved->at("refill") == "greedy");
  CHECK(resolved->at("expiration") == "none");
  const Limit limit{"l", LimitKey::kUser, 100, 60 * kUsPerS};
  const BucketShape shape = info->bucket_shape(ParamReader(*resolved), limit);
  CHECK(shape.capacity == 100);
  CHECK(shape.refill_per_s == Approx(100.0 / 60));

  const auto rejects = [&](const nlohmann::json& given, const std::string& want_field,
                           const std::string& want_error) {
    CHECK_FALSE(resolve_params(*info, given, field, error));
    CHECK(field == want_field);
    CHECK(error == want_error);
  };
  rejects({{"optimization", "delaying"}, {"max_timeout_between_synchronization", "1s"}},
          "max_unsynchronized_tokens", "required with optimization delaying");
  rejects({{"max_unsynchronized_tokens", 5}}, "max_unsynchronized_tokens",
          "only optimization delaying uses it");
  rejects({{"optimization", "delaying"},
           {"max_unsynchronized_tokens", 5},
           {"max_timeout_between_synchronization", "0ms"}},
          "max_timeout_between_synchronization",
          "expected a positive duration (Bucket4j refuses zero)");
  rejects({{"expiration", "fixed_time_to_live"}}, "time_to_live",
          "required with expiration fixed_time_to_live");
  rejects({{"refill_tokens", 2000}, {"refill_period", "1us"}}, "refill_tokens",
          "more tokens than nanoseconds in refill_period (Bucket4j's tooHighRefillRate)");
  rejects({{"max_retries", 1001}}, "max_retries",
          "expected at most 1000 (rlsim's budget of compare-and-swap attempts per bucket "
          "operation), got 1001");
  CHECK(resolve_params(*info, {{"max_retries", 1000}}, field, error));
}

TEST_CASE("bucket4j scenario: conflicts climb on the hot key, skew, and delaying's trade") {
  const Scenario scenario = load_scenario(RLSIM_SOURCE_DIR "/scenarios/bucket4j.json");
  const RunResult result = rlsim::testing::run_text(scenario);
  const StrategyResult& cas = rlsim::testing::by_label(result, "cas");
  const auto& bands = cas.strategy_metrics.at("conflicts_by_concurrency");
  const double alone = bands[0].at("conflicts_per_operation").get<double>();
  const double crowded = bands[2].at("conflicts_per_operation").get<double>();
  CHECK(alone < 0.3);
  CHECK(crowded > 4 * alone);
  CHECK(cas.redis_round_trips > 3 * static_cast<std::uint64_t>(cas.totals.offered));
  const StrategyResult& fast = rlsim::testing::by_label(result, "delaying_200_1s");
  const StrategyResult& careful = rlsim::testing::by_label(result, "delaying_20_100ms");
  CHECK(fast.redis_round_trips * 5 < careful.redis_round_trips);
  CHECK(careful.redis_round_trips * 10 < cas.redis_round_trips);
  CHECK(fast.totals.limits[0].excess > 2 * cas.totals.limits[0].excess);
  CHECK(rlsim::testing::by_label(result, "cas_max_retries_3").totals.errors > 20000);
}

}  // namespace rlsim_test_strategy_bucket4j
