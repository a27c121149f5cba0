#include "search/dimension.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/parse_double.h"
#include "core/time.h"
#include "scenario/error.h"
#include "scenario/load.h"

namespace rlsim {

using nlohmann::ordered_json;

std::optional<double> parse_number_text(const std::string& text) {
  double value = 0;
  const auto [end, error] = from_chars_double(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

GoalRange parse_range(const std::string& option, const std::string& text, bool allow_negative) {
  const auto equals = text.find('=');
  const auto dots = text.find("..");
  if (equals == std::string::npos || equals == 0 || dots == std::string::npos || dots < equals)
    throw ScenarioError(fmt::format(
        "{} {}: expected PATH=LO..HI (e.g. strategies[0].sync_rate=20ms..2s)", option, text));
  GoalRange range;
  range.path = text.substr(0, equals);
  const std::string lo = text.substr(equals + 1, dots - equals - 1), hi = text.substr(dots + 2);
  const auto lo_number = parse_number_text(lo), hi_number = parse_number_text(hi);
  if (lo_number && hi_number) {
    range.lo = *lo_number;
    range.hi = *hi_number;
    const bool whole = std::floor(range.lo) == range.lo && std::floor(range.hi) == range.hi &&
                       lo.find('.') == std::string::npos && hi.find('.') == std::string::npos;
    range.kind = whole ? GoalRange::Kind::kInteger : GoalRange::Kind::kNumber;
    range.step = whole ? 1 : 0;
  } else if (const auto lo_us = parse_duration(lo, allow_negative),
             hi_us = parse_duration(hi, allow_negative);
             lo_us && hi_us) {
    range.lo = static_cast<double>(*lo_us);
    range.hi = static_cast<double>(*hi_us);
    range.kind = GoalRange::Kind::kDuration;
    range.step = *lo_us % kUsPerMs == 0 && *hi_us % kUsPerMs == 0 ? kUsPerMs : 1;
  } else {
    throw ScenarioError(fmt::format(
        "{} {}: LO and HI must both be numbers or both durations (with units: 10ms..2s)", option,
        text));
  }
  if (!(range.lo < range.hi))
    throw ScenarioError(fmt::format("{} {}: LO must be below HI", option, text));
  return range;
}

GoalRange parse_over(const std::string& text) { return parse_range("--over", text, false); }

double snap(const GoalRange& range, double x) {
  return range.step > 0 ? std::round(x / range.step) * range.step : x;
}

ordered_json range_value(const GoalRange& range, double x) {
  switch (range.kind) {
    case GoalRange::Kind::kInteger:
      return static_cast<std::int64_t>(std::llround(x));
    case GoalRange::Kind::kDuration:
      return format_duration(static_cast<DurationUs>(std::llround(x)));
    case GoalRange::Kind::kNumber:
      break;
  }
  return x;
}

namespace {

// "faults[3].at": the fault's index, or nullopt for any other path.
std::optional<std::size_t> fault_start_index(const std::string& path) {
  const auto steps = parse_metric_path(path);
  if (!steps || steps->size() != 3 || (*steps)[0].name != "faults" || !(*steps)[1].is_index ||
      (*steps)[2].name != "at")
    return std::nullopt;
  return (*steps)[1].index;
}

ordered_json choice_value(const std::string& text) {
  if (text == "true" || text == "false") return text == "true";
  if (const auto number = parse_number_text(text)) {
    if (std::floor(*number) == *number && text.find_first_of(".eE") == std::string::npos)
      return static_cast<std::int64_t>(*number);
    return *number;
  }
  return text;
}

std::vector<ordered_json> parse_choices(const std::string& where, const std::string& text,
                                        const std::string& spec) {
  std::vector<ordered_json> choices;
  std::size_t from = 0;
  while (true) {
    const std::size_t bar = spec.find('|', from);
    const std::string choice = spec.substr(from, bar == std::string::npos ? bar : bar - from);
    if (choice.empty())
      throw ScenarioError(fmt::format("{} {}: an empty choice (expected A|B|C)", where, text));
    if (std::find(choices.begin(), choices.end(), choice_value(choice)) != choices.end())
      throw ScenarioError(fmt::format("{} {}: \"{}\" is given twice", where, text, choice));
    choices.push_back(choice_value(choice));
    if (bar == std::string::npos) break;
    from = bar + 1;
  }
  if (choices.size() < 2)
    throw ScenarioError(fmt::format("{} {}: expected at least two choices (A|B)", where, text));
  return choices;
}

}  // namespace

SearchDimension parse_dimension(const std::string& where, const std::string& text) {
  SearchDimension d;
  d.where = where + " " + text;
  d.text = text;
  const auto equals = text.find('=');
  const std::string spec = equals == std::string::npos ? "" : text.substr(equals + 1);
  if (equals != std::string::npos && spec.find('|') != std::string::npos &&
      spec.find("..") == std::string::npos) {
    d.range.path = text.substr(0, equals);
    if (d.range.path.empty())
      throw ScenarioError(fmt::format("{} {}: expected PATH=A|B|C", where, text));
    d.choices = parse_choices(where, text, spec);
  } else {
    // Durations may be negative: clock offsets are.
    d.range = parse_range(where, text, /*allow_negative=*/true);
  }
  if (!parse_metric_path(d.range.path))
    throw ScenarioError(
        fmt::format("{} {}: \"{}\" is not a path (instances.count, "
                    "faults[0].at, strategies[1].sync_rate)",
                    where, text, d.range.path));
  if (d.range.path == "instances.count") {
    if (!d.choices.empty() || d.range.kind != GoalRange::Kind::kInteger || d.range.lo < 1)
      throw ScenarioError(
          fmt::format("{} {}: instances.count takes integers LO..HI from 1 (2..20)", where, text));
    d.role = SearchDimension::Role::kInstances;
  } else if (const auto fault = fault_start_index(d.range.path)) {
    if (!d.choices.empty() || d.range.kind != GoalRange::Kind::kDuration || d.range.lo < 0)
      throw ScenarioError(fmt::format(
          "{} {}: a fault's start takes durations LO..HI from 0 (10s..50s)", where, text));
    d.role = SearchDimension::Role::kFaultStart;
    d.fault = *fault;
  }
  return d;
}

ordered_json dimension_value(const SearchDimension& d, double x) {
  if (!d.choices.empty())
    return d.choices[std::min(d.choices.size() - 1, static_cast<std::size_t>(std::max(0.0, x)))];
  return range_value(d.range, x);
}

std::string dimension_value_text(const SearchDimension& d, double x) {
  const ordered_json value = dimension_value(d, x);
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::vector<double> dimension_extremes(const SearchDimension& d) {
  if (d.choices.empty()) return {d.range.lo, d.range.hi};
  std::vector<double> out;
  for (std::size_t i = 0; i < std::min<std::size_t>(8, d.choices.size()); ++i)
    out.push_back(static_cast<double>(i));
  return out;
}

std::optional<double> document_value(const SearchDimension& d, const ordered_json& document) {
  const auto steps = parse_metric_path(d.range.path);
  const ordered_json* node = &document;
  for (const MetricStep& step : steps.value_or(std::vector<MetricStep>{})) {
    if (step.is_index ? !node->is_array() || step.index >= node->size()
                      : !node->is_object() || !node->contains(step.name))
      return std::nullopt;
    node = step.is_index ? &(*node)[step.index] : &(*node)[step.name];
  }
  if (!d.choices.empty()) {
    const auto it = std::find(d.choices.begin(), d.choices.end(), *node);
    if (it == d.choices.end()) return std::nullopt;
    return static_cast<double>(it - d.choices.begin());
  }
  std::optional<double> x;
  if (d.range.kind == GoalRange::Kind::kDuration && node->is_string()) {
    if (const auto us = parse_duration(node->get<std::string>(), true))
      x = static_cast<double>(*us);
  } else if (d.range.kind != GoalRange::Kind::kDuration && node->is_number()) {
    x = node->get<double>();
  }
  if (!x || *x < d.range.lo || *x > d.range.hi) return std::nullopt;
  return snap(d.range, *x);
}

bool routes_requests(const SearchDimension& d) {
  return d.range.path.rfind("load_balancer", 0) == 0;
}

}  // namespace rlsim
