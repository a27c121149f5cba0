// NodeStats: commands by name, keys per command kind, hot keys with Space-Saving, the ops series.
#include <catch2/catch.hpp>

#include "redis/node_stats.h"

namespace rlsim_test_node_stats {

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
  CHECK(stats.hot_key_overcount("rl:global:1") == 0);  // counted from its first operation
}

TEST_CASE("node stats: a key that takes over a counter says how much it may be counted high") {
  NodeStats stats;
  // 16 keys fill the counters: k0 with 5 operations, k1..k15 with 3 each.
  for (int i = 0; i < 16; ++i)
    for (int n = 0; n < (i == 0 ? 5 : 3); ++n)
      stats.on_execute({{"INCR", "k" + std::to_string(i)}}, 0, 1, 0);
  CHECK(stats.hot_key_overcount("k1") == 0);
  // A new key takes over the first smallest counter (k1's 3) and is counted 4 after one operation:
  // at least 4 - 3 = 1, its true count.
  stats.on_execute({{"INCR", "new"}}, 0, 1, 0);
  CHECK(stats.hot_key_overcount("new") == 3);
  CHECK(stats.hot_key_overcount("k1") == 0);  // no longer tracked
  const auto hot = stats.hot_keys(2);
  CHECK(hot == std::vector<std::pair<std::string, std::uint64_t>>{{"k0", 5}, {"new", 4}});
  CHECK(stats.hot_key_overcount("k0") == 0);
}

TEST_CASE("node stats: busy time per bucket is split at bucket edges, longest queue per bucket") {
  NodeStats stats;
  stats.set_bucket_us(1'000);
  stats.on_execute({{"INCR", "a"}}, 100, 200, 2);      // [100, 300): bucket 0
  stats.on_execute({{"INCR", "a"}}, 900, 300, 7);      // [900, 1200): 100 in 0, 200 in 1
  stats.on_execute({{"INCR", "a"}}, 1'500, 2'000, 1);  // [1500, 3500): 500, 1000, 500
  CHECK(stats.busy_per_bucket() == std::vector<DurationUs>{300, 700, 1'000, 500});
  CHECK(stats.busy_us() == 2'500);  // the per-bucket times add up to the total
  // A call's queue counts in the bucket where its service starts.
  CHECK(stats.max_queue_per_bucket() == std::vector<std::int64_t>{7, 1});
  CHECK(stats.ops_per_bucket() == std::vector<std::uint64_t>{2, 1});
}

TEST_CASE("node stats: busy time after the run's end is the backlog draining, not utilization") {
  NodeStats stats;
  stats.set_run_end_us(1'000);
  stats.on_execute({{"INCR", "a"}}, 100, 300, 0);    // [100, 400): all in the run
  stats.on_execute({{"INCR", "a"}}, 800, 500, 3);    // [800, 1300): 200 in, 300 after
  stats.on_execute({{"INCR", "a"}}, 1'300, 250, 2);  // [1300, 1550): all after
  CHECK(stats.busy_us() == 1'050);
  CHECK(stats.busy_in_run_us() == 500);  // 300 + 200
  CHECK(stats.free_at_us() == 1'550);    // the backlog took 550 us past the end
}

TEST_CASE("node stats: without a run end every execution counts as in the run") {
  NodeStats stats;
  stats.on_execute({{"INCR", "a"}}, 5'000'000, 20, 0);
  CHECK(stats.busy_in_run_us() == 20);
  CHECK(stats.free_at_us() == 5'000'020);
}

}  // namespace rlsim_test_node_stats
