#pragma once
// Comparing a run's report with a saved one (`rlsim check --baseline`, docs/ci.md#baselines):
// every numeric metric of every strategy, by label, within a per-metric tolerance.
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rlsim {

// How far a metric may move: |new - old| <= max(absolute, relative * |old|).
struct Tolerance {
  double absolute = 0;
  double relative = 0;
};

// The default tolerance of a metric path (docs/ci.md#baselines): latencies (latency_us.*, any
// field ending in _us) +-5%; overshoots and per-request ratios (*overshoot, *_per_request)
// +-0.01 absolute; fractions (*_rate) +-0.0001 absolute; everything else (counts) +-0.5%.
Tolerance default_tolerance(const std::string& path);

// Every numeric leaf under `node` as (path, value), appended to `out` in document order; array
// elements with a path-safe "name" are addressed by it (limits.per_user.excess), others by index;
// a top-level "series" is skipped. Every path resolves with lookup_metric.
void numeric_leaves(const nlohmann::ordered_json& node, const std::string& path,
                    std::vector<std::pair<std::string, double>>& out);

// "+-5%", "+-0.01".
std::string describe_tolerance(const Tolerance& tolerance);

// The outcome for one strategy label.
struct BaselineOutcome {
  std::string label;
  bool passed = true;
  std::string summary;  // one line: "3 metrics changed", "missing from this run"
  std::vector<std::string>
      changes;  // "allowed: 120 -> 131 (tolerance +-0.5% = +-0.6)", one per change
};

// Compares `report` with `baseline` (both whole reports of the same scenario and seed). Only
// labels in `selected` are compared when it is set (--strategy); a selected label in only one of
// the two reports fails. Metrics under "series" are not compared; metrics only in the new report
// are ignored (reports gain fields over time), metrics only in the baseline fail.
std::vector<BaselineOutcome> compare_to_baseline(
    const nlohmann::ordered_json& baseline, const nlohmann::ordered_json& report,
    const std::optional<std::set<std::string>>& selected);

}  // namespace rlsim
