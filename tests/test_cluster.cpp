// The embedded Redis Cluster (redis/cluster.h, docs/cluster.md): the slot map, per-command routing,
// CROSSSLOT, per-node timing (a hot key saturates one node only), scripts on every node, per-node
// faults, and whole runs through the scenario.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/task.h"
#include "engine/run.h"
#include "redis/cluster.h"
#include "redis/mock_store.h"
#include "report/result_json.h"
#include "scenario/load.h"
#include "test_util.h"

namespace rlsim_test_cluster {

using namespace rlsim;

namespace {

struct CallOutcome {
  std::vector<Reply> replies;
  TimeUs done_us = -1;
};

Task<int> pipelined(RedisServer& server, Simulator& sim, std::vector<Command> commands,
                    CallOutcome& outcome) {
  outcome.replies = co_await server.pipeline(std::move(commands));
  outcome.done_us = sim.now();
  co_return 0;
}

Task<int> one_call(RedisServer& server, Simulator& sim, Command command, CallOutcome& outcome) {
  auto replies = co_await server.call(std::move(command));
  outcome.replies.assign(std::make_move_iterator(replies.begin()),
                         std::make_move_iterator(replies.end()));
  outcome.done_us = sim.now();
  co_return 0;
}

void ignore(void*, int&&) {}

// A front server (what strategies hold) routed over a cluster of `nodes` embedded nodes.
struct Harness {
  explicit Harness(int nodes, RedisTiming timing = RedisTiming{1000, 1000, 5, 50'000})
      : front(sim, unused, timing, Rng(1, "network")),
        cluster(
            sim, ClusterLayout::even(nodes), [](int) { return std::make_shared<MockStore>(); },
            timing, 1) {
    cluster.attach(front);
  }
  CallOutcome run(std::vector<Command> commands) {
    CallOutcome outcome;
    pipelined(front, sim, std::move(commands), outcome).start_detached(&ignore, nullptr);
    sim.run_until(sim.now() + 10'000'000);
    return outcome;
  }
  // A key whose slot node `node` owns ("k<i>" for the first i that lands there).
  std::string key_on(int node, const std::string& prefix = "k") const {
    for (int i = 0;; ++i) {
      std::string key = prefix + std::to_string(i);
      if (cluster.node_of_key(key) == node) return key;
    }
  }
  Simulator sim;
  MockStore unused;
  RedisServer front;
  RedisCluster cluster;
};

}  // namespace

TEST_CASE("cluster: slots split as redis-cli --cluster create") {
  const ClusterLayout three = ClusterLayout::even(3);
  CHECK(three.ranges_of(0) == std::vector<std::pair<int, int>>{{0, 5460}});
  CHECK(three.ranges_of(1) == std::vector<std::pair<int, int>>{{5461, 10922}});
  CHECK(three.ranges_of(2) == std::vector<std::pair<int, int>>{{10923, 16383}});
  CHECK(ClusterLayout::even(1).ranges_of(0) == std::vector<std::pair<int, int>>{{0, 16383}});
  const ClusterLayout many = ClusterLayout::even(ClusterLayout::kMaxNodes);
  std::vector<int> slots(ClusterLayout::kMaxNodes, 0);
  for (std::uint16_t owner : many.slot_owner) ++slots[owner];
  for (int count : slots) CHECK(count == 256);
}

TEST_CASE("cluster: a pipeline is split per node and answered when the slowest node is done") {
  Harness h(3);
  const std::string a = h.key_on(0), b = h.key_on(1), c = h.key_on(2);
  // Node 2 gets three commands, so it finishes last: 1000 us round trip + 3 x 5 us.
  const CallOutcome out = h.run({{"INCR", a}, {"INCR", c}, {"INCR", b}, {"INCR", c}, {"GET", c}});
  REQUIRE(out.replies.size() == 5);
  CHECK(out.replies[0].integer == 1);
  CHECK(out.replies[1].integer == 1);
  CHECK(out.replies[2].integer == 1);
  CHECK(out.replies[3].integer == 2);
  CHECK(out.replies[4].text == "2");
  CHECK(out.done_us == 1015);
  CHECK(h.cluster.node(0).stats().commands == 1);
  CHECK(h.cluster.node(1).stats().commands == 1);
  CHECK(h.cluster.node(2).stats().commands == 3);
  CHECK(h.cluster.total_stats().round_trips == 3);
  CHECK(h.cluster.key_count() == 3);
  CHECK(h.front.stats().commands == 0);  // the front only routes
}

TEST_CASE("cluster: keys spanning slots get CROSSSLOT and nothing runs") {
  Harness h(3);
  const CallOutcome out = h.run({{"MGET", "{user:1}:a", "{user:2}:b"},
                                 {"SET", "{user:1}:a", "1"},
                                 {"MGET", "{user:1}:a", "{user:1}:b"},
                                 {"EVAL", "return redis.call('SET', KEYS[1], 1)", "2", "x", "y"}});
  REQUIRE(out.replies.size() == 4);
  CHECK(out.replies[0].is_error());
  CHECK(out.replies[0].text == "CROSSSLOT Keys in request don't hash to the same slot");
  CHECK(out.replies[1].type == Reply::Type::kStatus);
  REQUIRE(out.replies[2].elements.size() == 2);  // one tag, one slot: allowed
  CHECK(out.replies[2].elements[0].text == "1");
  CHECK(out.replies[3].text == "CROSSSLOT Keys in request don't hash to the same slot");
  CHECK(h.cluster.crossslot_errors() == 2);
  CHECK(h.cluster.key_count() == 1);  // the script never ran: "x" was never set
  // The refusal came from the node owning the first key's slot.
  CHECK(h.cluster.crossslot_errors(h.cluster.node_of_key("{user:1}")) >= 1);
}

TEST_CASE("cluster: a node that refuses a whole call with CROSSSLOT still sees the time pass") {
  // A real node receiving a refused command still runs its clock (its keys expire on it), so the
  // keys it counts at the end of a run match a real cluster's (rlsim conformance --redis-cluster).
  Harness h(3);
  const std::string key = h.key_on(0, "a");
  h.run({{"SET", key, "1", "PX", "5"}});
  CHECK(h.cluster.key_count() == 1);
  // Only a cross-slot MGET reaches node 0 after the key's expiry.
  const CallOutcome out = h.run({{"MGET", key, h.key_on(1, "b")}});
  REQUIRE(out.replies.size() == 1);
  CHECK(out.replies[0].text == "CROSSSLOT Keys in request don't hash to the same slot");
  CHECK(h.cluster.key_count() == 0);
}

TEST_CASE("cluster: a hot key saturates its node only") {
  Harness h(3, RedisTiming{1000, 1000, 20, 50'000});
  const std::string hot = h.key_on(1);
  std::vector<CallOutcome> outcomes(400);
  // 400 calls within 4 ms on one key: 8 ms of work for node 1's single thread.
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    h.sim.run_until(static_cast<TimeUs>(i) * 10);
    one_call(h.front, h.sim, {"INCR", hot}, outcomes[i]).start_detached(&ignore, nullptr);
  }
  h.sim.run_until(1'000'000);
  CHECK(outcomes.back().replies.front().integer == 400);
  CHECK(h.cluster.node(1).stats().commands == 400);
  CHECK(h.cluster.node(1).stats().max_queue_wait_us > 3000);
  CHECK(h.cluster.node(1).node_stats().busy_us() == 8000);
  CHECK(outcomes.back().done_us > 8000);  // queued behind the others
  for (int other : {0, 2}) {
    CHECK(h.cluster.node(other).stats().commands == 0);
    CHECK(h.cluster.node(other).node_stats().busy_us() == 0);
  }
}

TEST_CASE("cluster: SCRIPT LOAD reaches every node, so EVALSHA works on any key") {
  Harness h(3);
  const CallOutcome loaded = h.run({{"SCRIPT", "LOAD", "return redis.call('INCR', KEYS[1])"}});
  REQUIRE(loaded.replies.size() == 1);
  const std::string sha = loaded.replies[0].text;
  CHECK(sha.size() == 40);
  for (int node = 0; node < 3; ++node) CHECK(h.cluster.node(node).stats().commands == 1);
  const CallOutcome out = h.run({{"EVALSHA", sha, "1", h.key_on(0)},
                                 {"EVALSHA", sha, "1", h.key_on(1)},
                                 {"EVALSHA", sha, "1", h.key_on(2)}});
  for (const Reply& reply : out.replies) CHECK(reply.integer == 1);
  // Without the broadcast a node answers NOSCRIPT (the Script class then sends EVAL to it).
  Harness fresh(3);
  const CallOutcome missing = fresh.run({{"EVALSHA", sha, "1", fresh.key_on(2)}});
  CHECK(missing.replies[0].text.starts_with("NOSCRIPT"));
}

TEST_CASE("cluster: a fault on one node leaves the others up") {
  Harness h(3);
  RedisConditions down;
  down.down = DownMode::kRefuse;
  h.cluster.node(1).set_conditions(down);
  const CallOutcome out =
      h.run({{"INCR", h.key_on(0)}, {"INCR", h.key_on(1)}, {"INCR", h.key_on(2)}});
  CHECK(out.replies[0].integer == 1);
  CHECK(out.replies[1].text == "CONNREFUSED rlsim: connection refused");
  CHECK(out.replies[2].integer == 1);
}

TEST_CASE("cluster: scenario runs route per node, deterministically, and report each node") {
  const std::string text = R"({
    "name": "c", "duration": "1s", "seed": 3,
    "limits": [{"name": "global", "key": "global", "limit": 1000, "window": "1s"}],
    "instances": {"count": 2},
    "traffic": [{"name": "t", "users": 50, "rate": "40/s"}],
    "redis": {"cluster": {"nodes": 3}},
    "faults": [{"type": "redis_down", "at": "0.5s", "for": "0.2s", "nodes": [2]}],
    "strategies": [
      {"name": "sharded_global", "label": "tagged", "shards": 3, "hash_tags": true},
      {"name": "redis_token_bucket", "label": "untagged", "layout": "two_keys", "hash_tag": false,
       "on_error": "fail_closed"}
    ]})";
  const Scenario scenario = parse_scenario(text, "c.json");
  const RunResult first = rlsim::testing::run_text(scenario);
  const RunResult second = rlsim::testing::run_text(scenario);
  const StrategyResult& tagged = rlsim::testing::by_label(first, "tagged");
  CHECK(tagged.decision_digest == rlsim::testing::by_label(second, "tagged").decision_digest);
  const auto extra = nlohmann::json::parse(redis_side_json(tagged.redis_side.value()).dump());
  REQUIRE(extra["redis_nodes"].size() == 3);
  CHECK(extra["redis_cluster"]["crossslot_errors"] == 0);
  // Only node 2 was down: only it refused calls.
  CHECK(extra["redis_nodes"][0]["errors"]["refused"] == 0);
  CHECK(extra["redis_nodes"][1]["errors"]["refused"] == 0);
  CHECK(extra["redis_nodes"][2]["errors"]["refused"].get<int>() > 0);
  for (const auto& node : extra["redis_nodes"]) CHECK(node["commands"].get<int>() > 0);
  // Untagged two-key script: CROSSSLOT on every call; fail closed denies them all.
  const StrategyResult& untagged = rlsim::testing::by_label(first, "untagged");
  const auto untagged_extra =
      nlohmann::json::parse(redis_side_json(untagged.redis_side.value()).dump());
  CHECK(untagged_extra["redis_cluster"]["crossslot_errors"].get<std::int64_t>() ==
        untagged.totals.offered);
  CHECK(untagged.totals.allowed == 0);
}

TEST_CASE("cluster: nodes with no service time report zero utilization, not a crash") {
  // The nodes record no busy spans at all, so their busy list is shorter than their ops list.
  const Scenario scenario = parse_scenario(R"({
    "name": "c0", "duration": "2s", "seed": 3,
    "limits": [{"name": "global", "key": "global", "limit": 1000, "window": "1s"}],
    "instances": {"count": 2},
    "traffic": [{"name": "t", "users": 50, "rate": "40/s"}],
    "redis": {"service_time": "0us", "cluster": {"nodes": 3}},
    "strategies": [{"name": "sharded_global", "shards": 3, "hash_tags": true}]})",
                                           "c0.json");
  const RunResult result = rlsim::testing::run_text(scenario);
  const StrategyResult& run = result.strategies.front();
  CHECK(run.totals.offered > 0);
  const auto extra = nlohmann::json::parse(redis_side_json(run.redis_side.value()).dump());
  CHECK(extra["redis_cluster"]["peak_utilization"] == 0);
}

TEST_CASE("cluster: the scenario section is checked") {
  const auto load = [](const std::string& redis, const std::string& faults = "[]") {
    return parse_scenario(R"({"name": "c", "duration": "1s",
      "limits": [{"name": "g", "key": "global", "limit": 10, "window": "1s"}],
      "instances": {"count": 1},
      "traffic": [{"name": "t", "users": 1, "rate": "1/s"}], "redis": )" +
                              redis + R"(, "faults": )" + faults +
                              R"(, "strategies": ["redis_fixed_window"]})",
                          "c.json");
  };
  CHECK(load(R"({"cluster": {"nodes": 64}})").redis.cluster_nodes == 64);
  CHECK(
      load(R"({"cluster": {"nodes": 2, "slots": [[0, 99], [100, 16383]]}})").redis.cluster_slots ==
      std::vector<std::pair<int, int>>{{0, 99}, {100, 16383}});
  CHECK_THROWS_WITH(load(R"({"cluster": {"nodes": 2, "slots": [[0, 99], [101, 16383]]}})"),
                    Catch::Contains("redis.cluster.slots[1][0]"));
  CHECK_THROWS_WITH(load(R"({"cluster": {"nodes": 2, "slots": [[0, 99], [100, 16000]]}})"),
                    Catch::Contains("redis.cluster.slots[1][1]"));
  CHECK_THROWS_WITH(load(R"({"cluster": {"nodes": 3, "slots": [[0, 16383]]}})"),
                    Catch::Contains("3 [first, last] ranges"));
  CHECK_THROWS_WITH(load(R"({"cluster": {"nodes": 65}})"), Catch::Contains("redis.cluster.nodes"));
  CHECK_THROWS_WITH(load(R"({"cluster": {"nodes": 3, "shards": 1}})"),
                    Catch::Contains("redis.cluster.shards"));
  CHECK(load(R"({"cluster": {"nodes": 3}})",
             R"([{"type": "redis_slow", "at": "0s", "for": "1s", "multiplier": 2, "nodes": 2}])")
            .faults[0]
            .nodes == std::vector<std::int32_t>{2});
  CHECK_THROWS_WITH(
      load(R"({"cluster": {"nodes": 3}})",
           R"([{"type": "redis_slow", "at": "0s", "for": "1s", "multiplier": 2, "nodes": [3]}])"),
      Catch::Contains("faults[0].nodes") && Catch::Contains("below 3"));
  CHECK_THROWS_WITH(
      load(R"({})",
           R"([{"type": "redis_slow", "at": "0s", "for": "1s", "multiplier": 2, "nodes": 0}])"),
      Catch::Contains("needs \"redis.cluster\""));
}

TEST_CASE("cluster: the two-key token bucket decides as the hash one, tagged on a cluster too") {
  const auto run = [](const std::string& redis, const std::string& params) {
    const Scenario scenario = parse_scenario(R"({"name": "b", "duration": "2s", "seed": 5,
      "limits": [{"name": "u", "key": "user", "limit": 5, "window": "1s"}],
      "instances": {"count": 3},
      "traffic": [{"name": "t", "users": 20, "rate": "8/s"}], "redis": )" +
                                                 redis + R"(, "strategies": [
      {"name": "redis_token_bucket", )" + params +
                                                 R"(}]})",
                                             "b.json");
    return rlsim::testing::run_text(scenario).strategies.front();
  };
  const StrategyResult hash = run("{}", R"("layout": "hash")");
  const StrategyResult two_keys = run("{}", R"("layout": "two_keys")");
  const StrategyResult on_cluster = run(R"({"cluster": {"nodes": 3}})", R"("layout": "two_keys")");
  CHECK(hash.totals.denied > 0);
  CHECK(two_keys.decision_digest == hash.decision_digest);
  CHECK(on_cluster.totals.allowed == hash.totals.allowed);
  CHECK(on_cluster.totals.errors == 0);
  // Untagged on one server: fine; on a cluster: every call refused, fail open admits all.
  const StrategyResult untagged_one = run("{}", R"("layout": "two_keys", "hash_tag": false)");
  CHECK(untagged_one.decision_digest == hash.decision_digest);
  const StrategyResult untagged_cluster =
      run(R"({"cluster": {"nodes": 3}})", R"("layout": "two_keys", "hash_tag": false)");
  CHECK(untagged_cluster.totals.errors == untagged_cluster.totals.offered);
  CHECK(untagged_cluster.totals.allowed == untagged_cluster.totals.offered);
}

}  // namespace rlsim_test_cluster
