// search/goal.h: parsing --goal and --over, and a goal search on kong's sync_rate whose returned
// value meets the goal when the worst case is searched again there.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "scenario/setting_path.h"
#include "search/goal.h"

namespace rlsim_test_search_goal {

using namespace rlsim;
using Catch::Contains;
using nlohmann::ordered_json;

TEST_CASE("--goal and --over parse") {
  const Goal goal = parse_goal("overshoot<=1.1");
  CHECK(goal.metric == "overshoot");
  CHECK(goal.at_most);
  CHECK(goal.threshold == 1.1);
  CHECK_FALSE(parse_goal("false_denials>=3").at_most);
  CHECK(meets(goal, 1.1));
  CHECK_FALSE(meets(goal, 1.2));
  CHECK_THROWS_WITH(parse_goal("overshoot"), Contains("METRIC<=X"));
  CHECK_THROWS_WITH(parse_goal("overshoot<=x"), Contains("not a number"));
  const GoalRange durations = parse_over("strategies[0].sync_rate=20ms..2s");
  CHECK(durations.kind == GoalRange::Kind::kDuration);
  CHECK(durations.lo == 20'000);
  CHECK(range_value(durations, 250'000) == "250ms");
  CHECK(snap(durations, 142'500) == 143'000);  // whole milliseconds, as LO and HI are
  CHECK(snap(parse_over("a=20us..1s"), 142'500) == 142'500);
  const GoalRange integers = parse_over("strategies[1].batch=10..200");
  CHECK(integers.kind == GoalRange::Kind::kInteger);
  CHECK(range_value(integers, 54.6) == 55);
  CHECK_THROWS_WITH(parse_over("a=5..1"), Contains("below"));
  CHECK_THROWS_WITH(parse_over("a=1"), Contains("PATH=LO..HI"));
}

TEST_CASE("a sync_rate that meets the goal under the worst case found") {
  const std::string path = std::string(RLSIM_SOURCE_DIR) + "/scenarios/search/attack.json";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const auto document = ordered_json::parse(text.str(), nullptr, true, true);
  const Goal goal = parse_goal("overshoot<=1.5");
  const GoalRange range = parse_over("strategies[5].sync_rate=20ms..1s");
  GoalSettings settings;
  settings.search.budget_runs = 60;
  settings.paced = true;  // a burst defeats any sync_rate: each node admits L before it syncs
  const GoalOutcome out =
      seek_goal(document, path, "kong_sync", 1, goal, range, settings, run_jobs_in_order);
  REQUIRE(out.met);
  CHECK(out.curve.size() == settings.curve_points);
  // Rerun: a fresh search at the value returned stays within the goal.
  ordered_json at_value = document;
  apply_setting(at_value, range.path, range_value(range, out.x));
  const SearchProblem problem =
      make_problem(at_value, path, "kong_sync", "overshoot", true, 1, /*paced=*/true);
  SearchSettings again;
  again.budget_runs = 60;
  again.seed = 99;
  CHECK(run_search(problem, again, run_jobs_in_order).best_value <= 1.5);
}

}  // namespace rlsim_test_search_goal
