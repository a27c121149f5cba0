#include "world/hpa.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/check.h"

namespace rlsim {

namespace {

// The HPA averages integer milli-values (metrics.GetMetricUsageRatio: the total of the pods'
// milli-values divided by their count, in int64), so the ratio is computed the same way here.
std::int64_t milli(double value) { return static_cast<std::int64_t>(std::floor(value * 1000)); }

// The average milli-value over `values` plus `extra` pods at `extra_milli` each.
std::int64_t average_milli(const std::vector<double>& values, int extra, std::int64_t extra_milli) {
  std::int64_t total = 0;
  for (double value : values) total += milli(value);
  total += extra * extra_milli;
  return total / static_cast<std::int64_t>(values.size() + static_cast<std::size_t>(extra));
}

int ceil_int(double value) { return static_cast<int>(std::ceil(value)); }

}  // namespace

int HpaController::replica_count(const HpaInput& input, double target, double tolerance,
                                 double& usage_ratio, double& metric) {
  RLSIM_CHECK(!input.pod_metrics.empty() && target > 0);
  const std::int64_t target_milli = std::max<std::int64_t>(1, milli(target));
  const std::int64_t average = average_milli(input.pod_metrics, 0, 0);
  metric = static_cast<double>(average) / 1000;
  usage_ratio = static_cast<double>(average) / static_cast<double>(target_milli);
  const int ready = static_cast<int>(input.pod_metrics.size());
  const bool rebalance_unready = input.unready_pods > 0 && usage_ratio > 1.0;
  if (!rebalance_unready && input.missing_pods == 0) {
    if (std::abs(1.0 - usage_ratio) <= tolerance) return input.current_replicas;
    return ceil_int(usage_ratio * ready);
  }
  // Missing pods count as at the target on a scale-down and as idle on a scale-up; unready pods
  // as idle on a scale-up (and are left out otherwise).
  int extra_zero = 0;
  int extra_target = 0;
  if (input.missing_pods > 0) (usage_ratio < 1.0 ? extra_target : extra_zero) = input.missing_pods;
  if (rebalance_unready) extra_zero += input.unready_pods;
  std::vector<double> values = input.pod_metrics;
  values.insert(values.end(), static_cast<std::size_t>(extra_target), target);
  const std::int64_t new_average = average_milli(values, extra_zero, 0);
  const double new_ratio = static_cast<double>(new_average) / static_cast<double>(target_milli);
  if (std::abs(1.0 - new_ratio) <= tolerance || (usage_ratio < 1.0 && new_ratio > 1.0) ||
      (usage_ratio > 1.0 && new_ratio < 1.0))
    return input.current_replicas;
  const int counted = static_cast<int>(values.size()) + extra_zero;
  const int replicas = ceil_int(new_ratio * counted);
  if ((new_ratio < 1.0 && replicas > input.current_replicas) ||
      (new_ratio > 1.0 && replicas < input.current_replicas))
    return input.current_replicas;
  return replicas;
}

HpaDecision HpaController::evaluate(TimeUs now_us, const HpaInput& input) {
  prune(now_us);
  HpaDecision decision;
  decision.at_us = now_us;
  decision.current_replicas = input.current_replicas;
  decision.ready_pods = static_cast<int>(input.pod_metrics.size()) + input.missing_pods;
  const int current = input.current_replicas;
  if (current > spec_.max_replicas || current < spec_.min_replicas) {
    // reconcileAutoscaler: outside the bounds the count goes straight to the bound.
    decision.recommendation = decision.stabilized = decision.desired =
        std::clamp(current, spec_.min_replicas, spec_.max_replicas);
    decision.reason = current > spec_.max_replicas ? "AboveMaxReplicas" : "BelowMinReplicas";
  } else if (input.pod_metrics.empty()) {
    decision.recommendation = decision.stabilized = decision.desired = current;
    decision.reason = "FailedGetMetrics";
  } else {
    decision.recommendation = replica_count(input, spec_.target_average_value, spec_.tolerance,
                                            decision.usage_ratio, decision.metric);
    decision.stabilized = stabilize(now_us, current, decision.recommendation);
    decision.desired = apply_rate(now_us, current, decision.stabilized, decision.reason);
  }
  if (decision.desired > current) up_events_.push_back({now_us, decision.desired - current});
  if (decision.desired < current) down_events_.push_back({now_us, current - decision.desired});
  return decision;
}

// stabilizeRecommendationWithBehaviors: the lowest recommendation of the scale-up window and the
// highest of the scale-down window bound the result; this sync's recommendation joins both.
int HpaController::stabilize(TimeUs now_us, int current, int recommendation) {
  const TimeUs up_cutoff_us = now_us - spec_.scale_up.stabilization_window_s * kUsPerS;
  const TimeUs down_cutoff_us = now_us - spec_.scale_down.stabilization_window_s * kUsPerS;
  int up = recommendation;
  int down = recommendation;
  for (const Stamped& past : recommendations_) {
    if (past.at_us > up_cutoff_us) up = std::min(up, past.value);
    if (past.at_us > down_cutoff_us) down = std::max(down, past.value);
  }
  recommendations_.push_back({now_us, recommendation});
  return std::min(std::max(current, up), down);
}

// convertDesiredReplicasWithBehaviorRate: the policies bound the change, then the replica bounds.
int HpaController::apply_rate(TimeUs now_us, int current, int desired, const char*& reason) const {
  reason = "DesiredWithinRange";
  if (desired > current) {
    const int limit = std::max(policy_limit(now_us, current, true), current);
    const int allowed = std::min(spec_.max_replicas, limit);
    reason = spec_.max_replicas > limit ? "ScaleUpLimit" : "TooManyReplicas";
    if (desired > allowed) return allowed;
    reason = "DesiredWithinRange";
  } else if (desired < current) {
    const int limit = std::min(policy_limit(now_us, current, false), current);
    const int allowed = std::max(spec_.min_replicas, limit);
    reason = spec_.min_replicas < limit ? "ScaleDownLimit" : "TooFewReplicas";
    if (desired < allowed) return allowed;
    reason = "DesiredWithinRange";
  }
  return desired;
}

// calculateScaleUpLimitWithScalingRules (`up`) and calculateScaleDownLimitWithBehaviors: the
// count each policy allows from the replicas at the start of its period; `selectPolicy` Max takes
// the largest change, Min the smallest. A percent scale-down truncates (int32 of the product).
int HpaController::policy_limit(TimeUs now_us, int current, bool up) const {
  const HpaScalingRules& rules = up ? spec_.scale_up : spec_.scale_down;
  if (rules.select == HpaScalingRules::Select::kDisabled) return current;
  // The largest change is the highest count up and the lowest down.
  const bool take_highest = (rules.select == HpaScalingRules::Select::kMax) == up;
  int result = take_highest ? std::numeric_limits<int>::min() : std::numeric_limits<int>::max();
  for (const HpaScalingPolicy& policy : rules.policies) {
    const int start = current - change_in_period(now_us, policy.period_s, up_events_) +
                      change_in_period(now_us, policy.period_s, down_events_);
    const int sign = up ? 1 : -1;
    int proposed = start + sign * policy.value;
    if (policy.type == HpaScalingPolicy::Type::kPercent) {
      const double scaled = start * (1 + sign * policy.value / 100.0);
      proposed = up ? ceil_int(scaled) : static_cast<int>(scaled);
    }
    result = take_highest ? std::max(result, proposed) : std::min(result, proposed);
  }
  return result;
}

// getReplicasChangePerPeriod: events strictly after now - period.
int HpaController::change_in_period(TimeUs now_us, int period_s,
                                    const std::deque<Stamped>& events) {
  const TimeUs cutoff_us = now_us - period_s * kUsPerS;
  int replicas = 0;
  for (const Stamped& event : events)
    if (event.at_us > cutoff_us) replicas += event.value;
  return replicas;
}

// Drops what no window can read any more, so the lists stay bounded by window / sync period.
void HpaController::prune(TimeUs now_us) {
  const int window_s =
      std::max(spec_.scale_up.stabilization_window_s, spec_.scale_down.stabilization_window_s);
  while (!recommendations_.empty() && recommendations_.front().at_us < now_us - window_s * kUsPerS)
    recommendations_.pop_front();
  int period_s = 0;
  for (const auto* rules : {&spec_.scale_up, &spec_.scale_down})
    for (const HpaScalingPolicy& policy : rules->policies)
      period_s = std::max(period_s, policy.period_s);
  for (auto* events : {&up_events_, &down_events_})
    while (!events->empty() && events->front().at_us < now_us - period_s * kUsPerS)
      events->pop_front();
}

}  // namespace rlsim
