#pragma once
// The alert timeline (docs/metrics.md, "Alert timeline"): the scenario's alert rules evaluated
// per strategy run over its AlertSeries (oracle/alert_series.h) and its Redis nodes' series, and
// for each fault the time to detect and what the oracle counted as excess before the first firing.
// Pure functions of the results; every renderer writes the timeline only when the scenario has
// alerts.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/results.h"
#include "report/svg_chart.h"

namespace rlsim {

struct AlertFiring {
  TimeUs fired_us = 0;
  std::optional<TimeUs> resolved_us;  // unset: still firing at the end of the run
};

// One fault as one alert saw it.
struct AlertDetection {
  std::size_t fault = 0;  // index in the scenario's faults
  TimeUs at_us = 0;
  // From the fault's start to the first firing at or after it (0 when the alert was already
  // firing); unset when it never fired after the start.
  std::optional<DurationUs> time_to_detect_us;
  // Admissions beyond a limit (summed over limits) from the fault's start to that firing, or to
  // the end of the run when it never fired.
  std::int64_t excess_before_detect = 0;
};

struct AlertTimeline {
  const AlertRule* rule = nullptr;
  std::vector<AlertFiring> firings;
  std::vector<AlertDetection> faults;
  // near_limit_share only: the decisions of the run whose count the strategy reported (0: the
  // metric never had a value; a strategy that reads no count, docs/metrics.md).
  std::optional<std::int64_t> counted_decisions;
};

// The rule's metric at the end of each step of `series` (nullopt where it has no value: a
// quantile or share over no decisions, a Redis metric without a node). `nodes` are the Redis
// nodes of the run, for redis_utilization and redis_queue (the busiest node counts).
std::vector<std::optional<double>> alert_values(const AlertRule& rule, const AlertSeries& series,
                                                const std::vector<const NodeResult*>& nodes);

// Evaluates `rule` at the end of each step of `series`, as Prometheus evaluates a rule with
// `for`: pending from the first evaluation whose condition holds, firing once it has held for
// rule.for_us, resolved at the first evaluation where it no longer holds.
AlertTimeline evaluate_alert(const AlertRule& rule, const AlertSeries& series,
                             const std::vector<const NodeResult*>& nodes,
                             const std::vector<FaultSpec>& faults);

// Every rule of the scenario over one strategy run (empty without an alert series).
std::vector<AlertTimeline> alert_timelines(const Scenario& scenario,
                                           const StrategyResult& strategy);

// The strategy's alert firings as markers on its time charts (x in units of `divisor_us`), in
// rule order: one per firing, labelled with the alert's name, with the resolution as its bar's end.
std::vector<ChartMarker> alert_markers(const Scenario& scenario, const StrategyResult& strategy,
                                       double divisor_us);

// The strategy's "alerts" object of the JSON report, keyed by alert name.
nlohmann::ordered_json alerts_json(const Scenario& scenario, const StrategyResult& strategy);

// Lines under the terminal table: "" when the scenario has no alerts.
std::string alert_notes(const RunResult& result);
// The "Alerts" section of report.md and report.html: "" when the scenario has no alerts.
std::string alert_markdown(const RunResult& result);
std::string alert_html(const RunResult& result);

}  // namespace rlsim
