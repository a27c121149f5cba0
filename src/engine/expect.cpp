#include "engine/expect.h"

#include <fmt/format.h>

#include <cmath>

#include "core/check.h"
#include "scenario/load.h"

namespace rlsim {

using nlohmann::ordered_json;

namespace {

std::string type_name(const ordered_json& value) {
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_array()) return fmt::format("an array of {} entries", value.size());
  if (value.is_object()) return "an object";
  return "null";
}

std::string keys_of(const ordered_json& object) {
  std::string out;
  for (auto it = object.begin(); it != object.end(); ++it)
    out += (out.empty() ? "" : ", ") + it.key();
  return out;
}

std::string names_in(const ordered_json& array) {
  std::string out;
  for (const auto& element : array) {
    if (element.is_object() && element.contains("name") && element["name"].is_string())
      out += (out.empty() ? "" : ", ") + element["name"].get<std::string>();
  }
  return out.empty() ? "none" : out;
}

const ordered_json* element_named(const ordered_json& array, const std::string& name) {
  for (const auto& element : array) {
    if (element.is_object() && element.contains("name") && element["name"] == name) return &element;
  }
  return nullptr;
}

}  // namespace

std::optional<double> lookup_metric(const ordered_json& strategy, const std::string& path,
                                    std::string& error) {
  const auto steps = parse_metric_path(path);
  if (!steps) {
    error = fmt::format("\"{}\" is not a metric path", path);
    return std::nullopt;
  }
  const ordered_json* node = &strategy;
  std::string walked;
  const auto where = [&] { return walked.empty() ? std::string("the strategy's report") : walked; };
  for (const MetricStep& step : *steps) {
    if (step.is_index) {
      if (!node->is_array()) {
        error = fmt::format("{} is {}, not an array", where(), type_name(*node));
        return std::nullopt;
      }
      if (step.index >= node->size()) {
        error = fmt::format("{} has {} entries, no [{}]", where(), node->size(), step.index);
        return std::nullopt;
      }
      node = &(*node)[step.index];
      walked += fmt::format("[{}]", step.index);
      continue;
    }
    const ordered_json* next = nullptr;
    if (node->is_object()) {
      const auto it = node->find(step.name);
      if (it == node->end()) {
        error =
            fmt::format("{} has no field \"{}\" (it has: {})", where(), step.name, keys_of(*node));
        return std::nullopt;
      }
      next = &*it;
    } else if (node->is_array()) {
      next = element_named(*node, step.name);
      if (next == nullptr) {
        error = fmt::format("{} has no entry named \"{}\" (names: {})", where(), step.name,
                            names_in(*node));
        return std::nullopt;
      }
    } else {
      error = fmt::format("{} is {}, it has no field \"{}\"", where(), type_name(*node), step.name);
      return std::nullopt;
    }
    node = next;
    walked += (walked.empty() ? "" : ".") + step.name;
  }
  if (!node->is_number()) {
    error = fmt::format("{} is {}, not a number", where(), type_name(*node));
    return std::nullopt;
  }
  return node->get<double>();
}

const ordered_json* find_strategy_report(const ordered_json& report, const std::string& label) {
  if (!report.contains("strategies")) return nullptr;
  for (const auto& strategy : report["strategies"]) {
    if (strategy.contains("label") && strategy["label"] == label) return &strategy;
  }
  return nullptr;
}

std::string format_number(double value) { return fmt::format("{}", value); }

std::string describe(const Expectation& e) {
  switch (e.kind) {
    case Expectation::Kind::kLess:
      return fmt::format("{}: {} < {}", e.metric, e.left, e.right);
    case Expectation::Kind::kLessOrEqual:
      return fmt::format("{}: {} <= {}", e.metric, e.left, e.right);
    case Expectation::Kind::kBound:
      break;
  }
  const std::string subject = e.strategy + " " + e.metric;
  if (e.equals) {
    return e.tolerance > 0 ? fmt::format("{} == {} +- {}", subject, format_number(*e.equals),
                                         format_number(e.tolerance))
                           : fmt::format("{} == {}", subject, format_number(*e.equals));
  }
  if (e.min && e.max)
    return fmt::format("{} <= {} <= {}", format_number(*e.min), subject, format_number(*e.max));
  if (e.min) return fmt::format("{} >= {}", subject, format_number(*e.min));
  RLSIM_CHECK(e.max.has_value());
  return fmt::format("{} <= {}", subject, format_number(*e.max));
}

std::vector<std::string> labels_of(const Expectation& e) {
  if (e.kind == Expectation::Kind::kBound) return {e.strategy};
  return {e.left, e.right};
}

void check_metric_paths(const Scenario& scenario, const ordered_json& report,
                        const std::string& file) {
  for (const Expectation& e : scenario.expectations) {
    for (const std::string& label : labels_of(e)) {
      const ordered_json* strategy = find_strategy_report(report, label);
      if (strategy == nullptr) continue;
      std::string error;
      if (!lookup_metric(*strategy, e.metric, error)) {
        throw ScenarioError(scenario_error_message(
            file, e.json_path + ".metric",
            fmt::format("\"{}\" is not a metric in the report of strategy \"{}\": {}", e.metric,
                        label, error)));
      }
    }
  }
}

ExpectationOutcome evaluate(const Expectation& e, const ordered_json& report) {
  ExpectationOutcome outcome;
  std::vector<double> measured;
  for (const std::string& label : labels_of(e)) {
    const ordered_json* strategy = find_strategy_report(report, label);
    if (strategy == nullptr) {
      outcome.status = ExpectationOutcome::Status::kSkipped;
      outcome.message = fmt::format("strategy {} was not run (see --strategy)", label);
      return outcome;
    }
    std::string error;
    const auto value = lookup_metric(*strategy, e.metric, error);
    RLSIM_CHECK(value.has_value());  // check_metric_paths ran first
    measured.push_back(*value);
    outcome.values[label] = *value;
  }
  bool holds = false;
  switch (e.kind) {
    case Expectation::Kind::kLess:
    case Expectation::Kind::kLessOrEqual: {
      const bool strict = e.kind == Expectation::Kind::kLess;
      holds = strict ? measured[0] < measured[1] : measured[0] <= measured[1];
      if (!holds) {
        outcome.message =
            fmt::format("{} {} {} is not {} {} {} {}", e.left, e.metric, format_number(measured[0]),
                        strict ? "<" : "<=", e.right, e.metric, format_number(measured[1]));
      }
      break;
    }
    case Expectation::Kind::kBound: {
      const double value = measured[0];
      std::string bound;
      if (e.equals) {
        holds = std::fabs(value - *e.equals) <= e.tolerance;
        bound = e.tolerance > 0 ? fmt::format("== {} +- {}", format_number(*e.equals),
                                              format_number(e.tolerance))
                                : fmt::format("== {}", format_number(*e.equals));
      } else {
        holds = (!e.min || value >= *e.min) && (!e.max || value <= *e.max);
        if (e.min && value < *e.min) bound = fmt::format(">= {}", format_number(*e.min));
        if (e.max && value > *e.max) bound = fmt::format("<= {}", format_number(*e.max));
      }
      if (!holds) {
        outcome.message = fmt::format("{} {} is {}, expected {}", e.strategy, e.metric,
                                      format_number(value), bound);
      }
      break;
    }
  }
  outcome.status =
      holds ? ExpectationOutcome::Status::kPassed : ExpectationOutcome::Status::kFailed;
  return outcome;
}

}  // namespace rlsim
