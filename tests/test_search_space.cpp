// search/space.h: the default search space taken from a scenario (the attacker's budget, the
// instances, each fault's range) and the scenarios it refuses.
#include <catch2/catch.hpp>

#include "scenario/load.h"
#include "search/space.h"

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

TEST_CASE("a scenario that replays a log or scales cannot be searched") {
  std::string text = kScenario;
  text.replace(text.find("\"instances\": {\"count\": 4}"), 25,
               R"("instances": {"count": 4, "schedule": [{"at": "1s", "count": 6}]})");
  const Scenario scaled = parse_scenario(text, "scaled.json");
  CHECK_THROWS_WITH(default_space(scaled), Contains("instance schedule"));
}
