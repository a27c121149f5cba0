// The real Redis Cluster backend (ClusterWire under RealStore) against the 3-master cluster the
// test command starts (tests/redis-cluster.sh; tests/run-all.sh sets RLSIM_REDIS_CLUSTER): slot
// routing, MOVED after a resharding, ASK during a migration, CROSSSLOT as an error reply, the
// run's keys removed from every node, and exit 5 for unreachable seeds.
#include <hiredis/hiredis.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "app/exit_codes.h"
#include "engine/commands.h"
#include "engine/run.h"
#include "real/backend.h"
#include "real/cluster_backend.h"
#include "real/real_cluster.h"
#include "real_redis_env.h"
#include "redis/cluster_slots.h"
#include "redis_direct.h"
#include "report/result_json.h"

namespace rlsim_test_real_cluster {

using namespace rlsim;

namespace {

// The cluster's seeds, or "" when the test is skipped (tests/real_redis_env.h).
std::string cluster_seeds() { return rlsim::testing::real_cluster_seeds(); }

// A plain hiredis connection to one node: the test's own view, outside any run.
struct Node {
  redisContext* context;
  std::string address;
  explicit Node(const std::string& host_port) : address(host_port) {
    const std::size_t colon = host_port.rfind(':');
    context =
        redisConnect(host_port.substr(0, colon).c_str(), std::stoi(host_port.substr(colon + 1)));
    REQUIRE(context != nullptr);
    REQUIRE(context->err == 0);
  }
  ~Node() { redisFree(context); }
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  std::string run(const std::vector<std::string>& argv) { return direct_command(context, argv); }
  // Every key on this node matching `pattern`.
  std::vector<std::string> keys(const std::string& pattern) {
    const std::string found = run({"KEYS", pattern});
    std::vector<std::string> out;
    std::size_t begin = 0;
    while (begin < found.size()) {
      std::size_t end = found.find(',', begin);
      if (end == std::string::npos) end = found.size();
      out.push_back(found.substr(begin, end - begin));
      begin = end + 1;
    }
    return out;
  }
};

// The three masters, by address, from the seeds' own CLUSTER SLOTS (through a ClusterWire).
std::vector<std::string> masters(const std::string& seeds) {
  std::string error;
  ClusterWire wire(*parse_cluster_seeds(seeds, error));
  REQUIRE(wire.connect(error));
  std::vector<std::string> out;
  for (const auto& node : wire.node_reports())
    if (node.slots > 0) out.push_back(node.address);
  return out;
}

ClusterWire& cluster_of(RealStore& store) { return dynamic_cast<ClusterWire&>(store.wire()); }

// Moves the empty `slot` from `from` to `to` as redis-cli --cluster reshard does (IMPORTING,
// MIGRATING, then NODE on every master); `keep_migrating` stops after the first two steps.
void move_slot(const std::vector<std::string>& all, const std::string& from, const std::string& to,
               int slot, bool keep_migrating) {
  Node source(from), target(to);
  const std::string source_id = source.run({"CLUSTER", "MYID"});
  const std::string target_id = target.run({"CLUSTER", "MYID"});
  const std::string s = std::to_string(slot);
  REQUIRE(target.run({"CLUSTER", "SETSLOT", s, "IMPORTING", source_id}) == "OK");
  REQUIRE(source.run({"CLUSTER", "SETSLOT", s, "MIGRATING", target_id}) == "OK");
  if (keep_migrating) return;
  REQUIRE(target.run({"CLUSTER", "SETSLOT", s, "NODE", target_id}) == "OK");
  for (const std::string& address : all) {
    if (address == to) continue;
    Node other(address);
    REQUIRE(other.run({"CLUSTER", "SETSLOT", s, "NODE", target_id}) == "OK");
  }
}

// Runs the rlsim binary; returns its exit code and stderr.
int run_cli(const std::string& arguments, std::string& err) {
  const std::string path = "/tmp/rlsim-test-cluster-" + std::to_string(::getpid()) + ".err";
  const int status =
      std::system((std::string(RLSIM_BINARY) + " " + arguments + " >/dev/null 2>" + path).c_str());
  err.clear();
  if (FILE* f = std::fopen(path.c_str(), "r")) {
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) err.append(buffer, n);
    std::fclose(f);
  }
  std::remove(path.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

const std::string kScenarios = std::string(RLSIM_SOURCE_DIR) + "/scenarios/";
const TimeUs kT0 = kEpochUnixUs + kUsPerS;

}  // namespace

TEST_CASE("real cluster: every command goes to the node that owns its key's slot") {
  const std::string seeds = cluster_seeds();
  if (seeds.empty()) return;
  const auto nodes = masters(seeds);
  REQUIRE(nodes.size() == 3);
  auto store = make_real_cluster_store(seeds, false);
  ClusterWire& wire = cluster_of(*store);
  std::map<std::string, int> per_node;
  for (int i = 0; i < 60; ++i) {
    const std::string key = "user:" + std::to_string(i);
    REQUIRE(store->run({"SET", key, std::to_string(i)}, kT0).text == "OK");
    // The prefixed key keeps the key's own slot, and it is on the node the map names.
    const std::string stored = store->key_prefix() + "{" + key + "}";
    const std::string owner = wire.owner_of(key_hash_slot(key));
    Node node(owner);
    CHECK(node.run({"CLUSTER", "KEYSLOT", stored}) == std::to_string(key_hash_slot(key)));
    CHECK(node.run({"GET", stored}) == std::to_string(i));
    ++per_node[owner];
  }
  CHECK(per_node.size() == 3);  // 60 keys spread over all three masters
  for (const auto& report : wire.node_reports()) CHECK(report.commands > 0);
  // Keys of one hash tag share a slot, so a two-key script on them runs on one node.
  const std::string two_keys =
      "redis.call('SET', KEYS[1], ARGV[1]) redis.call('SET', KEYS[2], ARGV[1]) return 1";
  CHECK(store->run({"EVAL", two_keys, "2", "{user:42}:tokens", "{user:42}:ts", "7"}, kT0) ==
        Reply::from_integer(1));
  Node tagged(wire.owner_of(key_hash_slot("user:42")));
  CHECK(tagged.run({"GET", store->key_prefix() + "{user:42}:ts"}) == "7");
  CHECK(wire.crossslot() == 0);
  // TIME is the virtual clock; SCRIPT LOAD reaches every master, so EVALSHA works on any node.
  CHECK(store->run({"TIME"}, kT0).elements.at(0).text == std::to_string(kT0 / kUsPerS));
  const std::string counter = "return redis.call('INCR', KEYS[1])";
  const Reply sha = store->run({"SCRIPT", "LOAD", counter}, kT0);
  for (int i = 0; i < 12; ++i)
    CHECK(store->run({"EVALSHA", sha.text, "1", "c:" + std::to_string(i)}, kT0) ==
          Reply::from_integer(1));
  CHECK(store->key_count() == 60 + 2 + 12);
}

TEST_CASE("real cluster: CROSSSLOT from the server is the strategy's error reply") {
  const std::string seeds = cluster_seeds();
  if (seeds.empty()) return;
  auto store = make_real_cluster_store(seeds, false);
  const std::string two_keys = "return redis.call('GET', KEYS[1])";
  REQUIRE(key_hash_slot("user:42:tokens") != key_hash_slot("user:42:ts"));
  const Reply reply = store->run({"EVAL", two_keys, "2", "user:42:tokens", "user:42:ts"}, kT0);
  CHECK(reply.is_error());
  CHECK(reply.text.starts_with("CROSSSLOT"));
  CHECK(store->run({"MGET", "a", "b"}, kT0).text.starts_with("CROSSSLOT"));
  CHECK(cluster_of(*store).crossslot() == 2);
  // The run goes on: the next single-slot command works.
  CHECK(store->run({"INCR", "a"}, kT0) == Reply::from_integer(1));
  REQUIRE(store->backend_report());
  nlohmann::ordered_json backend = backend_json(*store->backend_report());
  CHECK(backend.at("redis") == "real_cluster");
  CHECK(backend.at("crossslot") == 2);
  CHECK(backend.at("nodes").size() == 3);
}

TEST_CASE("real cluster: MOVED (a wrong map, then a resharding) and ASK (a migration)") {
  const std::string seeds = cluster_seeds();
  if (seeds.empty()) return;
  const auto nodes = masters(seeds);
  REQUIRE(nodes.size() == 3);
  auto store = make_real_cluster_store(seeds, false);
  ClusterWire& wire = cluster_of(*store);
  const std::string key = "moved";
  const int slot = key_hash_slot(key);
  const std::string owner = wire.owner_of(slot);
  const std::string other = owner == nodes[0] ? nodes[1] : nodes[0];

  // A deliberately wrong map: the command goes to the wrong node, MOVED sends it to the owner.
  wire.set_owner(slot, other);
  // Two commands go to the wrong node: the lazy-expiry sweep of the key, then SET.
  CHECK(store->run({"SET", key, "1"}, kT0).text == "OK");
  CHECK(wire.moved() == 2);
  CHECK(wire.owner_of(slot) == owner);
  CHECK(Node(owner).run({"GET", store->key_prefix() + "{moved}"}) == "1");
  store->delete_own_keys();

  // ASK: the slot migrating from `owner` to `other`; a key not on `owner` is created on `other`
  // through ASKING, and the map is unchanged.
  const std::string ask_key = "asked";
  const int ask_slot = key_hash_slot(ask_key);
  const std::string ask_owner = wire.owner_of(ask_slot);
  const std::string ask_target = ask_owner == nodes[0] ? nodes[1] : nodes[0];
  move_slot(nodes, ask_owner, ask_target, ask_slot, true);
  const std::uint64_t moved_before = wire.moved();
  CHECK(store->run({"SET", ask_key, "2"}, kT0 + 1).text == "OK");
  CHECK(wire.asked() == 2);  // the sweep and SET
  CHECK(wire.owner_of(ask_slot) == ask_owner);
  CHECK(Node(ask_target).run({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(ask_slot)}) == "1");
  CHECK(Node(ask_owner).run({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(ask_slot)}) == "0");

  // Finish the migration: the next command gets MOVED, the map is read again.
  move_slot(nodes, ask_owner, ask_target, ask_slot, false);
  CHECK(store->run({"GET", ask_key}, kT0 + 2) == Reply::bulk("2"));
  CHECK(wire.moved() == moved_before + 2);
  CHECK(wire.owner_of(ask_slot) == ask_target);
  CHECK(store->run({"INCR", "after"}, kT0 + 3) == Reply::from_integer(1));  // map read again
  CHECK(wire.map_refreshes() >= 2);
  CHECK(store->delete_own_keys() == 2);

  // Put the slot back where it was (it is empty again).
  move_slot(nodes, ask_target, ask_owner, ask_slot, false);
  for (const std::string& address : nodes)
    CHECK(Node(address).run({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(ask_slot)}) == "0");
}

TEST_CASE("real cluster: a run's keys are removed from every node, foreign keys untouched") {
  const std::string seeds = cluster_seeds();
  if (seeds.empty()) return;
  const auto nodes = masters(seeds);
  REQUIRE(nodes.size() == 3);
  // Foreign keys on every node, seeded through the nodes that own them.
  std::map<std::string, std::string> foreign;
  {
    auto seeder = make_real_cluster_store(seeds, false);
    for (int i = 0; i < 9; ++i) {
      const std::string key = "foreign:" + std::to_string(i);
      Node(cluster_of(*seeder).owner_of(key_hash_slot(key))).run({"SET", key, "v"});
      foreign[key] = "v";
    }
  }
  Scenario scenario = load_scenario(kScenarios + "boundary-burst.json");
  scenario.duration_us = 60 * kUsPerS;
  // The embedded cluster with the real one's slot map (redis-cli's even split of 3 masters).
  scenario.redis.cluster_nodes = 3;
  Scenario real = scenario;
  real.redis.cluster_url = seeds;
  {
    auto probe = make_cluster_store(seeds, false);
    REQUIRE(embedded_cluster_nodes(*probe) == 3);
  }
  for (const ResolvedStrategy& strategy : resolve_strategies(scenario, "boundary-burst")) {
    INFO(strategy.label);
    const StrategyResult m = run_strategy(scenario, strategy, scenario.seed);
    const StrategyResult r = run_strategy(real, strategy, scenario.seed);
    // Per-node timing from the embedded cluster's model, replies from the real cluster: the same
    // decisions and keys as the embedded cluster.
    CHECK(r.decision_digest == m.decision_digest);
    CHECK(r.redis_keys_at_end == m.redis_keys_at_end);
    REQUIRE(r.backend);
    REQUIRE(r.backend->cluster);
    std::uint64_t commands = 0;
    for (const auto& node : r.backend->cluster->nodes) commands += node.commands;
    CHECK(commands > r.redis_commands / 2);
  }
  for (const std::string& address : nodes) {
    Node node(address);
    CHECK(node.keys("rlsim:*").empty());
    for (const std::string& key : node.keys("foreign:*")) {
      CHECK(node.run({"GET", key}) == foreign.at(key));
      node.run({"DEL", key});
    }
  }
}

TEST_CASE("real cluster: unreachable seeds exit 5, a reachable one is enough, bad seeds exit 2") {
  const std::string seeds = cluster_seeds();
  if (seeds.empty()) return;
  const std::string scenario = kScenarios + "overshoot-10x.json";
  std::string err;
  CHECK(run_cli("run " + scenario + " --redis-cluster 127.0.0.1:1,127.0.0.1:2", err) ==
        exit_code::kRedisUnavailable);
  CHECK(err.find("rlsim: cannot use Redis Cluster at 127.0.0.1:1,127.0.0.1:2: ") !=
        std::string::npos);
  CHECK(std::count(err.begin(), err.end(), '\n') == 1);
  CHECK(run_cli("conformance --redis-cluster 127.0.0.1:1", err) == exit_code::kRedisUnavailable);
  CHECK(run_cli("run " + scenario + " --redis-cluster 127.0.0.1", err) == exit_code::kBadInput);
  CHECK(run_cli("run " + scenario + " --redis-cluster 127.0.0.1:7101/2", err) ==
        exit_code::kBadInput);
  const std::string out = "/tmp/rlsim-test-cluster-out-" + std::to_string(::getpid());
  CHECK(run_cli("run " + scenario + " --redis-cluster 127.0.0.1:1," + seeds + " --out " + out,
                err) == exit_code::kOk);
  std::system(("rm -rf " + out).c_str());
  std::string error;
  const auto parsed = parse_cluster_seeds("redis://u:pw@h:1,h2:2", error);
  REQUIRE(parsed);
  CHECK(parsed->at(1).password == "pw");  // every node takes the first seed's credentials
  CHECK(ClusterWire(*parsed).describe() == "Redis Cluster at h:1,h2:2");
}

TEST_CASE(
    "real cluster: RLSIM_REDIS_IO_TIMEOUT_MS bounds the wait for a node that stops answering") {
  const std::string seeds = cluster_seeds();
  if (seeds.empty()) return;
  auto store = make_real_cluster_store(seeds, false, 300);
  const std::string key = "paused";
  const std::string owner = cluster_of(*store).owner_of(key_hash_slot(key));
  CHECK(store->run({"SET", key, "1"}, kT0).text == "OK");
  // The key's node holds every client's commands for 1.5 s: the call fails after 300 ms, with
  // the reason, and the run goes on (the backend counts the failure).
  Node(owner).run({"CLIENT", "PAUSE", "1500", "ALL"});
  const Reply reply = store->run({"GET", key}, kT0);
  CHECK(reply.is_error());
  CHECK(reply.text.find(owner + ": no reply within 300 ms") != std::string::npos);
  CHECK(store->backend_failure().find("no reply within 300 ms") != std::string::npos);
  Node(owner).run({"CLIENT", "UNPAUSE"});
  // The store gave up on the connection, so it cannot delete its key: the test does.
  Node(owner).run({"DEL", store->key_prefix() + "{" + key + "}"});
  CHECK(Node(owner).keys(store->key_prefix() + "*").empty());
}

TEST_CASE("real cluster: a command sent again after MOVED keeps its place before later calls") {
  const std::string seeds = cluster_seeds();
  if (seeds.empty()) return;
  const auto nodes = masters(seeds);
  REQUIRE(nodes.size() == 3);
  auto store = make_real_cluster_store(seeds, false);
  ClusterWire& wire = cluster_of(*store);
  // Two keys of one owner on different slots, both deliberately routed to another node (so that
  // reading the first key's replies at its owner does not read the second's MOVED on the way).
  const std::string key = "order:k";
  const int slot = key_hash_slot(key);
  const std::string owner = wire.owner_of(slot);
  std::string first;
  for (int i = 0; first.empty(); ++i) {
    const std::string candidate = "order:x" + std::to_string(i);
    if (key_hash_slot(candidate) != slot && wire.owner_of(key_hash_slot(candidate)) == owner)
      first = candidate;
  }
  const std::string wrong = owner == nodes[0] ? nodes[1] : nodes[0];
  wire.set_owner(key_hash_slot(first), wrong);
  wire.set_owner(slot, wrong);
  const auto one = [](Command command) { return std::vector<Command>{std::move(command)}; };
  const std::uint64_t x = store->submit(one({"INCR", first}), kT0);
  const std::uint64_t a = store->submit(one({"INCR", key}), kT0 + 1);
  std::vector<Reply> replies;
  store->collect(x, replies);  // its MOVED is read: the map will be read again
  // Routed by the new map, straight to the owner; INCR (submitted first, still unread at the
  // wrong node) must run before it.
  const std::uint64_t b = store->submit(one({"SET", key, "100"}), kT0 + 2);
  store->collect(a, replies);
  store->collect(b, replies);
  REQUIRE(replies.size() == 3);
  CHECK(replies[0] == Reply::from_integer(1));
  CHECK(replies[1] == Reply::from_integer(1));
  CHECK(replies[2].text == "OK");
  CHECK(store->run({"GET", key}, kT0 + 3) == Reply::bulk("100"));
  CHECK(wire.moved() >= 4);  // both sweeps and both commands
  store->delete_own_keys();
}

TEST_CASE("real cluster: redis_restart of one node empties only that node, as on the embedded") {
  const std::string seeds = cluster_seeds();
  if (seeds.empty()) return;
  Scenario scenario = load_scenario(kScenarios + "redis-restart.json");
  scenario.duration_us = 120 * kUsPerS;
  scenario.redis.cluster_nodes = 3;
  scenario.faults[0].nodes = {1};
  Scenario real = scenario;
  real.redis.cluster_url = seeds;
  for (const ResolvedStrategy& strategy : resolve_strategies(scenario, "redis-restart")) {
    INFO(strategy.label);
    const StrategyResult m = run_strategy(scenario, strategy, scenario.seed);
    const StrategyResult r = run_strategy(real, strategy, scenario.seed);
    CHECK(r.decision_digest == m.decision_digest);
    CHECK(r.redis_keys_at_end == m.redis_keys_at_end);
    // Only the users whose keys live on node 1 get a second 100 in the restart's minute.
    REQUIRE(m.totals.series.size() >= 2);
    CHECK(m.totals.series[1].max_per_key == 200);
  }
}

}  // namespace rlsim_test_real_cluster
