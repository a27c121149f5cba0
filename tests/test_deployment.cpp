// The deployment object (world/deployment.h): which Redis nodes a run has and which one serves an
// instance's region or a key, for one server, regions and an embedded cluster.
#include <catch2/catch.hpp>

#include "engine/cluster_run.h"
#include "redis/mock_store.h"
#include "scenario/load.h"
#include "world/deployment.h"

namespace rlsim_test_deployment {

using namespace rlsim;

namespace {

std::string scenario_text(const std::string& extra) {
  return R"({"name": "t", "duration": "10s", "limits": [{"name": "l", "limit": 10, "window": "1s"}],
    "instances": {"count": 3}, "traffic": [{"name": "u", "users": 4, "rate": "10/s"}],
    "strategies": ["redis_fixed_window"])" +
         extra + "}";
}

const Deployment::ClusterFactory kNoCluster = [](DataStore&) {
  return std::unique_ptr<RedisCluster>();
};

void put_key(DataStore& store, const std::string& key) {
  std::vector<Reply> replies;
  const std::vector<Command> commands{Command{"SET", key, "1"}};
  store.execute(commands, 0, replies);
}

}  // namespace

TEST_CASE("deployment: one server is the front, every region's Redis and every key's node") {
  const Scenario scenario = parse_scenario(scenario_text(""), "t.json");
  Simulator sim;
  auto store = std::make_unique<MockStore>();
  MockStore& store_ref = *store;
  Deployment deployment(scenario, sim, std::move(store), kNoCluster, 1);
  CHECK(deployment.region_count() == 1);
  CHECK(&deployment.region_server(0) == &deployment.front());
  CHECK(deployment.region_servers().empty());
  CHECK(deployment.cluster() == nullptr);
  CHECK(deployment.nodes() == std::vector<RedisServer*>{&deployment.front()});
  CHECK(&deployment.node_of_key("rl:user:1") == &deployment.front());
  CHECK(deployment.in_flight() == 0);
  put_key(store_ref, "a");
  put_key(store_ref, "b");
  CHECK(deployment.totals().keys == 2);
  CHECK(deployment.totals().commands == 0);  // SET went to the store, not through the server
}

TEST_CASE("deployment: with regions, a server per region, the home region's is the front") {
  const Scenario scenario = parse_scenario(
      scenario_text(R"(, "regions": {"home": "us", "list": [{"name": "eu", "instances": 1},
        {"name": "us", "instances": 2}], "rtt": [["0ms", "80ms"], ["80ms", "1ms"]]})"),
      "t.json");
  Simulator sim;
  Deployment deployment(scenario, sim, std::make_unique<MockStore>(), kNoCluster, 1);
  REQUIRE(deployment.region_count() == 2);
  CHECK(deployment.home_region() == 1);
  CHECK(&deployment.region_server(1) == &deployment.front());
  CHECK(&deployment.region_server(0) != &deployment.front());
  CHECK(deployment.region_servers() ==
        std::vector<RedisServer*>{&deployment.region_server(0), &deployment.front()});
  CHECK(deployment.nodes().size() == 2);
}

TEST_CASE("deployment: with a cluster, the front routes and each key has its node") {
  const Scenario scenario =
      parse_scenario(scenario_text(R"(, "redis": {"cluster": {"nodes": 3}})"), "t.json");
  Simulator sim;
  Deployment deployment(
      scenario, sim, std::make_unique<MockStore>(),
      [&](DataStore&) {
        return make_embedded_cluster(scenario, sim, redis_timing(scenario.redis), 1);
      },
      1);
  RedisCluster* cluster = deployment.cluster();
  REQUIRE(cluster != nullptr);
  REQUIRE(cluster->node_count() == 3);
  const std::vector<RedisServer*> nodes = deployment.nodes();
  REQUIRE(nodes.size() == 4);  // the front, then the cluster's nodes
  CHECK(nodes[0] == &deployment.front());
  for (int n = 0; n < 3; ++n) CHECK(nodes[static_cast<std::size_t>(n) + 1] == &cluster->node(n));
  for (const std::string key : {"a", "b", "c", "rl:user:7"})
    CHECK(&deployment.node_of_key(key) == &cluster->node(cluster->node_of_key(key)));
  CHECK(deployment.totals().keys == 0);
}

}  // namespace rlsim_test_deployment
