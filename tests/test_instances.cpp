#include <catch2/catch.hpp>
#include <set>

#include "world/instances.h"

namespace rlsim_test_instances {

using namespace rlsim;

namespace {
struct Observer final : InstanceObserver {
  std::vector<std::uint32_t> started, stopped;
  void on_instance_start(const Instance& i) override { started.push_back(i.id); }
  void on_instance_stop(const Instance& i) override { stopped.push_back(i.id); }
};
Request user(std::uint32_t id) {
  Request r;
  r.user = id;
  return r;
}
}  // namespace

TEST_CASE("round robin cycles through the active instances") {
  InstancesSpec spec;
  spec.count = 3;
  InstancePool pool(spec, BalancerPolicy::kRoundRobin, 1);
  Observer observer;
  pool.scale_to(3, 0, observer);
  std::vector<std::uint32_t> ids;
  for (int i = 0; i < 6; ++i) ids.push_back(pool.route(user(0)).id);
  CHECK(ids == std::vector<std::uint32_t>{0, 1, 2, 0, 1, 2});
}

TEST_CASE("scaling starts fresh instances and stops the newest first") {
  InstancesSpec spec;
  spec.count = 2;
  InstancePool pool(spec, BalancerPolicy::kRoundRobin, 1);
  Observer observer;
  pool.scale_to(2, 0, observer);
  pool.scale_to(4, 100, observer);
  pool.scale_to(1, 200, observer);
  pool.scale_to(2, 300, observer);
  CHECK(observer.started == std::vector<std::uint32_t>{0, 1, 2, 3, 4});
  CHECK(observer.stopped == std::vector<std::uint32_t>{3, 2, 1});
  CHECK(pool.active_count() == 2);
  CHECK(pool.get(4).started_us == 300);
  for (int i = 0; i < 4; ++i) {
    const auto id = pool.route(user(0)).id;
    CHECK((id == 0 || id == 4));
  }
}

TEST_CASE("sticky sends a user to the same instance") {
  InstancesSpec spec;
  spec.count = 5;
  InstancePool pool(spec, BalancerPolicy::kSticky, 9);
  Observer observer;
  pool.scale_to(5, 0, observer);
  std::set<std::uint32_t> used;
  for (std::uint32_t u = 0; u < 50; ++u) {
    const auto first = pool.route(user(u)).id;
    used.insert(first);
    for (int i = 0; i < 3; ++i) CHECK(pool.route(user(u)).id == first);
  }
  CHECK(used.size() == 5);
}

TEST_CASE("least_inflight picks the least busy instance") {
  InstancesSpec spec;
  spec.count = 3;
  InstancePool pool(spec, BalancerPolicy::kLeastInflight, 1);
  Observer observer;
  pool.scale_to(3, 0, observer);
  pool.get(0).inflight = 4;
  pool.get(1).inflight = 1;
  pool.get(2).inflight = 3;
  CHECK(pool.route(user(0)).id == 1);
}

TEST_CASE("random spreads load and is reproducible") {
  InstancesSpec spec;
  spec.count = 4;
  InstancePool a(spec, BalancerPolicy::kRandom, 5), b(spec, BalancerPolicy::kRandom, 5);
  Observer observer;
  a.scale_to(4, 0, observer);
  b.scale_to(4, 0, observer);
  int counts[4] = {};
  for (int i = 0; i < 4000; ++i) {
    const auto id = a.route(user(0)).id;
    CHECK(b.route(user(0)).id == id);
    ++counts[id];
  }
  for (int c : counts) CHECK(std::abs(c - 1000) < 150);
}

TEST_CASE("clock offsets come from the list, then from the spread") {
  InstancesSpec spec;
  spec.count = 3;
  spec.clock_offsets = {250, -100};
  spec.clock_spread_us = 50;
  InstancePool pool(spec, BalancerPolicy::kRoundRobin, 1);
  Observer observer;
  pool.scale_to(3, 0, observer);
  CHECK(pool.get(0).clock_offset_us == 250);
  CHECK(pool.get(1).clock_offset_us == -100);
  CHECK(std::abs(pool.get(2).clock_offset_us) <= 50);
  CHECK(pool.get(0).local_unix_us(1000) == kEpochUnixUs + 1250);
}

}  // namespace rlsim_test_instances
