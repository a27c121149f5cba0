// search/search_report.h: the JSON and the lines printed, with the bound beside the finding and
// the loud line when a finding is above its bound.
#include <catch2/catch.hpp>

#include "search/search_report.h"

namespace rlsim_test_search_report {

using namespace rlsim;
using Catch::Contains;
using nlohmann::ordered_json;

namespace {

SearchProblem problem() {
  const ordered_json doc = {
      {"name", "r"},
      {"duration", "1s"},
      {"limits", {{{"name", "per_user"}, {"key", "user"}, {"limit", 10}, {"window", "1s"}}}},
      {"instances", {{"count", 2}}},
      {"traffic", {{{"name", "a"}, {"users", 1}, {"rate", "30/s"}}}},
      {"strategies", {"redis_fixed_window"}}};
  return make_problem(doc, "r.json", "redis_fixed_window", "rolling_overshoot", true, 1);
}

}  // namespace

TEST_CASE("the report shows found / bound, and says so loudly above the bound") {
  const SearchProblem p = problem();
  SearchSettings settings;
  settings.budget_runs = 10;
  SearchOutcome outcome;
  outcome.best_value = 1.5;
  outcome.runs = 10;
  outcome.best_origin = "burst across the 1s edge";
  outcome.trajectory = {{1, 1.0}, {4, 1.5}, {10, 1.5}};
  outcome.starts = {{"even spread, round robin", 1.0}};
  SearchFindings findings{&p, &settings, &outcome, nullptr, analytic_bound(p, 2)};
  const ordered_json json = search_json(findings);
  CHECK(json["found"] == 1.5);
  CHECK(json["bound"]["value"] == 2);
  CHECK(json["bound"]["found_over_bound"] == 0.75);
  CHECK(json["bound"]["above_bound"] == false);
  CHECK(json["trajectory"].size() == 3);
  CHECK(json["shrunk"].is_null());
  CHECK_THAT(search_summary(findings), !Contains("ABOVE THE BOUND"));
  CHECK(trajectory_chart(findings).series.size() == 2);  // the best found, the bound dashed
  outcome.best_value = 2.1;
  CHECK(above_bound(findings));
  CHECK_THAT(search_summary(findings), Contains("ABOVE THE BOUND: 2.1 > 2"));
  CHECK(search_json(findings)["bound"]["above_bound"] == true);
  CHECK_THAT(search_markdown(findings), Contains("trajectory.svg"));
}

}  // namespace rlsim_test_search_report
