// sharded_global: decisions, observed counts, keys and shard metrics on small traffic computed by
// hand.
#include <catch2/catch.hpp>

#include "strategy_harness.h"

namespace rlsim_test_strategy_sharded_global {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

const char* kGlobal5 = R"({"name": "global", "key": "global", "limit": 5, "window": "1s"})";
const char* kGlobal1 = R"({"name": "global", "key": "global", "limit": 1, "window": "1s"})";

// The sum of GET over the shard keys of window 1750032000 (true time 0 to 1 s).
std::int64_t shard_sum(StrategyHarness& h, int shards, bool hash_tags) {
  std::int64_t total = 0;
  for (int k = 0; k < shards; ++k) {
    const std::string key = hash_tags ? fmt::format("rl:{{global-s{}}}:1750032000", k)
                                      : fmt::format("rl:global:1750032000:s{}", k);
    const std::string value = h.get(key);
    if (value != "(nil)") total += std::stoll(value.substr(1, value.size() - 2));
  }
  return total;
}

}  // namespace

TEST_CASE("sharded_global: the total over all shards holds the limit") {
  for (const bool hash_tags : {false, true}) {
    INFO("hash_tags " << hash_tags);
    StrategyHarness h(*find_strategy("sharded_global"), kGlobal5,
                      fmt::format(R"({{"shards": 3, "hash_tags": {}}})", hash_tags), {0, 0});
    // 7 requests 10 ms apart, alternating instances: totals read 1..7, the first 5 pass.
    for (int k = 0; k < 7; ++k) h.request(10'000 * k, /*user=*/k, /*instance=*/k % 2);
    const auto decisions = h.run();
    CHECK(h.pattern() == "1111100");
    for (int k = 0; k < 7; ++k) {
      CHECK(decisions[k].observed_count == k);  // the total before this request's own INCR
      CHECK_FALSE(decisions[k].error);
    }
    CHECK(decisions[5].denied_by == 0);
    CHECK(shard_sum(h, 3, hash_tags) == 7);
    CHECK(h.stats().round_trips == 7);  // INCR, EXPIRE and the reads in one pipeline
    // The reads: one MGET, or with hash tags one GET per shard (a cluster refuses an MGET
    // across slots).
    CHECK(h.stats().commands == (hash_tags ? 7 * 5 : 7 * 3));
    const auto metrics = h.metrics();
    CHECK(metrics["shards"] == 3);
    const auto& limit = metrics["global_limits"][0];
    CHECK(limit["limit"] == "global");
    std::int64_t increments = 0;
    for (const auto& count : limit["increments_per_shard"]) increments += count.get<std::int64_t>();
    CHECK(increments == 7);
    CHECK(limit["max_shard_increments"] >= 3);  // 7 over 3 shards: the hottest has at least 3
    CHECK(limit["keys_read_per_request"] == 3);
  }
}

TEST_CASE("sharded_global: reading after the INCR counts what others added meanwhile") {
  // Round trip 1 ms (0.5 ms each way), limit 1. Request 0 arrives at 0, its INCR runs at 0.5 ms;
  // request 1 arrives at 0.5 ms, its INCR runs at 1 ms.
  for (const char* read : {"pipelined", "after_incr"}) {
    INFO(read);
    StrategyHarness h(*find_strategy("sharded_global"), kGlobal1,
                      fmt::format(R"({{"shards": 2, "read": "{}"}})", read), {0, 0});
    h.request(0, /*user=*/0, /*instance=*/0);
    h.request(500, /*user=*/1, /*instance=*/1);
    const auto decisions = h.run();
    if (std::string(read) == "pipelined") {
      // Each MGET runs right behind its INCR: totals 1 and 2.
      CHECK(h.pattern() == "10");
      CHECK(decisions[0].observed_count == 0);
      CHECK(decisions[1].observed_count == 1);
      CHECK(h.stats().round_trips == 2);
      CHECK(h.decided_at() == std::vector<TimeUs>{1000, 1500});
    } else {
      // Request 0's MGET runs at 1.5 ms, after request 1's INCR: it reads 2 and is denied, though
      // nothing had been admitted. Request 1 reads 2 as well.
      CHECK(h.pattern() == "00");
      CHECK(decisions[0].observed_count == 1);
      CHECK(decisions[1].observed_count == 1);
      CHECK(h.stats().round_trips == 4);
      CHECK(h.decided_at() == std::vector<TimeUs>{2000, 2500});
    }
  }
}

TEST_CASE("sharded_global: limits not keyed on global keep a plain counter") {
  StrategyHarness h(*find_strategy("sharded_global"),
                    R"({"name": "per_user", "key": "user", "limit": 2, "window": "1s"},
         {"name": "global", "key": "global", "limit": 100, "window": "1s"})",
                    R"({"shards": 4})");
  for (int k = 0; k < 3; ++k) h.request(10'000 * k);
  const auto decisions = h.run();
  CHECK(h.pattern() == "110");
  CHECK(decisions[2].denied_by == 0);
  // The first limit is per user: no sharded total is read for it.
  CHECK(decisions[0].observed_count == -1);
  CHECK(h.get("rl:user:0:1750032000") == "\"3\"");
  CHECK(shard_sum(h, 4, false) == 3);  // the denied request was counted in the global total too
  CHECK(h.metrics()["global_limits"].size() == 1);
}

TEST_CASE("sharded_global: on_error decides when Redis times out") {
  for (const char* on_error : {"allow", "deny"}) {
    INFO(on_error);
    StrategyHarness h(*find_strategy("sharded_global"), kGlobal5,
                      fmt::format(R"({{"on_error": "{}"}})", on_error), {0}, 5000, 1000);
    h.request(0);
    const auto decisions = h.run();
    CHECK(decisions[0].error);
    CHECK(decisions[0].allowed == (std::string(on_error) == "allow"));
    CHECK(decisions[0].observed_count == -1);
  }
}

TEST_CASE("sharded_global: parameters, defaults and the bound on shards") {
  const StrategyInfo& info = *find_strategy("sharded_global");
  std::string field, error;
  const auto resolved = resolve_params(info, nlohmann::json::object(), field, error);
  REQUIRE(resolved);
  CHECK((*resolved)["shards"] == 10);
  CHECK((*resolved)["read"] == "pipelined");
  CHECK((*resolved)["hash_tags"] == false);
  CHECK(resolve_params(info, nlohmann::json{{"shards", 1000}}, field, error));
  CHECK_FALSE(resolve_params(info, nlohmann::json{{"shards", 1001}}, field, error));
  CHECK(field == "shards");
  CHECK(error == "expected a positive integer of at most 1000, got 1001");
  CHECK_FALSE(resolve_params(info, nlohmann::json{{"read", "before"}}, field, error));
  CHECK(field == "read");
}

}  // namespace rlsim_test_strategy_sharded_global
