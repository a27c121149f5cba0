// The headline numbers of the hybrid scenarios (multi-limit, global-limit, local-budget): what
// each trade-off must show. Needs multi_limit, sharded_global, local_budget and
// token_reservation in the strategy registry.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "test_util.h"

namespace rlsim_test_hybrid_scenarios {

using namespace rlsim;
using rlsim::testing::by_label;

namespace {

Scenario shipped(const std::string& name) {
  return load_scenario(std::string(RLSIM_SOURCE_DIR) + "/scenarios/" + name);
}

double per_request(std::uint64_t count, std::int64_t offered) {
  return static_cast<double>(count) / static_cast<double>(offered);
}

std::int64_t metric(const StrategyResult& r, const char* name) {
  return r.strategy_metrics.at(name).get<std::int64_t>();
}

}  // namespace

TEST_CASE("multi-limit: pipelining saves 2/3 of the network latency, not a command") {
  const Scenario s = shipped("multi-limit.json");
  const auto result = rlsim::testing::run_text(s);
  const auto& pipelined = by_label(result, "pipelined");
  const auto& sequential = by_label(result, "sequential");
  const auto& central = by_label(result, "redis_fixed_window");
  // The same commands and the same decisions; only the waiting differs.
  CHECK(pipelined.totals.allowed == sequential.totals.allowed);
  CHECK(pipelined.decision_digest != sequential.decision_digest);  // decided at other times
  CHECK(per_request(pipelined.redis_commands, pipelined.totals.offered) == Approx(6.0));
  CHECK(per_request(sequential.redis_commands, sequential.totals.offered) == Approx(6.0));
  CHECK(per_request(pipelined.redis_round_trips, pipelined.totals.offered) == Approx(1.0));
  CHECK(per_request(sequential.redis_round_trips, sequential.totals.offered) == Approx(3.0));
  // Fixed 1 ms round trip: about 1 ms against about 3 ms at the median.
  const double p50_pipelined = static_cast<double>(pipelined.totals.latency_us.quantile(0.5));
  const double p50_sequential = static_cast<double>(sequential.totals.latency_us.quantile(0.5));
  CHECK(p50_pipelined >= 1000);
  CHECK(p50_pipelined <= 1100);
  CHECK(p50_sequential >= 3000);
  CHECK(p50_sequential <= 3100);
  CHECK(1.0 - p50_pipelined / p50_sequential == Approx(2.0 / 3.0).margin(0.01));
  // Every limit holds.
  for (const auto* r : {&pipelined, &central}) {
    for (const auto& limit : r->totals.limits) CHECK(limit.max_in_window <= limit.limit);
  }
  // Denied requests still count against the endpoint: far more wrongly denied than with
  // redis_fixed_window, which stops at the first limit over.
  CHECK(pipelined.totals.limits[2].false_denials > 1000);
  CHECK(central.totals.limits[2].false_denials < 10);
  CHECK(pipelined.totals.limits[0].false_denials == 0);
}

TEST_CASE("global-limit: sharding spreads the writes, the pipelined total stays exact") {
  const Scenario s = shipped("global-limit.json");
  const auto result = rlsim::testing::run_text(s);
  const auto& single = by_label(result, "single_key");
  const auto& sharded = by_label(result, "sharded");
  const auto& after_incr = by_label(result, "sharded_after_incr");
  const auto& shards = sharded.strategy_metrics.at("global_limits").at(0);
  CHECK(sharded.strategy_metrics.at("shards") == 10);
  CHECK(shards.at("hottest_key_share").get<double>() < 0.11);
  CHECK(shards.at("keys_read_per_request") == 10);
  std::int64_t increments = 0;
  for (const auto& count : shards.at("increments_per_shard"))
    increments += count.get<std::int64_t>();
  CHECK(increments == sharded.totals.offered);  // every request increments one shard
  // INCR + EXPIRE + MGET in one round trip.
  CHECK(per_request(sharded.redis_commands, sharded.totals.offered) == Approx(3.0));
  CHECK(per_request(sharded.redis_round_trips, sharded.totals.offered) == Approx(1.0));
  CHECK(per_request(after_incr.redis_round_trips, after_incr.totals.offered) == Approx(2.0));
  // The pipelined total admits like the single key (within the requests decided at a window's
  // edge); reading after the INCR counts others' increments and denies more.
  CHECK(std::abs(sharded.totals.allowed - single.totals.allowed) <= single.totals.allowed / 1000);
  CHECK(sharded.totals.limits[0].overshoot <= 1.01);
  CHECK(after_incr.totals.limits[0].false_denials > 2 * sharded.totals.limits[0].false_denials);
  CHECK(after_incr.totals.allowed < sharded.totals.allowed);
}

TEST_CASE("local-budget: about 100x fewer Redis calls, paid in waste and carried tokens") {
  const Scenario s = shipped("local-budget.json");
  const auto result = rlsim::testing::run_text(s);
  const auto& central = by_label(result, "redis_fixed_window");
  const auto& budget = by_label(result, "local_budget");
  const auto& no_reset = by_label(result, "no_reset");
  const auto& batch_10 = by_label(result, "batch_10");
  const auto& reservation = by_label(result, "token_reservation");
  const auto rt = [](const StrategyResult& r) {
    return per_request(r.redis_round_trips, r.totals.offered);
  };
  CHECK(rt(central) >= 1.0);
  // 60 s at the limit: 60,000 tokens in 600 full batches (10 claims a second that get tokens),
  // plus empty claims in windows that fill up: under 0.02 round trips per request.
  CHECK(metric(budget, "tokens_claimed") == 60'000);
  CHECK(metric(budget, "claims") - metric(budget, "claims_empty") == 600);
  CHECK(rt(budget) < 0.02);
  CHECK(rt(central) / rt(budget) > 50);
  for (const auto* r : {&budget, &no_reset, &batch_10, &reservation}) {
    INFO(r->label);
    // Every admitted request spent one token; every token claimed was spent or wasted.
    CHECK(metric(*r, "tokens_used") == r->totals.allowed);
    CHECK(metric(*r, "tokens_claimed") == metric(*r, "tokens_used") + metric(*r, "tokens_wasted"));
  }
  // The price: tokens stranded on instances when their window ends, and requests denied
  // meanwhile on the instances that ran out.
  CHECK(metric(budget, "tokens_wasted") > 1000);
  CHECK(budget.totals.limits[0].false_denials > 1000);
  CHECK(budget.totals.limits[0].excess == 0);
  // Without the reset, unspent tokens cross into the next window: past the limit.
  CHECK(metric(no_reset, "tokens_carried_over") > 1000);
  CHECK(no_reset.totals.limits[0].overshoot > 1.03);
  CHECK(no_reset.totals.limits[0].excess > 100);
  // Smaller batches: ten times the claims, less waste.
  CHECK(rt(batch_10) > 5 * rt(budget));
  CHECK(metric(batch_10, "tokens_wasted") < metric(budget, "tokens_wasted") / 2);
  // token_reservation: a second round trip for every claim over the limit.
  CHECK(rt(reservation) > rt(budget));
  CHECK(metric(reservation, "give_backs") > 0);
}

}  // namespace rlsim_test_hybrid_scenarios
