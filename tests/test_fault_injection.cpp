// world/fault_injection: the table of fault effects (one row per fault type) and what each row
// says a type does. How active faults compose is tested in test_faults.cpp and
// test_clock_faults.cpp through compose_conditions and slow_periods.
#include <catch2/catch.hpp>

#include "world/fault_injection.h"

namespace rlsim_test_fault_injection {

using namespace rlsim;

namespace {

const FaultType kAllTypes[] = {
    FaultType::kRedisDown,     FaultType::kRedisLatency,  FaultType::kRedisSlow,
    FaultType::kPartition,     FaultType::kInstanceCrash, FaultType::kClockOffset,
    FaultType::kClockDrift,    FaultType::kClockJump,     FaultType::kRedisRestart,
    FaultType::kPeerPartition, FaultType::kRedisFailover};

}  // namespace

TEST_CASE("fault effects: every fault type has its own row") {
  for (const FaultType type : kAllTypes) CHECK(fault_effect(type).type == type);
}

TEST_CASE("fault effects: what each type does while active") {
  for (const FaultType type : kAllTypes) {
    const FaultEffectRow& row = fault_effect(type);
    INFO("type " << to_string(type));
    CHECK((row.compose != nullptr) ==
          (type == FaultType::kRedisDown || type == FaultType::kRedisLatency ||
           type == FaultType::kPartition || type == FaultType::kRedisRestart ||
           type == FaultType::kRedisFailover));
    CHECK(row.slows_service == (type == FaultType::kRedisSlow));
    CHECK(row.cuts_instances_off == (type == FaultType::kPartition));
    CHECK(row.crashes_instances == (type == FaultType::kInstanceCrash));
    CHECK(row.loses_data == (type == FaultType::kRedisRestart));
    CHECK(row.cuts_peer_links == (type == FaultType::kPeerPartition));
    CHECK(row.fails_over == (type == FaultType::kRedisFailover));
  }
}

TEST_CASE("fault effects: the replication lag of the failover that hits a node") {
  Scenario scenario;
  FaultSpec failover;
  failover.type = FaultType::kRedisFailover;
  failover.replication_lag_us = 250 * kUsPerMs;
  failover.nodes = {1};
  FaultSpec restart;
  restart.type = FaultType::kRedisRestart;
  scenario.faults = {restart, failover};
  CHECK_FALSE(failover_replication_lag(scenario, 0));  // a restart has no replica
  CHECK(failover_replication_lag(scenario, 1) == 250 * kUsPerMs);
  scenario.faults[1].nodes.clear();  // every node
  CHECK(failover_replication_lag(scenario, 0) == 250 * kUsPerMs);
}

TEST_CASE("fault effects: a peer partition cuts the links across its split, not Redis") {
  FaultSpec listed;
  listed.type = FaultType::kPeerPartition;
  listed.all_instances = false;
  listed.instances = {0, 3};
  CHECK(compose_conditions({&listed}).down == DownMode::kUp);
  PeerLinks links;
  CHECK_FALSE(links.cut(0, 1));
  links.set_partitions({&listed});
  CHECK(links.cut(0, 1));        // listed -> other
  CHECK(links.cut(1, 3));        // other -> listed
  CHECK_FALSE(links.cut(0, 3));  // both listed: the same side
  CHECK_FALSE(links.cut(1, 2));  // both others
  FaultSpec everyone = listed;
  everyone.all_instances = true;
  links.set_partitions({&everyone});
  CHECK(links.cut(1, 2));
  CHECK_FALSE(links.cut(2, 2));  // an instance always reaches itself
  links.set_partitions({});
  CHECK_FALSE(links.cut(0, 1));
}

TEST_CASE("fault effects: a restarting Redis refuses connections") {
  FaultSpec restart;
  restart.type = FaultType::kRedisRestart;
  restart.mode = FaultMode::kRefuse;
  CHECK(compose_conditions({&restart}).down == DownMode::kRefuse);
}

TEST_CASE("fault effects: a partition of listed instances sets no node condition") {
  FaultSpec listed;
  listed.type = FaultType::kPartition;
  listed.mode = FaultMode::kBlackhole;
  listed.all_instances = false;
  listed.instances = {1};
  CHECK(compose_conditions({&listed}).down == DownMode::kUp);
  FaultSpec everyone = listed;
  everyone.all_instances = true;
  CHECK(compose_conditions({&everyone}).down == DownMode::kBlackhole);
  // Clock faults and crashes leave the node as it is.
  FaultSpec crash;
  crash.type = FaultType::kInstanceCrash;
  FaultSpec jump;
  jump.type = FaultType::kClockJump;
  const RedisConditions none = compose_conditions({&crash, &jump});
  CHECK(none.down == DownMode::kUp);
  CHECK(none.rtt_multiplier == 1.0);
  CHECK(none.added_rtt_us == 0);
}

}  // namespace rlsim_test_fault_injection
