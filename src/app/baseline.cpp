#include "app/baseline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/expect.h"

namespace rlsim {

using nlohmann::ordered_json;

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string last_segment(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

// A name usable as one step of a metric path (lookup_metric resolves it on the array).
bool path_safe(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

std::vector<std::string> labels_in(const ordered_json& report) {
  std::vector<std::string> labels;
  if (!report.contains("strategies") || !report["strategies"].is_array()) return labels;
  for (const auto& s : report["strategies"]) {
    if (s.is_object() && s.contains("label") && s["label"].is_string())
      labels.push_back(s["label"].get<std::string>());
  }
  return labels;
}

BaselineOutcome compare_strategy(const std::string& label, const ordered_json& old_strategy,
                                 const ordered_json& new_strategy) {
  BaselineOutcome outcome;
  outcome.label = label;
  if (old_strategy.contains("name") && new_strategy.contains("name") &&
      old_strategy["name"] != new_strategy["name"]) {
    outcome.changes.push_back(
        fmt::format("name: {} -> {}", old_strategy["name"].dump(), new_strategy["name"].dump()));
  }
  std::vector<std::pair<std::string, double>> leaves;
  numeric_leaves(old_strategy, "", leaves);
  for (const auto& [path, old_value] : leaves) {
    std::string error;
    const auto new_value = lookup_metric(new_strategy, path, error);
    if (!new_value) {
      outcome.changes.push_back(
          fmt::format("{}: {} -> (not in this report: {})", path, format_number(old_value), error));
      continue;
    }
    const Tolerance tolerance = default_tolerance(path);
    const double allowed = std::max(tolerance.absolute, tolerance.relative * std::fabs(old_value));
    // A change of exactly the allowed amount passes, despite the decimal rounding of doubles.
    const double slack = 1e-9 * std::max(1.0, std::fabs(old_value));
    if (std::fabs(*new_value - old_value) > allowed + slack) {
      outcome.changes.push_back(fmt::format(
          "{}: {} -> {} (tolerance {}{})", path, format_number(old_value),
          format_number(*new_value), describe_tolerance(tolerance),
          tolerance.relative > 0 ? fmt::format(" = +-{}", format_number(allowed)) : ""));
    }
  }
  outcome.passed = outcome.changes.empty();
  outcome.summary = outcome.passed ? fmt::format("{} metrics within tolerance", leaves.size())
                                   : fmt::format("{} of {} metrics changed beyond tolerance",
                                                 outcome.changes.size(), leaves.size());
  return outcome;
}

}  // namespace

void numeric_leaves(const ordered_json& node, const std::string& path,
                    std::vector<std::pair<std::string, double>>& out) {
  if (node.is_number()) {
    out.emplace_back(path, node.get<double>());
  } else if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      // Time series (the per-window "series", clock and region series, "*_series" per bucket)
      // are neither summarised over seeds nor compared with a baseline: one number per sample.
      const std::string& key = it.key();
      if (key == "series" || (key.size() > 7 && key.compare(key.size() - 7, 7, "_series") == 0))
        continue;
      numeric_leaves(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
    }
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      const ordered_json& element = node[i];
      const bool named = element.is_object() && element.contains("name") &&
                         element["name"].is_string() &&
                         path_safe(element["name"].get<std::string>());
      numeric_leaves(
          element,
          named ? path + "." + element["name"].get<std::string>() : fmt::format("{}[{}]", path, i),
          out);
    }
  }
}

Tolerance default_tolerance(const std::string& path) {
  const std::string field = last_segment(path);
  if (path.rfind("latency_us.", 0) == 0 || ends_with(field, "_us")) return {0, 0.05};
  if (ends_with(field, "overshoot") || ends_with(field, "_per_request")) return {0.01, 0};
  // Fractions of requests such as sliding_log_error.error_rate: small numbers, where a relative
  // tolerance would be too strict to be useful.
  if (ends_with(field, "_rate")) return {0.0001, 0};
  return {0, 0.005};
}

std::string describe_tolerance(const Tolerance& tolerance) {
  if (tolerance.relative > 0) return fmt::format("+-{}%", format_number(tolerance.relative * 100));
  return fmt::format("+-{}", format_number(tolerance.absolute));
}

std::vector<BaselineOutcome> compare_to_baseline(
    const ordered_json& baseline, const ordered_json& report,
    const std::optional<std::set<std::string>>& selected) {
  std::vector<BaselineOutcome> outcomes;
  const auto wanted = [&](const std::string& label) {
    return !selected || selected->count(label) != 0;
  };
  for (const std::string& label : labels_in(baseline)) {
    if (!wanted(label)) continue;
    const ordered_json* new_strategy = find_strategy_report(report, label);
    if (new_strategy == nullptr) {
      outcomes.push_back({label, false, "in the baseline but not in this run", {}});
      continue;
    }
    outcomes.push_back(
        compare_strategy(label, *find_strategy_report(baseline, label), *new_strategy));
  }
  const std::vector<std::string> old_labels = labels_in(baseline);
  for (const std::string& label : labels_in(report)) {
    if (!wanted(label)) continue;
    if (std::find(old_labels.begin(), old_labels.end(), label) == old_labels.end()) {
      outcomes.push_back(
          {label, false, "in this run but not in the baseline (refresh the baseline)", {}});
    }
  }
  return outcomes;
}

}  // namespace rlsim
