// kong (Kong's rate-limiting plugin, strategy/kong.cpp) on small traffic computed by hand: the
// local policy's read-then-count-later, the redis policy counting before deciding (rejected
// requests too), and sync_rate's cache plus local delta.
#include <catch2/catch.hpp>

#include "strategy_harness.h"

namespace rlsim_test_strategy_kong {

using namespace rlsim;
using rlsim::testing::FailingStore;
using rlsim::testing::StrategyHarness;

namespace {

const char* kLimit3PerSecond = R"({"name": "per_user", "key": "user", "limit": 3, "window": "1s"})";
const char* kLimit4PerSecond = R"({"name": "per_user", "key": "user", "limit": 4, "window": "1s"})";

constexpr TimeUs ms(std::int64_t value) { return value * kUsPerMs; }
// The key of user 0's second starting at the epoch of the harness's clock.
const std::string kSecondKey =
    "ratelimit:user:0:" + std::to_string(kEpochUnixUs / kUsPerMs) + ":second";

}  // namespace

TEST_CASE("kong local: a counter per node, read before the +1 of a zero-delay timer") {
  StrategyHarness h(kLimit3PerSecond, R"({"name": "kong"})", {0, 0});
  // Each instance admits the limit on its own: 2 x 3.
  for (std::uint32_t instance : {0u, 1u})
    for (int at : {0, 1, 2, 3}) h.request(ms(at), 0, instance);
  CHECK(h.pattern() == "11101110");
}

TEST_CASE("kong local: requests decided at the same moment all see the same count") {
  StrategyHarness h(kLimit3PerSecond, R"({"name": "kong"})");
  for (int i = 0; i < 5; ++i) h.request(ms(500));  // the count is 0 for all five
  h.request(ms(501));                              // the five +1s have run: 5 >= 3
  CHECK(h.pattern() == "111110");
}

TEST_CASE("kong redis: INCR before the decision, so rejected requests count too") {
  StrategyHarness h(kLimit3PerSecond, R"({"name": "kong", "policy": "redis"})");
  for (int at : {0, 2, 4, 6, 8}) h.request(ms(at));
  CHECK(h.pattern() == "11100");
  CHECK(h.get(kSecondKey) == "\"5\"");
  CHECK(h.redis({"TTL", kSecondKey}) == "(integer) 1");
}

TEST_CASE("kong redis with sync_rate: a cached count plus the node's own delta") {
  StrategyHarness h(kLimit4PerSecond,
                    R"({"name": "kong", "policy": "redis", "sync_rate": "100ms"})", {0, 0});
  h.request(0, 0, 0);      // reads Redis: 0 before it (Redis 1); cache 0, delta -1 + 1 = 0
  h.request(ms(1), 0, 1);  // reads Redis: 1 before it (Redis 2); cache 1, delta 0
  for (int at : {3, 4, 5, 6, 7}) h.request(ms(at), 0, 0);  // 0 + delta 0, 1, 2, 3: then 4 >= 4
  // At about 101 ms instance 0 syncs INCRBY 4 (Redis 6); instance 1 syncs 0. Both caches are
  // cleared, so instance 1 reads Redis again at 200 ms: 6 before it, denied (and Redis 7).
  h.request(ms(200), 0, 1);
  CHECK(h.pattern() == "11111100");
  CHECK(h.get(kSecondKey) == "\"7\"");  // 6 after the syncs, and the read at 200 ms
  CHECK(h.metrics().at("syncs") == 2);
  CHECK(h.metrics().at("deltas_lost") == 0);
}

TEST_CASE("kong fault_tolerant: a failed Redis call lets the request through, or fails it") {
  FailingStore failing;
  StrategyHarness tolerant(kLimit3PerSecond, R"({"name": "kong", "policy": "redis"})", {0}, 1000,
                           50'000, ".", &failing);
  StrategyHarness strict(kLimit3PerSecond,
                         R"({"name": "kong", "policy": "redis", "fault_tolerant": false})", {0},
                         1000, 50'000, ".", &failing);
  for (int at : {0, 1, 2, 3, 4}) {
    tolerant.request(ms(at));
    strict.request(ms(at));
  }
  CHECK(tolerant.pattern() == "11111");
  CHECK(strict.pattern() == "00000");
  for (const Decision& d : tolerant.run()) CHECK(d.error);
}

TEST_CASE("kong parameters: sync_rate only with redis, and at least Kong's 0.02 s") {
  const StrategyInfo* kong = find_strategy("kong");
  REQUIRE(kong != nullptr);
  std::string field, error;
  CHECK_FALSE(resolve_params(*kong, nlohmann::json{{"sync_rate", "1s"}}, field, error));
  CHECK(field == "sync_rate");
  CHECK(error == "only the redis policy syncs (Kong: sync_rate must be -1 unless policy is redis)");
  CHECK_FALSE(resolve_params(*kong, nlohmann::json{{"policy", "redis"}, {"sync_rate", "10ms"}},
                             field, error));
  CHECK(error == "expected at least 20ms (Kong's 0.02 s), got 10000 us");
  CHECK(resolve_params(*kong, nlohmann::json{{"policy", "redis"}, {"sync_rate", "20ms"}}, field,
                       error));
}

TEST_CASE("kong: a window that is not whole seconds stops the run before its first decision") {
  StrategyHarness h(R"({"name": "per_user", "key": "user", "limit": 3, "window": "500ms"})",
                    R"({"name": "kong", "policy": "redis"})");
  CHECK_THAT(h.strategy().fatal_error(), Catch::Contains("whole seconds"));
}

TEST_CASE("kong parameters: Kong's own spellings of sync_rate and limit_by") {
  const StrategyInfo* kong = find_strategy("kong");
  REQUIRE(kong != nullptr);
  std::string field, error;
  // sync_rate as Kong writes it, a number of seconds, becomes rlsim's duration; -1 is unset.
  const auto seconds =
      resolve_params(*kong, nlohmann::json{{"policy", "redis"}, {"sync_rate", 0.5}}, field, error);
  REQUIRE(seconds);
  CHECK(seconds->at("sync_rate") == "500ms");
  const auto unset = resolve_params(*kong, nlohmann::json{{"sync_rate", -1}}, field, error);
  REQUIRE(unset);
  CHECK(unset->at("sync_rate").is_null());
  CHECK_FALSE(resolve_params(*kong, nlohmann::json{{"sync_rate", "0.5"}}, field, error));
  CHECK(field == "sync_rate");
  CHECK_THAT(error, Catch::StartsWith("expected a duration such as \"250us\""));
  CHECK_THAT(error, Catch::Contains("or a number of seconds such as 0.5 (-1: unset), got \"0.5\""));
  // limit_by: Kong's words; header names no key rlsim's requests have.
  CHECK_FALSE(resolve_params(*kong, nlohmann::json{{"limit_by", "kongsumer"}}, field, error));
  CHECK(error ==
        "expected one of \"consumer\", \"credential\", \"ip\", \"service\", \"path\", "
        "\"header\", got \"kongsumer\"");
  CHECK_FALSE(resolve_params(*kong, nlohmann::json{{"limit_by", "header"}}, field, error));
  CHECK(field == "limit_by");
  CHECK_THAT(error, Catch::StartsWith("rlsim's requests carry no headers"));
}

TEST_CASE("kong limit_by: the counter is keyed by Kong's identifier, not the limit's key") {
  StrategyHarness h(kLimit3PerSecond, R"({"name": "kong", "policy": "redis", "limit_by": "ip"})");
  h.request(0);
  CHECK(h.pattern() == "1");
  // User 0's client IP is 10.0.0.1 (IP id 0), and the key says ip.
  CHECK(h.get("ratelimit:ip:10.0.0.1:" + std::to_string(kEpochUnixUs / kUsPerMs) + ":second") ==
        "\"1\"");
}

}  // namespace rlsim_test_strategy_kong
