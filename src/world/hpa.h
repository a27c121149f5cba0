#pragma once
// The Kubernetes HorizontalPodAutoscaler's decision, as its controller computes it once per sync
// period (kubernetes/kubernetes pkg/controller/podautoscaler: replica_calculator.go's
// calcPlainMetricReplicas, horizontal.go's reconcileAutoscaler,
// stabilizeRecommendationWithBehaviors, convertDesiredReplicasWithBehaviorRate and
// calculateScale{Up,Down}Limit...; docs/autoscaling.md). Pure: no simulator, no instances; the
// caller measures the pods and applies the decision (world/autoscaler.h).
#include <cstdint>
#include <deque>
#include <vector>

#include "core/time.h"
#include "scenario/autoscale_spec.h"

namespace rlsim {

// The pods as the controller sees them at one sync.
struct HpaInput {
  int current_replicas = 0;         // the scale's replicas: ready and starting pods
  std::vector<double> pod_metrics;  // one value per ready pod that has a metric
  int unready_pods = 0;             // starting (Pending): no metric, 0 on a scale-up
  int missing_pods = 0;             // ready without a metric yet: target (down) or 0 (up)
};

// One sync's decision and why (the report lists them).
struct HpaDecision {
  TimeUs at_us = 0;
  int current_replicas = 0;
  int ready_pods = 0;
  double metric = 0;        // the average over pods with a metric, as the HPA's status shows it
  double usage_ratio = 0;   // metric / target
  int recommendation = 0;   // the replica calculator's count (before stabilization and policies)
  int stabilized = 0;       // after the stabilization windows
  int desired = 0;          // after minReplicas/maxReplicas and the scaling policies
  const char* reason = "";  // the HPA's condition reason: ScaleUpLimit, TooManyReplicas, ...
};

class HpaController {
 public:
  // REQUIRES: spec.enabled, 1 <= min_replicas <= max_replicas, at least one policy per direction.
  explicit HpaController(const AutoscaleSpec& spec) : spec_(spec) {}

  // The decision at `now_us` (non-decreasing from call to call). Records the recommendation for
  // the stabilization windows and, when desired != current, the scale event for the policies.
  // With no pod metric at all the HPA cannot compute: desired = current, reason
  // "FailedGetMetrics".
  HpaDecision evaluate(TimeUs now_us, const HpaInput& input);

  // The replica calculator alone (calcPlainMetricReplicas): the count the metric asks for.
  static int replica_count(const HpaInput& input, double target, double tolerance,
                           double& usage_ratio, double& metric);

 private:
  struct Stamped {
    TimeUs at_us;
    int value;
  };
  int stabilize(TimeUs now_us, int current, int recommendation);
  int apply_rate(TimeUs now_us, int current, int desired, const char*& reason) const;
  int policy_limit(TimeUs now_us, int current, bool up) const;
  static int change_in_period(TimeUs now_us, int period_s, const std::deque<Stamped>& events);
  void prune(TimeUs now_us);

  const AutoscaleSpec& spec_;
  std::deque<Stamped> recommendations_;  // within the longer stabilization window
  std::deque<Stamped> up_events_;        // replicas added, within the longest policy period
  std::deque<Stamped> down_events_;      // replicas removed, likewise
};

}  // namespace rlsim
