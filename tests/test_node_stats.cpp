// NodeStats: commands by name, keys per command kind, hot keys with Space-Saving, the ops series.
#include <catch2/catch.hpp>

#include "redis/node_stats.h"

using namespace rlsim;

TEST_CASE("node stats: commandstats and the keys of each command kind") {
  NodeStats stats;
  stats.on_execute({{"INCR", "a"}, {"expire", "a", "10"}}, 0, 10, 0);
  stats.on_execute({{"EVALSHA", "sha", "2", "b", "c", "arg"}}, 500'000, 5, 3);
  stats.on_execute({{"MGET", "a", "b", "c"}, {"SCRIPT", "LOAD", "x"}}, 1'200'000, 10, 1);
  using Counts = std::vector<std::pair<std::string, std::uint64_t>>;
  CHECK(stats.commandstats() ==
        Counts{{"EVALSHA", 1}, {"EXPIRE", 1}, {"INCR", 1}, {"MGET", 1}, {"SCRIPT", 1}});
  // a: INCR, EXPIRE, MGET; b and c: EVALSHA's two keys (not "arg"), MGET; SCRIPT has none.
  CHECK(stats.hot_keys(10) == Counts{{"a", 3}, {"b", 2}, {"c", 2}});
  CHECK(stats.hot_keys(1) == Counts{{"a", 3}});
  CHECK(stats.busy_us() == 25);
  CHECK(stats.queue_length().max() == 3);
  CHECK(stats.ops_per_bucket() == std::vector<std::uint64_t>{3, 2});
}

TEST_CASE("node stats: a hot key survives a stream of one-off keys") {
  NodeStats stats;
  for (int i = 0; i < 10'000; ++i) {
    stats.on_execute({{"INCR", "rl:global:1"}}, i, 1, 0);
    stats.on_execute({{"INCR", "rl:user:" + std::to_string(i)}}, i, 1, 0);
  }
  const auto hot = stats.hot_keys(1);
  REQUIRE(hot.size() == 1);
  CHECK(hot[0].first == "rl:global:1");
  CHECK(hot[0].second == 10'000);  // never evicted: it is never the smallest counter
}
