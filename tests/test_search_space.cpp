// search/space.h: the default search space taken from a scenario (the attacker's budget, the
// instances, each fault's range) and the scenarios it refuses.
#include <catch2/catch.hpp>

#include "scenario/load.h"
#include "search/space.h"

namespace rlsim_test_search_space {

using namespace rlsim;
using Catch::Contains;

namespace {

const char* const kScenario = R"({
  "name": "space", "seed": 1, "duration": "2s",
  "limits": [{"name": "per_user", "key": "user", "limit": 10, "window": "1s"}],
  "instances": {"count": 4},
  "traffic": [{"name": "a", "users": 2, "rate": "15/s"}, {"name": "b", "users": 1, "rate": "10/s"}],
  "faults": [{"type": "redis_down", "at": "500ms", "for": "300ms"}],
  "strategies": ["redis_fixed_window"]
})";

}  // namespace

TEST_CASE("the default space: the scenario's rate as the budget, its instances and faults") {
  const Scenario scenario = parse_scenario(kScenario, "space.json");
  const SearchSpace space = default_space(scenario);
  CHECK(space.budget_per_s == 40.0);  // 2 x 15 + 10
  CHECK(space.requests == 80);        // 40/s for 2 s
  CHECK(space.instances == 4);
  REQUIRE(space.faults.size() == 1);
  CHECK(space.faults[0].earliest_us == 0);
  CHECK(space.faults[0].latest_us == 2 * kUsPerS - 300 * kUsPerMs - 1);  // ends inside the run
  // The window and its refill edge (1 s / 10).
  CHECK(space.periods_us == std::vector<DurationUs>{100 * kUsPerMs, kUsPerS});
  const Candidate empty = empty_candidate(scenario, space);
  CHECK(empty.fault_at_us == std::vector<TimeUs>{500 * kUsPerMs});
  CHECK(empty.arrivals.empty());
}

TEST_CASE("normalize sorts arrivals by time, then instance") {
  Candidate c;
  c.arrivals = {{5, 1}, {3, 2}, {5, 0}};
  normalize(c);
  CHECK(c.arrivals == std::vector<SearchArrival>{{3, 2}, {5, 0}, {5, 1}});
}

TEST_CASE("a scenario that scales is searched with its requests routed by the balancer") {
  std::string text = kScenario;
  text.replace(text.find("\"instances\": {\"count\": 4}"), 25,
               R"("instances": {"count": 4, "schedule": [{"at": "1s", "count": 6}]})");
  const Scenario scaled = parse_scenario(text, "scaled.json");
  CHECK_FALSE(default_space(scaled).pinned);
  CHECK(default_space(parse_scenario(kScenario, "space.json")).pinned);
}

namespace {

SearchSpace declared(const std::vector<std::string>& texts) {
  const auto document = nlohmann::ordered_json::parse(kScenario);
  const Scenario scenario = parse_scenario(kScenario, "space.json");
  SearchSpace space = default_space(scenario);
  std::vector<SearchDimension> dimensions;
  for (const std::string& text : texts) dimensions.push_back(parse_dimension("--vary", text));
  declare_dimensions(document, scenario, dimensions, space);
  return space;
}

}  // namespace

TEST_CASE("declared dimensions: instances, a fault's start range, fields and routing") {
  const SearchSpace space =
      declared({"instances.count=2..10", "faults[0].at=100ms..1s",
                "load_balancer.policy=round_robin|random", "faults[0].for=100ms..400ms"});
  REQUIRE(space.instance_range);
  CHECK(space.instance_range->hi == 10);
  CHECK(space.instances == 4);  // the scenario's count, inside the range
  CHECK(space.faults[0].earliest_us == 100 * kUsPerMs);
  CHECK(space.faults[0].latest_us == kUsPerS);
  REQUIRE(space.fields.size() == 2);
  CHECK(space.base_params == std::vector<double>{0, 300'000});  // round_robin's default: LO
  CHECK_FALSE(space.pinned);                                    // the balancer routes requests
  CHECK(space.declared.size() == 4);
  CHECK(declared({"instances.count=2..10"}).pinned);
}

TEST_CASE("a declared dimension whose values the scenario refuses names its source") {
  CHECK_THROWS_WITH(declared({"faults[0].start=1s..2s"}),
                    Contains("--vary faults[0].start=1s..2s: at 1s:") &&
                        Contains("faults[0].start: unknown field"));
  CHECK_THROWS_WITH(declared({"faults[3].at=1s..2s"}), Contains("no [3]"));
  CHECK_THROWS_WITH(declared({"instances.count=2..20000"}), Contains("at 20000"));
  CHECK_THROWS_WITH(declared({"load_balancer.policy=round_robin|least_conn"}),
                    Contains("at least_conn") && Contains("least_inflight"));
  CHECK_THROWS_WITH(declared({"strategies[0].batch=1s..2s"}), Contains("strategies[0]"));
  // The loader refuses a fault that would end after the run: named with the dimension.
  CHECK_THROWS_WITH(
      declared({"faults[0].at=1900ms..1950ms"}),
      Contains("--vary faults[0].at=1900ms..1950ms: at 1.9s:") && Contains("faults[0].for"));
}

TEST_CASE("set_instances moves requests above the count to instance % count") {
  Candidate c;
  c.instances = 10;
  c.arrivals = {{0, 9}, {1, 3}, {2, 5}};
  set_instances(c, 4);
  CHECK(c.instances == 4);
  CHECK(c.arrivals == std::vector<SearchArrival>{{0, 1}, {1, 3}, {2, 1}});
}

}  // namespace rlsim_test_search_space
