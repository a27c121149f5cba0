#include "report/alerts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "core/check.h"
#include "report/svg_chart.h"

namespace rlsim {

using nlohmann::ordered_json;

namespace {

// The q-quantile of the decisions in `latency` (bucket counts), as the upper bound of the bucket
// that holds it, in ms: a p99 "above 5" holds exactly when more than 1% of the decisions took
// longer than 5 ms (5 ms is one of the bounds). Above the last bound: infinity.
std::optional<double> bucket_quantile_ms(
    const std::array<std::int64_t, kSeriesLatencyBoundsUs.size() + 1>& latency, double q) {
  std::int64_t total = 0;
  for (std::int64_t count : latency) total += count;
  if (total == 0) return std::nullopt;
  const auto rank = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::ceil(q * static_cast<double>(total))));
  std::int64_t below = 0;
  for (std::size_t b = 0; b < kSeriesLatencyBoundsUs.size(); ++b) {
    below += latency[b];
    if (below >= rank) return static_cast<double>(kSeriesLatencyBoundsUs[b]) / 1000.0;
  }
  return std::numeric_limits<double>::infinity();
}

// A Redis series value at the bucket holding true time `at_us` (the end of an evaluation step
// minus one microsecond), or nullopt past its end.
template <typename Value>
std::optional<double> bucket_value(const BucketSeries<Value>& series, TimeUs at_us) {
  if (series.bucket_s <= 0) return std::nullopt;
  const auto index = static_cast<std::size_t>(static_cast<double>(at_us) /
                                              (series.bucket_s * static_cast<double>(kUsPerS)));
  if (index >= series.values.size()) return std::nullopt;
  return static_cast<double>(series.values[index]);
}

// How many evaluation steps a rule's window covers (at least one).
std::size_t window_steps_of(const AlertRule& rule, const AlertSeries& series) {
  return static_cast<std::size_t>(
      std::max<DurationUs>(1, (rule.window_us + series.step_us - 1) / series.step_us));
}

// The first step of the window that ends at step `last`.
std::size_t window_first(std::size_t last, std::size_t window_steps) {
  return last + 1 >= window_steps ? last + 1 - window_steps : 0;
}

// One node's value per step for a Redis rule: the mean of redis_utilization or the max of
// redis_queue over each step's window, in one pass (a running sum; a queue of candidate maxima).
std::vector<std::optional<double>> node_values(const AlertRule& rule, const AlertSeries& series,
                                               const NodeResult& node, std::size_t window_steps) {
  const bool mean = rule.metric == AlertMetric::kRedisUtilization;
  std::vector<std::optional<double>> raw, out;
  for (std::size_t i = 0; i < series.steps.size(); ++i) {
    const TimeUs at_us = static_cast<TimeUs>(i + 1) * series.step_us - 1;
    raw.push_back(mean ? bucket_value(node.utilization_series, at_us)
                       : bucket_value(node.queue_length_max_series, at_us));
  }
  double sum = 0;
  std::size_t count = 0;
  std::deque<std::size_t> maxima;  // steps in the window, their values decreasing
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const std::size_t first = window_first(i, window_steps);
    if (raw[i]) {
      sum += *raw[i];
      ++count;
      while (!maxima.empty() && *raw[maxima.back()] <= *raw[i]) maxima.pop_back();
      maxima.push_back(i);
    }
    if (first > 0 && raw[first - 1]) {
      sum -= *raw[first - 1];
      --count;
    }
    while (!maxima.empty() && maxima.front() < first) maxima.pop_front();
    if (count == 0) {
      out.push_back(std::nullopt);
      sum = 0;  // no drift carried over an empty window
    } else {
      out.push_back(mean ? sum / static_cast<double>(count) : *raw[maxima.front()]);
    }
  }
  return out;
}

// redis_utilization (mean over the window) or redis_queue (max over the window) of the busiest
// node, per step.
std::vector<std::optional<double>> redis_values(const AlertRule& rule, const AlertSeries& series,
                                                const std::vector<const NodeResult*>& nodes,
                                                std::size_t window_steps) {
  std::vector<std::optional<double>> worst(series.steps.size());
  for (const NodeResult* node : nodes) {
    const auto values = node_values(rule, series, *node, window_steps);
    for (std::size_t i = 0; i < values.size(); ++i)
      if (values[i]) worst[i] = std::max(worst[i].value_or(*values[i]), *values[i]);
  }
  return worst;
}

// near_limit_share per step's window: no value without a decision whose count the strategy
// reported. Running sums over the window: O(1) per step.
std::vector<std::optional<double>> near_limit_values(const AlertRule& rule,
                                                     const AlertSeries& series,
                                                     std::size_t window_steps) {
  const std::vector<double>& ratios = series.near_limit_ratios;
  const auto ratio = std::find(ratios.begin(), ratios.end(), rule.near_limit_ratio);
  RLSIM_CHECK(ratio != ratios.end());
  const auto r = static_cast<std::size_t>(ratio - ratios.begin());
  std::vector<std::optional<double>> out;
  std::int64_t counted = 0, near = 0;
  for (std::size_t i = 0; i < series.steps.size(); ++i) {
    counted += series.counted[i];
    near += series.near_limit[i * ratios.size() + r];
    const std::size_t first = window_first(i, window_steps);
    if (first > 0) {
      counted -= series.counted[first - 1];
      near -= series.near_limit[(first - 1) * ratios.size() + r];
    }
    out.push_back(counted == 0
                      ? std::nullopt
                      : std::optional(static_cast<double>(near) / static_cast<double>(counted)));
  }
  return out;
}

// `total` plus (sign 1) or minus (sign -1) the counts of `step`.
void add_step(AlertStep& total, const AlertStep& step, std::int64_t sign) {
  total.decisions += sign * step.decisions;
  total.denied += sign * step.denied;
  total.errors += sign * step.errors;
  total.fallbacks += sign * step.fallbacks;
  for (std::size_t b = 0; b < total.latency.size(); ++b) total.latency[b] += sign * step.latency[b];
}

// A decision metric over a window's counts `sum`, which span `span_s` seconds.
std::optional<double> decision_value(const AlertRule& rule, const AlertStep& sum, double span_s) {
  switch (rule.metric) {
    case AlertMetric::kRateCheckP50Ms:
      return bucket_quantile_ms(sum.latency, 0.5);
    case AlertMetric::kRateCheckP99Ms:
      return bucket_quantile_ms(sum.latency, 0.99);
    case AlertMetric::kFallbackPerS:
      return static_cast<double>(sum.fallbacks) / span_s;
    case AlertMetric::kDeniedPerS:
      return static_cast<double>(sum.denied) / span_s;
    case AlertMetric::kDeniedShare:
      if (sum.decisions == 0) return std::nullopt;
      return static_cast<double>(sum.denied) / static_cast<double>(sum.decisions);
    case AlertMetric::kErrorsPerS:
      return static_cast<double>(sum.errors) / span_s;
    default:
      RLSIM_CHECK(false);
      return std::nullopt;
  }
}

// A decision metric per step's window, from running sums of the steps' counts (exact integers):
// O(1) per step however long the window.
std::vector<std::optional<double>> decision_values(const AlertRule& rule, const AlertSeries& series,
                                                   std::size_t window_steps) {
  std::vector<std::optional<double>> out;
  AlertStep sum;
  for (std::size_t i = 0; i < series.steps.size(); ++i) {
    add_step(sum, series.steps[i], 1);
    const std::size_t first = window_first(i, window_steps);
    if (first > 0) add_step(sum, series.steps[first - 1], -1);
    const double span_s = to_seconds(static_cast<DurationUs>(i - first + 1) * series.step_us);
    out.push_back(decision_value(rule, sum, span_s));
  }
  return out;
}

std::vector<AlertDetection> detections(const AlertTimeline& timeline, const AlertSeries& series,
                                       const std::vector<FaultSpec>& faults) {
  std::vector<AlertDetection> out;
  for (std::size_t f = 0; f < faults.size(); ++f) {
    AlertDetection detection{f, faults[f].at_us, std::nullopt, 0};
    for (const AlertFiring& firing : timeline.firings) {
      if (firing.fired_us >= detection.at_us) {
        detection.time_to_detect_us = firing.fired_us - detection.at_us;
        break;
      }
      if (!firing.resolved_us || *firing.resolved_us > detection.at_us) {
        detection.time_to_detect_us = 0;  // already firing when the fault started
        break;
      }
    }
    const TimeUs end_us = detection.time_to_detect_us
                              ? detection.at_us + *detection.time_to_detect_us
                              : static_cast<TimeUs>(series.steps.size()) * series.step_us;
    // Whole steps: the fault's step up to the step that ends at the firing.
    for (auto i = static_cast<std::size_t>(detection.at_us / series.step_us);
         i < series.steps.size() && static_cast<TimeUs>(i) * series.step_us < end_us; ++i)
      detection.excess_before_detect += series.steps[i].excess;
    out.push_back(detection);
  }
  return out;
}

std::vector<const NodeResult*> nodes_of(const StrategyResult& strategy) {
  std::vector<const NodeResult*> nodes;
  if (!strategy.redis_side) return nodes;
  if (strategy.redis_side->redis_node) nodes.push_back(&*strategy.redis_side->redis_node);
  for (const NodeResult& node : strategy.redis_side->redis_nodes) nodes.push_back(&node);
  return nodes;
}

std::string format_threshold(double value) { return fmt::format("{}", value); }

// "rate_check_p99_ms > 5 for 0s over 10s", "near_limit_share (ratio 0.8) > 0.5 for 0s over 10s"
std::string rule_text(const AlertRule& rule) {
  const std::string ratio = rule.metric == AlertMetric::kNearLimitShare
                                ? fmt::format(" (ratio {})", rule.near_limit_ratio)
                                : std::string();
  return fmt::format("{}{} {} {} for {} over {}", to_string(rule.metric), ratio,
                     rule.above ? ">" : "<", format_threshold(rule.threshold),
                     format_duration(rule.for_us), format_duration(rule.window_us));
}

std::string seconds_text(TimeUs us) { return fmt::format("{}s", to_seconds(us)); }

// "fired 181s, resolved 201s; fired 250s (still firing)" or "never fired".
std::string firings_text(const AlertTimeline& timeline) {
  if (timeline.counted_decisions == 0)
    return "never fired: no value, the strategy reported no count for the first limit's key";
  if (timeline.firings.empty()) return "never fired";
  std::string out;
  for (const AlertFiring& firing : timeline.firings) {
    out += fmt::format("{}fired {}", out.empty() ? "" : "; ", seconds_text(firing.fired_us));
    out += firing.resolved_us ? ", resolved " + seconds_text(*firing.resolved_us)
                              : std::string(" (still firing at the end)");
  }
  return out;
}

// "redis_down at 180s: detected after 1s, excess before 23" per fault.
std::string detection_text(const Scenario& scenario, const AlertDetection& detection) {
  const std::string fault = fmt::format(
      "{} at {}", to_string(scenario.faults[detection.fault].type), seconds_text(detection.at_us));
  if (!detection.time_to_detect_us)
    return fmt::format("{}: not detected, excess {}", fault, detection.excess_before_detect);
  return fmt::format("{}: time to detect {}, excess before {}", fault,
                     seconds_text(*detection.time_to_detect_us), detection.excess_before_detect);
}

}  // namespace

std::vector<std::optional<double>> alert_values(const AlertRule& rule, const AlertSeries& series,
                                                const std::vector<const NodeResult*>& nodes) {
  const std::size_t window_steps = window_steps_of(rule, series);
  if (rule.metric == AlertMetric::kRedisUtilization || rule.metric == AlertMetric::kRedisQueue)
    return redis_values(rule, series, nodes, window_steps);
  if (rule.metric == AlertMetric::kNearLimitShare)
    return near_limit_values(rule, series, window_steps);
  return decision_values(rule, series, window_steps);
}

namespace {

// The timeline of `rule` from its metric's `values` per step (alert_values).
AlertTimeline timeline_of(const AlertRule& rule, const std::vector<std::optional<double>>& values,
                          const AlertSeries& series, const std::vector<FaultSpec>& faults) {
  AlertTimeline timeline;
  timeline.rule = &rule;
  std::optional<TimeUs> pending_since_us;
  bool firing = false;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const TimeUs at_us = static_cast<TimeUs>(i + 1) * series.step_us;
    const bool holds =
        values[i] && (rule.above ? *values[i] > rule.threshold : *values[i] < rule.threshold);
    if (!holds) {
      pending_since_us.reset();
      if (firing) timeline.firings.back().resolved_us = at_us;
      firing = false;
      continue;
    }
    if (!pending_since_us) pending_since_us = at_us;
    if (!firing && at_us - *pending_since_us >= rule.for_us) {
      firing = true;
      timeline.firings.push_back(AlertFiring{at_us, std::nullopt});
    }
  }
  timeline.faults = detections(timeline, series, faults);
  if (rule.metric == AlertMetric::kNearLimitShare) {
    timeline.counted_decisions = 0;
    for (std::int64_t counted : series.counted) *timeline.counted_decisions += counted;
  }
  return timeline;
}

// Two rules whose metric has the same values at every step: same metric, window and ratio.
bool same_values(const AlertRule& a, const AlertRule& b) {
  return a.metric == b.metric && a.window_us == b.window_us &&
         a.near_limit_ratio == b.near_limit_ratio;
}

}  // namespace

AlertTimeline evaluate_alert(const AlertRule& rule, const AlertSeries& series,
                             const std::vector<const NodeResult*>& nodes,
                             const std::vector<FaultSpec>& faults) {
  return timeline_of(rule, alert_values(rule, series, nodes), series, faults);
}

namespace {

// True when `timelines` are those of `rules`, in order (evaluated for this scenario).
bool timelines_of(const std::vector<AlertTimeline>& timelines,
                  const std::vector<AlertRule>& rules) {
  if (timelines.size() != rules.size()) return false;
  for (std::size_t i = 0; i < rules.size(); ++i)
    if (timelines[i].rule != &rules[i]) return false;
  return true;
}

// Every rule of the scenario over `strategy`'s series, evaluated now. REQUIRES: an alert series.
std::vector<AlertTimeline> evaluate_timelines(const Scenario& scenario,
                                              const StrategyResult& strategy) {
  const std::vector<const NodeResult*> nodes = nodes_of(strategy);
  std::vector<AlertTimeline> out;
  // Each distinct (metric, window, ratio) is computed once: 64 rules that differ only in their
  // thresholds cost one pass over the series, not 64.
  std::vector<std::pair<const AlertRule*, std::vector<std::optional<double>>>> computed;
  for (const AlertRule& rule : scenario.alerts) {
    std::size_t index = 0;
    while (index < computed.size() && !same_values(*computed[index].first, rule)) ++index;
    if (index == computed.size())
      computed.emplace_back(&rule, alert_values(rule, *strategy.alert_series, nodes));
    out.push_back(
        timeline_of(rule, computed[index].second, *strategy.alert_series, scenario.faults));
  }
  return out;
}

}  // namespace

std::vector<AlertTimeline> alert_timelines(const Scenario& scenario,
                                           const StrategyResult& strategy) {
  if (!strategy.alert_series) return {};
  if (timelines_of(strategy.alert_timelines, scenario.alerts)) return strategy.alert_timelines;
  return evaluate_timelines(scenario, strategy);
}

void evaluate_alerts(const Scenario& scenario, StrategyResult& strategy) {
  if (strategy.alert_series) strategy.alert_timelines = evaluate_timelines(scenario, strategy);
}

std::vector<ChartMarker> alert_markers(const Scenario& scenario, const StrategyResult& strategy,
                                       double divisor_us) {
  std::vector<ChartMarker> markers;
  for (const AlertTimeline& timeline : alert_timelines(scenario, strategy)) {
    for (const AlertFiring& firing : timeline.firings) {
      ChartMarker marker;
      marker.x = static_cast<double>(firing.fired_us) / divisor_us;
      if (firing.resolved_us) marker.to_x = static_cast<double>(*firing.resolved_us) / divisor_us;
      marker.label = timeline.rule->name;
      marker.title =
          fmt::format("{} ({}): fired {}{}", timeline.rule->name, rule_text(*timeline.rule),
                      seconds_text(firing.fired_us),
                      firing.resolved_us ? ", resolved " + seconds_text(*firing.resolved_us)
                                         : ", still firing");
      markers.push_back(std::move(marker));
    }
  }
  return markers;
}

ordered_json alerts_json(const Scenario& scenario, const StrategyResult& strategy) {
  ordered_json out = ordered_json::object();
  for (const AlertTimeline& timeline : alert_timelines(scenario, strategy)) {
    const AlertRule& rule = *timeline.rule;
    ordered_json alert;
    alert["metric"] = to_string(rule.metric);
    if (rule.metric == AlertMetric::kNearLimitShare) alert["ratio"] = rule.near_limit_ratio;
    alert[rule.above ? "above" : "below"] = rule.threshold;
    alert["for_s"] = to_seconds(rule.for_us);
    alert["window_s"] = to_seconds(rule.window_us);
    const auto seconds_or_null = [](std::optional<TimeUs> us) {
      return us ? ordered_json(to_seconds(*us)) : ordered_json(nullptr);
    };
    alert["first_fired_s"] = seconds_or_null(
        timeline.firings.empty() ? std::nullopt : std::optional(timeline.firings.front().fired_us));
    alert["time_to_detect_s"] = seconds_or_null(
        timeline.faults.empty() ? std::nullopt : timeline.faults.front().time_to_detect_us);
    ordered_json firings = ordered_json::array();
    for (const AlertFiring& firing : timeline.firings)
      firings.push_back({{"fired_s", to_seconds(firing.fired_us)},
                         {"resolved_s", seconds_or_null(firing.resolved_us)}});
    // How often it fired: an `expect` pins "once, for the fault" or "never" with it.
    alert["fired_count"] = timeline.firings.size();
    alert["firings"] = std::move(firings);
    ordered_json faults = ordered_json::array();
    for (const AlertDetection& detection : timeline.faults)
      faults.push_back({{"fault", detection.fault},
                        {"type", to_string(scenario.faults[detection.fault].type)},
                        {"at_s", to_seconds(detection.at_us)},
                        {"time_to_detect_s", seconds_or_null(detection.time_to_detect_us)},
                        {"excess_before_detect", detection.excess_before_detect}});
    alert["faults"] = std::move(faults);
    if (timeline.counted_decisions) alert["counted_decisions"] = *timeline.counted_decisions;
    out[rule.name] = std::move(alert);
  }
  return out;
}

std::string alert_notes(const RunResult& result) {
  const Scenario& scenario = *result.scenario;
  if (scenario.alerts.empty()) return "";
  std::string out = "\nalerts (evaluated every " +
                    format_duration(alert_step_us(scenario.duration_us)) + " of true time):\n";
  for (const StrategyResult& strategy : result.strategies) {
    for (const AlertTimeline& timeline : alert_timelines(scenario, strategy)) {
      out += fmt::format("{}: {} ({}): {}\n", strategy.label, timeline.rule->name,
                         rule_text(*timeline.rule), firings_text(timeline));
      for (const AlertDetection& detection : timeline.faults)
        out += fmt::format("  {}\n", detection_text(scenario, detection));
    }
  }
  return out;
}

namespace {

// One row per strategy and alert: the cells of the Markdown and HTML tables.
struct AlertRow {
  std::string strategy, alert, rule, firings, detection;
};

std::vector<AlertRow> alert_rows(const RunResult& result) {
  const Scenario& scenario = *result.scenario;
  std::vector<AlertRow> rows;
  for (const StrategyResult& strategy : result.strategies) {
    for (const AlertTimeline& timeline : alert_timelines(scenario, strategy)) {
      std::string detection;
      for (const AlertDetection& d : timeline.faults)
        detection += (detection.empty() ? "" : "; ") + detection_text(scenario, d);
      rows.push_back({strategy.label, timeline.rule->name, rule_text(*timeline.rule),
                      firings_text(timeline), detection.empty() ? "no faults" : detection});
    }
  }
  return rows;
}

constexpr const char* kAlertLegend =
    "Alert rules evaluated per strategy run at the end of every step of true time. Time to "
    "detect: from a fault's start to the alert's first firing at or after it; excess before: "
    "admissions beyond the limit the oracle counted in between. Definitions: docs/metrics.md, "
    "\"Alert timeline\".";

std::string markdown_cell(std::string text) {
  for (std::size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2))
    text.replace(at, 1, "\\|");
  return text;
}

}  // namespace

std::string alert_markdown(const RunResult& result) {
  if (result.scenario->alerts.empty()) return "";
  std::string out =
      "## Alerts\n\n| strategy | alert | rule | fired / resolved | time to detect, excess before "
      "|\n|---|---|---|---|---|\n";
  for (const AlertRow& row : alert_rows(result))
    out += fmt::format("| {} | {} | {} | {} | {} |\n", markdown_cell(row.strategy), row.alert,
                       markdown_cell(row.rule), row.firings, markdown_cell(row.detection));
  return out + "\n" + kAlertLegend + "\n\n";
}

std::string alert_html(const RunResult& result) {
  if (result.scenario->alerts.empty()) return "";
  std::string out =
      "<h2>Alerts</h2>\n<div class=\"table-wrap\"><table id=\"alerts\" "
      "class=\"wrap\">\n<thead><tr><th>strategy"
      "</th><th>alert</th><th>rule</th><th>fired / resolved</th><th>time to detect, excess "
      "before</th></tr></thead>\n<tbody>\n";
  for (const AlertRow& row : alert_rows(result))
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       xml_escape(row.strategy), xml_escape(row.alert), xml_escape(row.rule),
                       xml_escape(row.firings), xml_escape(row.detection));
  return out + "</tbody>\n</table></div>\n<p class=\"meta\">" + xml_escape(kAlertLegend) + "</p>\n";
}

}  // namespace rlsim
