#pragma once
// Goal seeking (docs/search.md#goal-seeking): `--goal "overshoot<=1.1" --over PATH=LO..HI` finds
// a value of one scenario field (a limit, kong's sync_rate, local_budget's batch, a flush period)
// that meets the goal under the worst case found. It searches the worst case at both ends of the
// range, runs the worst cases over the range (the curve in the report), bisects to the value
// nearest the end that fails, then searches the worst case again at that value; a worst case that
// breaks the goal there joins the others and the next round moves the value.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "search/dimension.h"
#include "search/search.h"

namespace rlsim {

struct Goal {
  std::string metric;
  bool at_most = true;  // METRIC<=X (true) or METRIC>=X
  double threshold = 0;
  std::string text;  // as given
};

// Parses "overshoot<=1.1" or "false_denials>=0" (also "<" and ">", read as "<=" and ">=").
// Throws ScenarioError ("--goal ...").
Goal parse_goal(const std::string& text);

bool meets(const Goal& goal, double value);

struct GoalPoint {
  double x = 0;
  std::string value;  // as set
  double metric = 0;  // the worst of the worst cases found, at this value
  bool meets = false;
};

struct GoalSettings {
  SearchSettings search;  // each worst-case search's settings (budget per search)
  std::size_t curve_points = 9;
  int bisect_steps = 6;
  int rounds = 5;      // verifying searches at most (then one at the safer end of the range)
  bool paced = false;  // the budget as a steady rate (SearchSpace::min_gap_us)
  std::vector<std::string> vary;  // --vary's dimensions (make_problem)
};

struct GoalOutcome {
  bool met = false;
  std::string value;  // the field's value returned ("" when no value meets the goal)
  double x = 0;
  double verified_worst = 0;     // the worst the last verifying search found at `value`
  std::vector<GoalPoint> curve;  // the last round's curve over the range
  std::vector<std::string> rounds;
  std::uint64_t runs = 0;
};

// Seeks `goal` over `range` for the strategy labelled `label` of `document` (at `file`), every
// run with `seed`. Throws ScenarioError (a path that does not apply, a metric that does not
// resolve) or RunError.
GoalOutcome seek_goal(const nlohmann::ordered_json& document, const std::string& file,
                      const std::string& label, std::uint64_t seed, const Goal& goal,
                      const GoalRange& range, const GoalSettings& settings,
                      const RunJobs& run_jobs);

// The goal's JSON for search.json: the goal, the range, the value, the curve and the rounds.
nlohmann::ordered_json goal_json(const Goal& goal, const GoalRange& range,
                                 const GoalOutcome& outcome);

}  // namespace rlsim
