#include "search/search_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/expect.h"

namespace rlsim {

using nlohmann::ordered_json;

bool above_bound(const SearchFindings& f) {
  // The report rounds ratios to 4 decimals; a bound is above by more than that rounding.
  return f.bound && f.search->best_value > f.bound->value + 5e-5;
}

namespace {

ordered_json bound_json(const SearchFindings& f) {
  if (!f.bound) return nullptr;
  const double found = f.search->best_value;
  return {{"value", f.bound->value},
          {"formula", f.bound->formula},
          {"found_over_bound", f.bound->value == 0 ? 0.0 : found / f.bound->value},
          {"above_bound", above_bound(f)}};
}

ordered_json shrunk_json(const SearchFindings& f) {
  if (f.shrunk == nullptr) return nullptr;
  const ShrinkOutcome& s = *f.shrunk;
  return {{"value", s.value},
          {"requests", s.candidate.arrivals.size()},
          {"instances", s.candidate.instances},
          {"duration_us", s.candidate.duration_us},
          {"runs", s.runs},
          {"steps", s.steps},
          {"scenario", f.scenario_file}};
}

}  // namespace

std::vector<std::string> found_settings(const SearchProblem& problem, const Candidate& candidate) {
  std::vector<std::string> out;
  if (problem.space.instance_range)
    out.push_back(fmt::format("instances.count={}", candidate.instances));
  for (std::size_t i = 0; i < problem.space.fields.size(); ++i)
    out.push_back(problem.space.fields[i].range.path + "=" +
                  dimension_value_text(problem.space.fields[i], candidate.params[i]));
  return out;
}

ordered_json search_json(const SearchFindings& f) {
  const SearchProblem& p = *f.problem;
  const SearchOutcome& o = *f.search;
  ordered_json trajectory = ordered_json::array();
  for (const TrajectoryPoint& point : o.trajectory)
    trajectory.push_back({{"runs", point.runs}, {"best", point.best}});
  ordered_json starts = ordered_json::array();
  for (const auto& [name, value] : o.starts) starts.push_back({{"name", name}, {"value", value}});
  return {{"scenario", p.scenario.name},
          {"strategy", p.strategy.label},
          {"metric", p.metric},
          {"direction", p.maximize ? "maximize" : "minimize"},
          {"seed", p.seed},
          {"search_seed", f.settings->seed},
          {"budget_runs", f.settings->budget_runs},
          {"space",
           {{"requests", p.space.requests},
            {"budget_per_s", p.space.budget_per_s},
            {"duration_us", p.space.duration_us},
            {"instances", p.space.instances},
            {"faults", p.space.faults.size()},
            {"dimensions", p.space.declared},
            {"pinned", p.space.pinned}}},
          {"runs", o.runs},
          {"invalid_runs", o.invalid},
          {"restarts", o.restarts},
          {"stopped_early", o.stopped},
          {"found", o.best_value},
          {"found_from", o.best_origin},
          {"found_at", found_settings(p, o.best)},
          {"bound", bound_json(f)},
          {"no_bound", f.bound ? ordered_json(nullptr) : ordered_json(no_bound_reason(p))},
          {"shrunk", shrunk_json(f)},
          {"starting_points", starts},
          {"trajectory", trajectory}};
}

Chart trajectory_chart(const SearchFindings& f) {
  Chart chart;
  chart.id = "search-trajectory";
  chart.title = fmt::format("{} of {}: best found against runs", f.problem->metric,
                            f.problem->strategy.label);
  chart.x_label = "runs";
  chart.y_label = f.problem->metric;
  const auto& palette = chart_palette();
  ChartSeries best{"best found", palette[0], {}, true, false};
  for (const TrajectoryPoint& point : f.search->trajectory)
    best.points.emplace_back(static_cast<double>(point.runs), point.best);
  chart.series.push_back(std::move(best));
  if (f.bound) {
    const double last = static_cast<double>(f.search->runs);
    chart.series.push_back(ChartSeries{"analytic bound",
                                       palette[1],
                                       {{0.0, f.bound->value}, {last, f.bound->value}},
                                       false,
                                       true});
  }
  return chart;
}

std::string search_summary(const SearchFindings& f) {
  const SearchProblem& p = *f.problem;
  const SearchOutcome& o = *f.search;
  std::string out = fmt::format("{} {}: {} {} after {} runs (from {}){}\n", p.strategy.label,
                                p.metric, p.maximize ? "max" : "min", format_number(o.best_value),
                                o.runs, o.best_origin, o.stopped ? ", stopped early" : "");
  if (const auto at = found_settings(p, o.best); !at.empty())
    out += fmt::format("at {}\n", fmt::join(at, ", "));
  if (f.bound)
    out += fmt::format("bound: {} ({}); found/bound {:.3f}\n", format_number(f.bound->value),
                       f.bound->formula, o.best_value / f.bound->value);
  else
    out += fmt::format("bound: no stated bound ({})\n", no_bound_reason(p));
  if (above_bound(f))
    out += fmt::format(
        "ABOVE THE BOUND: {} > {}: the bound or the model is wrong; the shrunk scenario "
        "reproduces it\n",
        format_number(o.best_value), format_number(f.bound->value));
  if (f.shrunk != nullptr)
    out += fmt::format("shrunk: {} requests, {} instance(s), {} run: {} {} ({} shrink runs)\n",
                       f.shrunk->candidate.arrivals.size(), f.shrunk->candidate.instances,
                       format_duration(f.shrunk->candidate.duration_us), p.metric,
                       format_number(f.shrunk->value), f.shrunk->runs);
  return out;
}

std::string search_markdown(const SearchFindings& f) {
  const SearchProblem& p = *f.problem;
  const SearchOutcome& o = *f.search;
  std::string out =
      fmt::format("# Search: {} of `{}` in {}\n\n", p.metric, p.strategy.label, p.scenario.name);
  out += fmt::format(
      "{} `{}` over {} requests of one key (the scenario's {}/s for {}), {} instance(s), {} "
      "fault start(s); seed {}, {} runs of a budget of {}.\n\n",
      p.maximize ? "Maximized" : "Minimized", p.metric, p.space.requests,
      format_number(p.space.budget_per_s), format_duration(p.space.duration_us), p.space.instances,
      p.space.faults.size(), p.seed, o.runs, f.settings->budget_runs);
  out += "```\n" + search_summary(f) + "```\n\n";
  if (f.shrunk != nullptr) {
    out += fmt::format(
        "The shrunk case is [{}]({}) with its request list; `rlsim check {}` "
        "reruns it. Shrinking steps:\n\n",
        f.scenario_file, f.scenario_file, f.scenario_file);
    for (const std::string& step : f.shrunk->steps) out += "- " + step + "\n";
    out += "\n";
  }
  out += "| starting point | value |\n|---|---|\n";
  for (const auto& [name, value] : o.starts)
    out += fmt::format("| {} | {} |\n", name, format_number(value));
  out += "\n![best found against runs](trajectory.svg)\n";
  return out;
}

Chart goal_chart(const Goal& goal, const GoalRange& range, const GoalOutcome& outcome) {
  Chart chart;
  chart.id = "goal-curve";
  chart.title = fmt::format("worst {} found, over {}", goal.metric, range.path);
  const bool duration = range.kind == GoalRange::Kind::kDuration;
  chart.x_label = duration ? range.path + " (ms)" : range.path;
  chart.y_label = goal.metric;
  const auto& palette = chart_palette();
  ChartSeries worst{"worst found", palette[0], {}, false, false};
  for (const GoalPoint& point : outcome.curve)
    worst.points.emplace_back(duration ? point.x / kUsPerMs : point.x, point.metric);
  const double first = worst.points.empty() ? 0 : worst.points.front().first;
  const double last = worst.points.empty() ? 0 : worst.points.back().first;
  chart.series.push_back(std::move(worst));
  chart.series.push_back(ChartSeries{"goal " + goal.text,
                                     palette[1],
                                     {{first, goal.threshold}, {last, goal.threshold}},
                                     false,
                                     true});
  return chart;
}

std::string goal_summary(const Goal& goal, const GoalRange& range, const GoalOutcome& outcome) {
  std::string out;
  for (const std::string& round : outcome.rounds) out += round + "\n";
  if (outcome.met)
    out +=
        fmt::format("goal {} met with {}={} (worst found there: {}), {} runs\n", goal.text,
                    range.path, outcome.value, format_number(outcome.verified_worst), outcome.runs);
  else
    out += fmt::format("goal {} not met over {} ({} runs)\n", goal.text, range.path, outcome.runs);
  return out;
}

std::string goal_markdown(const Goal& goal, const GoalRange& range, const GoalOutcome& outcome,
                          const std::string& label) {
  std::string out = fmt::format("# Goal: {} for `{}` over `{}`\n\n", goal.text, label, range.path);
  out += "```\n" + goal_summary(goal, range, outcome) + "```\n\n";
  out += fmt::format("| {} | worst {} found | meets {} |\n|---|---|---|\n", range.path, goal.metric,
                     goal.text);
  for (const GoalPoint& point : outcome.curve)
    out += fmt::format("| {} | {} | {} |\n", point.value, format_number(point.metric),
                       point.meets ? "yes" : "no");
  out += "\n![the worst case found over the parameter](goal-curve.svg)\n";
  return out;
}

}  // namespace rlsim
