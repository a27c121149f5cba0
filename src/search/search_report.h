#pragma once
// The search's report (docs/search.md#the-report): search.json, search.md and the trajectory
// chart (best value against runs). A pure function of the search's results: for a run budget the
// same bytes whatever the thread count (no wall-clock figures: the front end prints those).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/svg_chart.h"
#include "search/bounds.h"
#include "search/goal.h"
#include "search/shrink.h"

namespace rlsim {

struct SearchFindings {
  const SearchProblem* problem = nullptr;
  const SearchSettings* settings = nullptr;
  const SearchOutcome* search = nullptr;
  const ShrinkOutcome* shrunk = nullptr;        // null: not shrunk (--no-shrink)
  std::optional<AnalyticBound> bound;           // for the instances of the scenario searched
  std::string scenario_file = "scenario.json";  // the written shrunk scenario, relative
};

// The declared dimensions' values at `candidate`, as --set takes them ("instances.count=20").
std::vector<std::string> found_settings(const SearchProblem& problem, const Candidate& candidate);

// Whether the found value is above its bound (a bug in the bound or in the model).
bool above_bound(const SearchFindings& findings);

nlohmann::ordered_json search_json(const SearchFindings& findings);

// The chart of the best value against runs, with the bound as a dashed line when known.
Chart trajectory_chart(const SearchFindings& findings);

// search.md: what was searched, what was found (with the bound), the shrunk scenario, the
// starting points' values and the trajectory chart (trajectory.svg beside it).
std::string search_markdown(const SearchFindings& findings);

// The lines printed under the search on stdout: the value found, found/bound, the shrunk value
// and where it was written; an ABOVE THE BOUND line when above_bound.
std::string search_summary(const SearchFindings& findings);

// Goal seeking's chart: the worst value found over the parameter, the goal as a dashed line.
Chart goal_chart(const Goal& goal, const GoalRange& range, const GoalOutcome& outcome);

// Goal seeking's search.md and the lines printed on stdout.
std::string goal_markdown(const Goal& goal, const GoalRange& range, const GoalOutcome& outcome,
                          const std::string& label);
std::string goal_summary(const Goal& goal, const GoalRange& range, const GoalOutcome& outcome);

}  // namespace rlsim
