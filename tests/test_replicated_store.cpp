// The primary and its replica behind the redis_failover fault (redis/replicated_store.h): what
// the replica has after a lag, what a failover loses and counts, the script cache after it, and
// that the same calls give the same result.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "redis/mock_store.h"
#include "redis/replicated_store.h"

namespace rlsim_test_replicated_store {

using namespace rlsim;

namespace {

constexpr TimeUs kT0 = 1'700'000'000LL * kUsPerS;  // a server time, Unix microseconds

Reply run_one(DataStore& store, const Command& command, TimeUs at_us) {
  std::vector<Reply> replies;
  store.execute(std::span<const Command>(&command, 1), at_us, replies);
  return replies.front();
}

// `count` INCRs of `key`, one every `step_us` from `from_us`.
void incr_every(DataStore& store, const std::string& key, int count, TimeUs from_us,
                DurationUs step_us) {
  for (int i = 0; i < count; ++i) run_one(store, {"INCR", key}, from_us + i * step_us);
}

}  // namespace

TEST_CASE("a failover loses the writes of the last replication lag") {
  ReplicatedStore store(500 * kUsPerMs);
  // 100 INCRs 100 ms apart: the last at kT0 + 9.9 s.
  incr_every(store, "c", 100, kT0, 100 * kUsPerMs);
  CHECK(run_one(store, {"GET", "c"}, kT0 + 10 * kUsPerS).text == "100");
  // The primary goes away at 10 s: the replica has what ran up to 9.5 s (96 INCRs, at 0 .. 9.5 s).
  const auto lost = store.fail_over(kT0 + 10 * kUsPerS);
  REQUIRE(lost.has_value());
  CHECK(lost->writes == 4);  // 9.6, 9.7, 9.8, 9.9 s (the GET at 10 s wrote nothing)
  CHECK(lost->increments == 4);
  CHECK(lost->commands == 4);
  CHECK(store.failed_over());
  CHECK(run_one(store, {"GET", "c"}, kT0 + 11 * kUsPerS).text == "96");
  // The promoted replica serves from now on, without a backlog.
  CHECK(run_one(store, {"INCR", "c"}, kT0 + 12 * kUsPerS).integer == 97);
  CHECK(store.backlog_size() == 0);
}

TEST_CASE("the lost calls are those that ran after the failure time minus the lag") {
  ReplicatedStore store(200 * kUsPerMs);
  run_one(store, {"INCRBY", "a", "5"}, kT0);
  run_one(store, {"INCRBY", "a", "7"}, kT0 + 800 * kUsPerMs);  // exactly at 1 s - 200 ms: kept
  run_one(store, {"DECRBY", "a", "2"}, kT0 + 900 * kUsPerMs);  // lost
  run_one(store, {"HINCRBY", "h", "f", "3"}, kT0 + 950 * kUsPerMs);           // lost
  run_one(store, {"ZADD", "z", "1", "m1", "2", "m2"}, kT0 + 990 * kUsPerMs);  // lost: 2 members
  run_one(store, {"GET", "a"}, kT0 + 995 * kUsPerMs);                         // a read: not a write
  const auto lost = store.fail_over(kT0 + kUsPerS);
  REQUIRE(lost.has_value());
  CHECK(lost->writes == 3);
  CHECK(lost->increments == -2 + 3 + 2);
  CHECK(run_one(store, {"GET", "a"}, kT0 + kUsPerS).text == "12");
  CHECK(run_one(store, {"EXISTS", "h", "z"}, kT0 + kUsPerS).integer == 0);
}

TEST_CASE("a replication lag of zero loses nothing") {
  ReplicatedStore store(0);
  incr_every(store, "c", 10, kT0, kUsPerMs);
  const auto lost = store.fail_over(kT0 + 9 * kUsPerMs);
  REQUIRE(lost.has_value());
  CHECK(lost->writes == 0);
  CHECK(run_one(store, {"GET", "c"}, kT0 + 10 * kUsPerMs).text == "10");
}

TEST_CASE("a script's writes count as one write and its increments as increments") {
  ReplicatedStore store(kUsPerS);
  const std::string script = "redis.call('INCR', KEYS[1]); return redis.call('INCRBY', KEYS[1], 4)";
  const Reply sha = run_one(store, {"SCRIPT", "LOAD", script}, kT0);
  REQUIRE(sha.type == Reply::Type::kBulk);
  CHECK(run_one(store, {"EVALSHA", sha.text, "1", "k"}, kT0 + 1 * kUsPerMs).integer == 5);
  CHECK(run_one(store, {"EVALSHA", sha.text, "1", "k"}, kT0 + 2 * kUsPerS).integer == 10);
  const auto lost = store.fail_over(kT0 + 2500 * kUsPerMs);
  REQUIRE(lost.has_value());
  CHECK(lost->writes == 1);  // the second call (at 2 s > 2.5 s - 1 s)
  CHECK(lost->increments == 5);
  CHECK(lost->commands == 2);
  // The replica ran the first call (its EVALSHA found the script, loaded before it) ...
  CHECK(run_one(store, {"GET", "k"}, kT0 + 3 * kUsPerS).text == "5");
  // ... and a promoted replica has an empty script cache.
  CHECK(run_one(store, {"EVALSHA", sha.text, "1", "k"}, kT0 + 3 * kUsPerS)
            .text.starts_with("NOSCRIPT"));
}

TEST_CASE("keys expire on the replica as on the primary") {
  ReplicatedStore store(100 * kUsPerMs);
  run_one(store, {"SET", "x", "1", "PX", "50"}, kT0);
  run_one(store, {"SET", "y", "1", "PX", "5000"}, kT0);
  store.fail_over(kT0 + kUsPerS);
  CHECK(run_one(store, {"EXISTS", "x"}, kT0 + kUsPerS).integer == 0);
  CHECK(run_one(store, {"EXISTS", "y"}, kT0 + kUsPerS).integer == 1);
  CHECK(store.key_count() == 1);
}

TEST_CASE("a restart empties the primary and the replica") {
  ReplicatedStore store(kUsPerS);
  incr_every(store, "c", 5, kT0, kUsPerMs);
  store.lose_data();
  CHECK(store.backlog_size() == 0);
  run_one(store, {"INCR", "c"}, kT0 + 2 * kUsPerS);
  const auto lost = store.fail_over(kT0 + 4 * kUsPerS);
  REQUIRE(lost.has_value());
  CHECK(lost->writes == 0);
  CHECK(run_one(store, {"GET", "c"}, kT0 + 4 * kUsPerS).text == "1");
}

TEST_CASE("the backlog holds the calls of one replication lag") {
  ReplicatedStore store(100 * kUsPerMs);
  incr_every(store, "c", 1000, kT0, kUsPerMs);  // 1 s of calls, 1 ms apart
  CHECK(store.backlog_size() == 100);           // those after 999 ms - 100 ms
}

TEST_CASE("the same calls give the same replica and the same loss") {
  const auto once = [] {
    ReplicatedStore store(300 * kUsPerMs);
    for (int i = 0; i < 200; ++i)
      run_one(store, {"INCR", "k" + std::to_string(i % 7)}, kT0 + i * 7 * kUsPerMs);
    const auto lost = store.fail_over(kT0 + 1400 * kUsPerMs);
    std::string state;
    for (int i = 0; i < 7; ++i)
      state += run_one(store, {"GET", "k" + std::to_string(i)}, kT0 + 2 * kUsPerS).text + ",";
    return std::make_pair(lost->increments, state);
  };
  CHECK(once() == once());
  CHECK(once().first == 42);  // calls at 1,106 .. 1,393 ms: (1393 - 1106) / 7 + 1
}

TEST_CASE("a store without a replica does not fail over") {
  MockStore store;
  CHECK_FALSE(store.fail_over(kT0).has_value());
}

}  // namespace rlsim_test_replicated_store
