#include "search/goal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/expect.h"
#include "scenario/error.h"
#include "scenario/setting_path.h"

namespace rlsim {

using nlohmann::ordered_json;

namespace {

// A field's value as --set shows it: a string bare ("250ms"), a number as its JSON.
std::string value_text(const ordered_json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace

Goal parse_goal(const std::string& text) {
  const auto at = text.find_first_of("<>");
  Goal goal;
  goal.text = text;
  if (at == std::string::npos || at == 0)
    throw ScenarioError(fmt::format("--goal {}: expected METRIC<=X or METRIC>=X", text));
  goal.metric = text.substr(0, at);
  goal.at_most = text[at] == '<';
  const std::size_t number_at = at + (at + 1 < text.size() && text[at + 1] == '=' ? 2 : 1);
  const auto threshold = parse_number_text(text.substr(number_at));
  if (!threshold)
    throw ScenarioError(
        fmt::format("--goal {}: \"{}\" is not a number", text, text.substr(number_at)));
  goal.threshold = *threshold;
  return goal;
}

bool meets(const Goal& goal, double value) {
  return goal.at_most ? value <= goal.threshold : value >= goal.threshold;
}

namespace {

class GoalSeeker {
 public:
  GoalSeeker(const ordered_json& document, const std::string& file, const std::string& label,
             std::uint64_t seed, const Goal& goal, const GoalRange& range,
             const GoalSettings& settings, const RunJobs& run_jobs)
      : document_(document),
        file_(file),
        label_(label),
        seed_(seed),
        goal_(goal),
        range_(range),
        settings_(settings),
        run_jobs_(run_jobs) {}

  GoalOutcome run();

 private:
  SearchProblem problem_at(double x) const;
  // The worst case found at x by one search (the search's seed varies by round).
  SearchOutcome search_at(double x, int round);
  // The worst value of the worst cases at each x.
  std::vector<double> worst_at(const std::vector<double>& xs);
  double hard_end() const;
  double bisect(double meeting_x, double failing_x);
  GoalOutcome verify_safe_end(double safe);

  const ordered_json& document_;
  const std::string& file_;
  const std::string& label_;
  std::uint64_t seed_;
  const Goal& goal_;
  const GoalRange& range_;
  const GoalSettings& settings_;
  const RunJobs& run_jobs_;
  std::vector<Candidate> worst_;
  double lo_worst_ = 0, hi_worst_ = 0;
  GoalOutcome out_;
};

SearchProblem GoalSeeker::problem_at(double x) const {
  ordered_json document = document_;
  apply_setting(document, range_.path, range_value(range_, x));
  // The worst case for METRIC<=X is the largest value.
  return make_problem(document, file_, label_, goal_.metric, goal_.at_most, seed_, settings_.paced,
                      settings_.vary);
}

SearchOutcome GoalSeeker::search_at(double x, int round) {
  const SearchProblem problem = problem_at(x);
  SearchSettings settings = settings_.search;
  settings.seed = settings_.search.seed + static_cast<std::uint64_t>(round);
  SearchOutcome found = run_search(problem, settings, run_jobs_);
  out_.runs += found.runs;
  worst_.push_back(found.best);
  return found;
}

std::vector<double> GoalSeeker::worst_at(const std::vector<double>& xs) {
  std::vector<SearchProblem> problems;
  problems.reserve(xs.size());
  for (const double x : xs) problems.push_back(problem_at(x));
  std::vector<double> values(xs.size() * worst_.size());
  run_jobs_(values.size(), [&](std::size_t i) {
    values[i] = evaluate(problems[i / worst_.size()], worst_[i % worst_.size()]);
  });
  out_.runs += values.size();
  std::vector<double> worst(xs.size());
  for (std::size_t p = 0; p < xs.size(); ++p) {
    const auto first = values.begin() + static_cast<std::ptrdiff_t>(p * worst_.size());
    const auto last = first + static_cast<std::ptrdiff_t>(worst_.size());
    worst[p] = goal_.at_most ? *std::max_element(first, last) : *std::min_element(first, last);
  }
  return worst;
}

double GoalSeeker::hard_end() const {
  const bool hi_worse = goal_.at_most ? hi_worst_ >= lo_worst_ : hi_worst_ <= lo_worst_;
  return hi_worse ? range_.hi : range_.lo;
}

// Narrows [meeting_x, failing_x] around where the goal stops being met; the meeting end.
double GoalSeeker::bisect(double meeting_x, double failing_x) {
  for (int step = 0; step < settings_.bisect_steps; ++step) {
    const double middle = snap(range_, (meeting_x + failing_x) / 2);
    if (middle == meeting_x || middle == failing_x) break;
    (meets(goal_, worst_at({middle})[0]) ? meeting_x : failing_x) = middle;
  }
  return meeting_x;
}

GoalOutcome GoalSeeker::run() {
  lo_worst_ = search_at(range_.lo, 0).best_value;
  hi_worst_ = search_at(range_.hi, 0).best_value;
  const double hard = hard_end(), safe = hard == range_.hi ? range_.lo : range_.hi;
  for (int round = 1; round <= settings_.rounds; ++round) {
    std::vector<double> xs;
    for (std::size_t i = 0; i < settings_.curve_points; ++i)
      xs.push_back(range_.lo + (range_.hi - range_.lo) * static_cast<double>(i) /
                                   static_cast<double>(settings_.curve_points - 1));
    for (double& x : xs) x = snap(range_, x);
    const std::vector<double> worst = worst_at(xs);
    out_.curve.clear();
    for (std::size_t i = 0; i < xs.size(); ++i)
      out_.curve.push_back(
          {xs[i], value_text(range_value(range_, xs[i])), worst[i], meets(goal_, worst[i])});
    // Walk from the safe end towards the hard end: the last value that meets before one fails.
    std::vector<std::size_t> order(xs.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = safe == range_.lo ? i : order.size() - 1 - i;
    if (!out_.curve[order[0]].meets) {
      out_.rounds.push_back(fmt::format("round {}: even {}={} breaks the goal ({} {})", round,
                                        range_.path, out_.curve[order[0]].value, goal_.metric,
                                        format_number(worst[order[0]])));
      out_.met = false;
      return out_;
    }
    std::size_t k = 0;
    while (k + 1 < order.size() && out_.curve[order[k + 1]].meets) ++k;
    const double x = k + 1 < order.size() ? bisect(xs[order[k]], xs[order[k + 1]]) : xs[order[k]];
    const SearchOutcome verify = search_at(x, round);
    out_.x = x;
    out_.value = value_text(range_value(range_, x));
    out_.verified_worst = verify.best_value;
    out_.met = meets(goal_, verify.best_value);
    out_.rounds.push_back(
        fmt::format("round {}: {}={} from the curve; a search there found {} {}{}", round,
                    range_.path, out_.value, goal_.metric, format_number(verify.best_value),
                    out_.met ? ": the goal holds" : ": broken, searching again"));
    if (out_.met) return out_;
  }
  return verify_safe_end(safe);
}

// The rounds ran out: the safe end itself, if a search there keeps the goal.
GoalOutcome GoalSeeker::verify_safe_end(double safe) {
  const SearchOutcome verify = search_at(safe, settings_.rounds + 1);
  out_.x = safe;
  out_.value = value_text(range_value(range_, safe));
  out_.verified_worst = verify.best_value;
  out_.met = meets(goal_, verify.best_value);
  out_.rounds.push_back(
      fmt::format("last: {}={}, the end of the range that fails least; a search "
                  "there found {} {}{}",
                  range_.path, out_.value, goal_.metric, format_number(verify.best_value),
                  out_.met ? ": the goal holds" : ": broken"));
  return out_;
}

}  // namespace

GoalOutcome seek_goal(const ordered_json& document, const std::string& file,
                      const std::string& label, std::uint64_t seed, const Goal& goal,
                      const GoalRange& range, const GoalSettings& settings,
                      const RunJobs& run_jobs) {
  GoalSeeker seeker(document, file, label, seed, goal, range, settings, run_jobs);
  return seeker.run();
}

ordered_json goal_json(const Goal& goal, const GoalRange& range, const GoalOutcome& outcome) {
  ordered_json curve = ordered_json::array();
  for (const GoalPoint& p : outcome.curve)
    curve.push_back({{"value", p.value}, {"x", p.x}, {"worst", p.metric}, {"meets", p.meets}});
  return {{"goal", goal.text},
          {"over", range.path},
          {"met", outcome.met},
          {"value", outcome.value},
          {"verified_worst", outcome.verified_worst},
          {"runs", outcome.runs},
          {"rounds", outcome.rounds},
          {"curve", curve}};
}

}  // namespace rlsim
