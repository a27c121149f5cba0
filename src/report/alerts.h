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

#include "report/alert_timeline.h"
#include "report/results.h"
#include "report/svg_chart.h"

namespace rlsim {

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

// Every rule of the scenario over one strategy run (empty without an alert series): the timelines
// the run evaluated once (StrategyResult::alert_timelines, set by evaluate_alerts) when they are
// for these rules, else evaluated now. Rules alike in metric, window and ratio share one pass.
std::vector<AlertTimeline> alert_timelines(const Scenario& scenario,
                                           const StrategyResult& strategy);

// Evaluates the scenario's rules over `strategy` once and keeps them in it, so that every renderer
// (JSON, terminal, Markdown, HTML, charts) reads the same timelines without evaluating them again.
void evaluate_alerts(const Scenario& scenario, StrategyResult& strategy);

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
