// Multi-region (docs/regions.md): the G-counter's merge properties, the scenario fields, routing
// by region with roaming, and the headline numbers of scenarios/multi-region.json.
#include <catch2/catch.hpp>

#include "scenario/load.h"
#include "strategy/g_counter.h"
#include "test_util.h"
#include "world/instances.h"

namespace rlsim_test_regions {

using namespace rlsim;
using rlsim::testing::by_label;

namespace {

GCounter counter(std::vector<std::int64_t> slots) {
  GCounter c;
  for (std::size_t i = 0; i < slots.size(); ++i) c.increment(i, slots[i]);
  return c;
}

GCounter merged(GCounter a, const GCounter& b) {
  a.merge(b);
  return a;
}

std::string regions_scenario(const std::string& regions, const std::string& traffic_extra,
                             int count = 3) {
  return R"({"name": "t", "duration": "1m", "limits": [{"name": "l", "limit": 10, "window": "1s"}],
    "instances": {"count": )" +
         std::to_string(count) + R"(}, "regions": )" + regions + R"(,
    "traffic": [{"name": "u", "users": 4, "rate": "10/s")" +
         traffic_extra + R"(}], "strategies": ["region_local"]})";
}

const char* const kTwoRegions =
    R"({"home": "us", "list": [{"name": "eu", "instances": 1}, {"name": "us", "instances": 2}],
        "rtt": [["0ms", "80ms"], ["80ms", "1ms"]]})";

std::string error_of(const std::string& text) {
  try {
    parse_scenario(text, "t.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("G-counter: merge is idempotent, commutative, associative and monotonic") {
  const GCounter a = counter({3, 0, 5});
  const GCounter b = counter({1, 4});
  const GCounter c = counter({0, 2, 7, 1});
  CHECK(merged(a, a) == a);                                   // idempotent
  CHECK(merged(a, b) == merged(b, a));                        // commutative
  CHECK(merged(merged(a, b), c) == merged(a, merged(b, c)));  // associative
  CHECK(merged(merged(a, b), b) == merged(a, b));             // a repeated delivery
  CHECK(merged(a, b).value() == 3 + 4 + 5);                   // max per slot, summed
  CHECK(merged(merged(a, b), c).value() == 3 + 4 + 7 + 1);
  for (const GCounter& x : {a, b, c}) {
    const GCounter m = merged(merged(a, b), c);
    CHECK(m.value() >= x.value());  // monotonic: a merge never loses what a replica had
    for (std::size_t slot = 0; slot < 4; ++slot) CHECK(m.slot(slot) >= x.slot(slot));
  }
  // Replicas that see the same updates in any order agree.
  GCounter r1, r2;
  r1.merge(a);
  r1.merge(c);
  r1.merge(b);
  r2.merge(b);
  r2.merge(a);
  r2.merge(c);
  r2.merge(a);
  CHECK(r1 == r2);
  CHECK(GCounter(2) == GCounter());  // missing slots are 0
}

TEST_CASE("scenario: regions, the RTT matrix and the traffic's region and roaming") {
  const Scenario s =
      parse_scenario(regions_scenario(kTwoRegions, R"(, "region": "us", "roaming": 0.25)"), "t");
  REQUIRE(s.regions.enabled());
  CHECK(s.regions.home == 1);
  CHECK(s.regions.rtt[0][1] == 80'000);
  CHECK(s.regions.rtt[1][1] == 1000);
  CHECK(s.instances.regions == std::vector<std::uint32_t>{0, 1, 1});
  CHECK(s.traffic[0].region == 1);
  CHECK(s.traffic[0].roaming == 0.25);
  CHECK(s.traffic[0].region_count == 2);

  CHECK_THAT(error_of(regions_scenario(kTwoRegions, "", 4)),
             Catch::Contains("instances.count: expected 3, the sum of the regions' instances"));
  CHECK_THAT(error_of(regions_scenario(kTwoRegions, R"(, "region": "ap")")),
             Catch::Contains("traffic[0].region: unknown region \"ap\" (expected one of: eu, us)"));
  CHECK_THAT(error_of(regions_scenario(
                 R"({"list": [{"name": "eu", "instances": 3}], "rtt": [["0ms", "1ms"]]})", "")),
             Catch::Contains("regions.rtt[0]: expected 1 durations"));
  CHECK_THAT(error_of(R"({"name": "t", "duration": "1m",
      "limits": [{"name": "l", "limit": 10, "window": "1s"}], "instances": {"count": 1},
      "traffic": [{"name": "u", "rate": "1/s", "roaming": 0.5}], "strategies": ["region_local"]})"),
             Catch::Contains("traffic[0].region: region and roaming need a top-level"));
  CHECK_THAT(error_of(regions_scenario(kTwoRegions, R"(, "roaming": 1.5)")),
             Catch::Contains("traffic[0].roaming: expected a share from 0 to 1"));
}

TEST_CASE("routing: a request reaches an instance of its region; roaming moves the given share") {
  const Scenario s =
      parse_scenario(regions_scenario(kTwoRegions, R"(, "region": "eu", "roaming": 0.25)"), "t");
  const auto result = rlsim::testing::run_text(s);
  REQUIRE(by_label(result, "region_local").regions);
  const auto& regions = *by_label(result, "region_local").regions;
  REQUIRE(regions.size() == 2);
  const double offered = static_cast<double>(by_label(result, "region_local").totals.offered);
  const auto us = static_cast<double>(regions[1].offered);
  CHECK(us / offered == Approx(0.25).margin(0.02));
  CHECK(static_cast<double>(regions[0].offered) + us == offered);
  CHECK(regions[1].home);
}

TEST_CASE("multi-region.json: local over, global exact and slow, CRDT by replication delay") {
  Scenario s = load_scenario(std::string(RLSIM_SOURCE_DIR) + "/scenarios/multi-region.json");
  const auto result = rlsim::testing::run_text(s);
  const auto& local = by_label(result, "region_local");
  const auto& global = by_label(result, "global_redis");
  CHECK(local.totals.limits[0].overshoot >= 1.8);
  CHECK(global.totals.limits[0].overshoot == Approx(1.0));
  CHECK(global.totals.limits[0].excess == 0);
  // eu is home: its requests stay fast; us and ap add 80 and 150 ms.
  REQUIRE(global.regions);
  CHECK(global.regions->at(0).latency_us.p50 < 2000);
  CHECK(global.regions->at(1).latency_us.p50 >= 80'000);
  CHECK(global.regions->at(2).latency_us.p50 >= 150'000);
  const std::int64_t crdt_short = by_label(result, "crdt_100ms").totals.limits[0].excess;
  const std::int64_t crdt_long = by_label(result, "crdt_10s").totals.limits[0].excess;
  CHECK(crdt_short < crdt_long);
  CHECK(crdt_long < local.totals.limits[0].excess);

  // Replication with no delay: every region sees every admission before the next decision.
  s.strategies.resize(1);
  s.strategies[0].name = "crdt_counter";
  s.strategies[0].label = "crdt_0";
  s.strategies[0].params = {{"replication_delay", "0us"}};
  s.expectations.clear();
  const auto instant = rlsim::testing::run_text(s);
  CHECK(by_label(instant, "crdt_0").totals.limits[0].excess == 0);
}

}  // namespace rlsim_test_regions
