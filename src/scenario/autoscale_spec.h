#pragma once
// `instances.autoscale`: a reactive autoscaler with the Kubernetes HorizontalPodAutoscaler's
// algorithm (world/hpa.h, docs/autoscaling.md). The fields keep the HPA's names (minReplicas,
// maxReplicas, behavior.scaleUp/scaleDown, stabilizationWindowSeconds, selectPolicy, policies);
// the metric and the start-up delay are rlsim's, since the HPA reads them from the cluster.
#include <cstdint>
#include <vector>

#include "core/time.h"

namespace rlsim {

// One entry of behavior.scaleUp/scaleDown.policies (HPAScalingPolicy): at most `value` pods, or
// `value` percent of the replicas at the start of the period, added (removed) per `period_s`.
struct HpaScalingPolicy {
  enum class Type { kPods, kPercent };
  Type type = Type::kPods;
  int value = 1;     // >= 1
  int period_s = 1;  // 1 to 1800, as the HPA's validation
};

// behavior.scaleUp or behavior.scaleDown (HPAScalingRules).
struct HpaScalingRules {
  enum class Select { kMax, kMin, kDisabled };
  int stabilization_window_s = 0;  // 0 to 3600
  Select select = Select::kMax;
  std::vector<HpaScalingPolicy> policies;  // 1 to 10 entries
};

// What each instance reports to the autoscaler, averaged over its ready instances.
enum class AutoscaleMetric {
  kOfferedPerS,   // requests per second routed to the instance (before the limiter)
  kAdmittedPerS,  // requests per second the instance admitted (the app's work after the limiter)
  kCpu,           // millicores: CPU time per admitted and per denied request, per second
};
const char* to_string(AutoscaleMetric metric);

struct AutoscaleSpec {
  bool enabled = false;
  int min_replicas = 1;
  int max_replicas = 1;
  AutoscaleMetric metric = AutoscaleMetric::kOfferedPerS;
  double target_average_value = 1;             // the metric's target per instance (> 0)
  DurationUs cpu_per_admitted_us = 0;          // kCpu only
  DurationUs cpu_per_denied_us = 0;            // kCpu only
  DurationUs metric_window_us = 15 * kUsPerS;  // whole seconds; each instance's rate over it
  double tolerance = 0.1;                      // --horizontal-pod-autoscaler-tolerance
  DurationUs sync_period_us = 15 * kUsPerS;    // --horizontal-pod-autoscaler-sync-period
  DurationUs start_up_delay_us = 0;            // a new instance takes traffic after it
  HpaScalingRules scale_up;
  HpaScalingRules scale_down;
};

}  // namespace rlsim
