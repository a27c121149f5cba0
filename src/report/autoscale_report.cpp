#include "report/autoscale_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/rounding.h"
#include "report/svg_chart.h"

namespace rlsim {

namespace {

using ordered_json = nlohmann::ordered_json;

int most_replicas(const std::vector<HpaDecision>& decisions, int initial) {
  int most = initial;
  for (const HpaDecision& decision : decisions) most = std::max(most, decision.desired);
  return most;
}

int most_running(const StrategyResult& result) {
  int most = 0;
  for (const auto& [at_us, count] : result.instance_counts) most = std::max(most, count);
  return most;
}

ordered_json decision_json(const HpaDecision& decision) {
  return {{"at_s", to_seconds(decision.at_us)},
          {"current", decision.current_replicas},
          {"ready", decision.ready_pods},
          {"metric", round4(decision.metric)},
          {"usage_ratio", round4(decision.usage_ratio)},
          {"recommendation", decision.recommendation},
          {"stabilized", decision.stabilized},
          {"desired", decision.desired},
          {"reason", decision.reason}};
}

}  // namespace

ordered_json autoscale_json(const StrategyResult& result, const Scenario& scenario) {
  const AutoscaleSpec& spec = scenario.instances.autoscale;
  const std::vector<HpaDecision>& decisions = *result.autoscale;
  ordered_json out;
  out["metric"] = to_string(spec.metric);
  out["averageValue"] = spec.target_average_value;
  out["minReplicas"] = spec.min_replicas;
  out["maxReplicas"] = spec.max_replicas;
  out["replicas_max"] = most_replicas(decisions, scenario.instances.count);
  out["running_max"] = most_running(result);
  out["syncs"] = decisions.size();
  ordered_json list = ordered_json::array();
  for (const HpaDecision& decision : decisions) list.push_back(decision_json(decision));
  out["decisions"] = list;
  return out;
}

std::string autoscale_notes(const RunResult& result) {
  std::string out;
  const Scenario& scenario = *result.scenario;
  const AutoscaleSpec& spec = scenario.instances.autoscale;
  for (const StrategyResult& strategy : result.strategies) {
    if (!strategy.autoscale) continue;
    std::string changes;
    for (const HpaDecision& d : *strategy.autoscale) {
      if (d.desired == d.current_replicas) continue;
      changes +=
          fmt::format("; {:g}s {}->{} (metric {:g}, wants {}, {})", to_seconds(d.at_us),
                      d.current_replicas, d.desired, round4(d.metric), d.recommendation, d.reason);
    }
    out += fmt::format(
        "{}: autoscale on {} (target {:g} per instance): up to {} replicas, {} "
        "running at most{}{}\n",
        strategy.label, to_string(spec.metric), spec.target_average_value,
        most_replicas(*strategy.autoscale, scenario.instances.count), most_running(strategy),
        changes.empty() ? "; no change" : ": ", changes.empty() ? "" : changes.substr(2));
  }
  return out;
}

std::string autoscale_html(const RunResult& result) {
  const Scenario& scenario = *result.scenario;
  if (!scenario.instances.autoscale.enabled) return "";
  const AutoscaleSpec& spec = scenario.instances.autoscale;
  std::string out = fmt::format(
      "<h2>Autoscaler</h2>\n<p class=\"meta\">The HorizontalPodAutoscaler's algorithm on {} "
      "(target {:g} per instance, {} to {} replicas, a sync every {}): the syncs that changed the "
      "replica count. Every sync is in report.json's <code>autoscale.decisions</code>.</p>\n",
      to_string(spec.metric), spec.target_average_value, spec.min_replicas, spec.max_replicas,
      format_duration(spec.sync_period_us));
  std::string rows;
  for (const StrategyResult& strategy : result.strategies) {
    if (!strategy.autoscale) continue;
    for (const HpaDecision& d : *strategy.autoscale) {
      if (d.desired == d.current_replicas) continue;
      rows += fmt::format(
          "<tr><td>{}</td><td>{:g}</td><td>{}</td><td>{}</td><td>{:g}</td><td>{:g}</td><td>{}</td>"
          "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
          xml_escape(strategy.label), to_seconds(d.at_us), d.current_replicas, d.ready_pods,
          round4(d.metric), round4(d.usage_ratio), d.recommendation, d.stabilized, d.desired,
          d.reason);
    }
  }
  if (rows.empty()) return out + "<p id=\"autoscale\">No sync changed the replica count.</p>\n";
  out += "<div class=\"table-wrap\"><table id=\"autoscale\">\n<thead><tr>";
  for (const char* heading : {"strategy", "time s", "replicas", "ready", "metric", "ratio",
                              "recommended", "stabilized", "desired", "reason"})
    out += fmt::format("<th>{}</th>", heading);
  return out + "</tr></thead>\n<tbody>\n" + rows + "</tbody>\n</table></div>\n";
}

}  // namespace rlsim
