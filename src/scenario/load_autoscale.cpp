#include "scenario/load_autoscale.h"

#include <fmt/format.h>

#include "scenario/model.h"
#include "scenario/reader.h"

namespace rlsim {
namespace {

using nlohmann::json;

constexpr std::pair<const char*, AutoscaleMetric> kAutoscaleMetrics[] = {
    {"offered_per_s", AutoscaleMetric::kOfferedPerS},
    {"admitted_per_s", AutoscaleMetric::kAdmittedPerS},
    {"cpu", AutoscaleMetric::kCpu}};
constexpr std::pair<const char*, HpaScalingRules::Select> kSelects[] = {
    {"Max", HpaScalingRules::Select::kMax},
    {"Min", HpaScalingRules::Select::kMin},
    {"Disabled", HpaScalingRules::Select::kDisabled}};
constexpr std::pair<const char*, HpaScalingPolicy::Type> kPolicyTypes[] = {
    {"Pods", HpaScalingPolicy::Type::kPods}, {"Percent", HpaScalingPolicy::Type::kPercent}};
constexpr std::int64_t kMaxWindowSeconds = 3600;  // the HPA's validation
constexpr std::int64_t kMaxPeriodSeconds = 1800;  // the HPA's validation
constexpr std::size_t kMaxPolicies = 10;

// The HPA's defaults (defaults.go): scale up by the larger of 4 pods and 100% per 15 s with no
// stabilization; scale down by up to 100% per 15 s after a 300 s stabilization window (the
// controller's --horizontal-pod-autoscaler-downscale-stabilization).
HpaScalingRules default_rules(bool up) {
  HpaScalingRules rules;
  rules.stabilization_window_s = up ? 0 : 300;
  if (up) rules.policies.push_back({HpaScalingPolicy::Type::kPods, 4, 15});
  rules.policies.push_back({HpaScalingPolicy::Type::kPercent, 100, 15});
  return rules;
}

// behavior.scaleUp / scaleDown: every field it leaves out keeps its default (copyHPAScalingRules).
HpaScalingRules read_rules(ObjectReader& behavior, const char* key, bool up) {
  HpaScalingRules rules = default_rules(up);
  const json* value = behavior.find(key);
  if (value == nullptr) return rules;
  ObjectReader reader(*value, behavior.path_of(key), behavior.file());
  const std::int64_t window_default = rules.stabilization_window_s;
  rules.stabilization_window_s = static_cast<int>(
      reader.int_field("stabilizationWindowSeconds", &window_default, 0, kMaxWindowSeconds));
  rules.select = reader.enum_field("selectPolicy", rules.select, kSelects);
  if (reader.find("policies") != nullptr) {
    const json& policies = reader.array_field("policies", true, 1, kMaxPolicies);
    rules.policies.clear();
    for (std::size_t i = 0; i < policies.size(); ++i) {
      ObjectReader policy(policies[i], fmt::format("{}.policies[{}]", reader.path(), i),
                          reader.file());
      HpaScalingPolicy entry;
      entry.type = policy.enum_field("type", HpaScalingPolicy::Type::kPods, kPolicyTypes);
      entry.value = static_cast<int>(
          policy.int_field("value", nullptr, 1, ScenarioBounds::kMaxInstances * 100));
      entry.period_s =
          static_cast<int>(policy.int_field("periodSeconds", nullptr, 1, kMaxPeriodSeconds));
      policy.reject_unknown();
      rules.policies.push_back(entry);
    }
  }
  reader.reject_unknown();
  return rules;
}

// A whole number of seconds from `min_s` to an hour.
DurationUs whole_seconds(ObjectReader& reader, const char* key, DurationUs fallback_us,
                         DurationUs min_us) {
  const DurationUs value_us = reader.duration_field(key, &fallback_us, min_us, kUsPerHour);
  if (value_us % kUsPerS != 0) reader.fail(reader.path_of(key), "expected whole seconds");
  return value_us;
}

void read_metric(ObjectReader& autoscale, AutoscaleSpec& spec) {
  ObjectReader metric(autoscale.require("metric"), autoscale.path_of("metric"), autoscale.file());
  spec.metric = metric.enum_field("name", AutoscaleMetric::kOfferedPerS, kAutoscaleMetrics);
  const json& target = metric.require("averageValue");
  if (!target.is_number() || !(target.get<double>() >= 0.001) || target.get<double>() > 1e9)
    metric.fail(metric.path_of("averageValue"), "expected a number from 0.001 to 1000000000");
  spec.target_average_value = target.get<double>();
  spec.metric_window_us = whole_seconds(metric, "window", spec.metric_window_us, kUsPerS);
  if (spec.metric == AutoscaleMetric::kCpu) {
    spec.cpu_per_admitted_us = metric.duration_field("cpu_per_admitted", nullptr, 0, kUsPerS);
    const DurationUs zero = 0;
    spec.cpu_per_denied_us = metric.duration_field("cpu_per_denied", &zero, 0, kUsPerS);
  }
  metric.reject_unknown();
}

}  // namespace

const char* to_string(AutoscaleMetric metric) {
  for (const auto& [name, value] : kAutoscaleMetrics)
    if (value == metric) return name;
  return "";
}

AutoscaleSpec read_autoscale(ObjectReader& instances) {
  AutoscaleSpec spec;
  const json* value = instances.find("autoscale");
  if (value == nullptr) return spec;
  ObjectReader reader(*value, instances.path_of("autoscale"), instances.file());
  spec.enabled = true;
  const std::int64_t one = 1;
  spec.min_replicas =
      static_cast<int>(reader.int_field("minReplicas", &one, 1, ScenarioBounds::kMaxInstances));
  spec.max_replicas = static_cast<int>(
      reader.int_field("maxReplicas", nullptr, spec.min_replicas, ScenarioBounds::kMaxInstances));
  read_metric(reader, spec);
  if (const json* tolerance = reader.find("tolerance")) {
    if (!tolerance->is_number() || tolerance->get<double>() < 0 || tolerance->get<double>() > 1)
      reader.fail(reader.path_of("tolerance"), "expected a number from 0 to 1");
    spec.tolerance = tolerance->get<double>();
  }
  spec.sync_period_us = whole_seconds(reader, "sync_period", spec.sync_period_us, kUsPerS);
  const DurationUs zero = 0;
  spec.start_up_delay_us = reader.duration_field("start_up_delay", &zero, 0, kUsPerHour);
  static const json no_behavior = json::object();
  const json* behavior_value = reader.find("behavior");
  ObjectReader behavior(behavior_value != nullptr ? *behavior_value : no_behavior,
                        reader.path_of("behavior"), reader.file());
  spec.scale_up = read_rules(behavior, "scaleUp", true);
  spec.scale_down = read_rules(behavior, "scaleDown", false);
  behavior.reject_unknown();
  reader.reject_unknown();
  return spec;
}

}  // namespace rlsim
