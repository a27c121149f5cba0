// The HPA algorithm (world/hpa.h) against hand computations of the Kubernetes controller's
// formulas: desired = ceil(ready x metric / target) outside the tolerance, the scale-up and
// scale-down policies, the stabilization windows, unready and missing pods.
#include <catch2/catch.hpp>

#include "world/hpa.h"

namespace rlsim_test_hpa {

using namespace rlsim;

namespace {

AutoscaleSpec hpa_spec(double target, int min_replicas, int max_replicas) {
  AutoscaleSpec spec;
  spec.enabled = true;
  spec.target_average_value = target;
  spec.min_replicas = min_replicas;
  spec.max_replicas = max_replicas;
  // The HPA's defaults (kubernetes pkg/apis/autoscaling/v2/defaults.go).
  spec.scale_up = {
      0,
      HpaScalingRules::Select::kMax,
      {{HpaScalingPolicy::Type::kPods, 4, 15}, {HpaScalingPolicy::Type::kPercent, 100, 15}}};
  spec.scale_down = {
      300, HpaScalingRules::Select::kMax, {{HpaScalingPolicy::Type::kPercent, 100, 15}}};
  return spec;
}

HpaInput pods(int current, std::vector<double> metrics, int unready = 0, int missing = 0) {
  return HpaInput{current, std::move(metrics), unready, missing};
}

}  // namespace

TEST_CASE("hpa: a constant 400/s against a target of 50 per pod goes 2, 6, 8 and stays") {
  const AutoscaleSpec spec = hpa_spec(50, 1, 20);
  HpaController hpa(spec);
  // 15 s: 2 pods at 200/s: ratio 4, ceil(4 x 2) = 8; the default scale-up policies allow
  // max(2 + 4 pods, ceil(2 x 200%)) = 6.
  HpaDecision d = hpa.evaluate(15 * kUsPerS, pods(2, {200, 200}));
  CHECK(d.usage_ratio == Approx(4.0));
  CHECK(d.recommendation == 8);
  CHECK(d.stabilized == 8);
  CHECK(d.desired == 6);
  CHECK(std::string(d.reason) == "ScaleUpLimit");
  // 30 s: 6 pods at 400/6 = 66.666/s (milli-values: 66666): ceil(1.33332 x 6) = 8. The +4 at
  // 15 s is not after 30 s - 15 s, so the period starts at 6: the limit is 12.
  d = hpa.evaluate(30 * kUsPerS, pods(6, std::vector<double>(6, 400.0 / 6)));
  CHECK(d.recommendation == 8);
  CHECK(d.desired == 8);
  CHECK(std::string(d.reason) == "DesiredWithinRange");
  // 45 s: 8 pods at 50/s: ratio 1, within the tolerance.
  d = hpa.evaluate(45 * kUsPerS, pods(8, std::vector<double>(8, 50)));
  CHECK(d.recommendation == 8);
  CHECK(d.desired == 8);
}

TEST_CASE("hpa: a ratio within the tolerance keeps the count, one just outside moves it") {
  const AutoscaleSpec spec = hpa_spec(100, 1, 50);
  HpaController hpa(spec);
  CHECK(hpa.evaluate(15 * kUsPerS, pods(10, std::vector<double>(10, 109))).desired == 10);
  // 110/100 is 1.1 on paper, but |1 - 1.1| is 0.10000000000000009 in doubles (as in the
  // controller's Go float64), above the tolerance 0.1: ceil(1.1 x 10) = 11.
  CHECK(hpa.evaluate(16 * kUsPerS, pods(10, std::vector<double>(10, 110))).desired == 11);
  // 111/100 = 1.11 > 1.1: ceil(1.11 x 11) = 13.
  CHECK(hpa.evaluate(30 * kUsPerS, pods(11, std::vector<double>(11, 111))).desired == 13);
}

TEST_CASE("hpa: scale-down waits for the highest recommendation of the last 300 s") {
  const AutoscaleSpec spec = hpa_spec(50, 1, 20);
  HpaController hpa(spec);
  CHECK(hpa.evaluate(15 * kUsPerS, pods(8, std::vector<double>(8, 50))).desired == 8);
  // From 30 s on the pods are idle (10/s: ceil(0.2 x 8) = 2), but the 8 recommended at 15 s is
  // inside the window until 315 s (strictly after now - 300 s).
  for (int t = 30; t <= 300; t += 15) {
    const HpaDecision d = hpa.evaluate(t * kUsPerS, pods(8, std::vector<double>(8, 10)));
    CHECK(d.recommendation == 2);
    CHECK(d.desired == 8);
  }
  const HpaDecision d = hpa.evaluate(315 * kUsPerS, pods(8, std::vector<double>(8, 10)));
  CHECK(d.stabilized == 2);
  CHECK(d.desired == 2);  // the default scale-down policy allows 100% per 15 s
}

TEST_CASE("hpa: unready pods count as idle on a scale-up, missing ones as at target on a down") {
  const AutoscaleSpec spec = hpa_spec(50, 1, 20);
  double ratio = 0, metric = 0;
  // 2 ready at 100/s and 2 starting: (100 + 100 + 0 + 0) / 4 = 50: ratio 1 -> keep 4.
  CHECK(HpaController::replica_count(pods(4, {100, 100}, 2), 50, 0.1, ratio, metric) == 4);
  CHECK(ratio == Approx(2.0));
  // 2 ready at 150/s, 2 starting: 300 / 4 = 75: ratio 1.5, ceil(1.5 x 4) = 6.
  CHECK(HpaController::replica_count(pods(4, {150, 150}, 2), 50, 0.1, ratio, metric) == 6);
  // Scale-down with one missing pod: (10 + 10 + 50) / 3 = 23.333: ceil(0.46666 x 3) = 2.
  CHECK(HpaController::replica_count(pods(3, {10, 10}, 0, 1), 50, 0.1, ratio, metric) == 2);
}

TEST_CASE("hpa: selectPolicy Min, Disabled, and the percent scale-down truncates") {
  AutoscaleSpec spec = hpa_spec(50, 1, 20);
  spec.scale_up.select = HpaScalingRules::Select::kMin;  // min(2 + 4, ceil(2 x 2)) = 4
  HpaController up(spec);
  CHECK(up.evaluate(15 * kUsPerS, pods(2, {500, 500})).desired == 4);
  spec.scale_up.select = HpaScalingRules::Select::kDisabled;
  HpaController disabled(spec);
  const HpaDecision d = disabled.evaluate(15 * kUsPerS, pods(2, {500, 500}));
  CHECK(d.desired == 2);
  CHECK(std::string(d.reason) == "ScaleUpLimit");
  spec = hpa_spec(50, 1, 20);
  spec.scale_down = {
      0, HpaScalingRules::Select::kMax, {{HpaScalingPolicy::Type::kPercent, 50, 60}}};
  HpaController down(spec);
  // 5 pods idle: wants 1; 50% of 5 is 2.5, truncated to 2 (int32 of the product).
  CHECK(down.evaluate(15 * kUsPerS, pods(5, std::vector<double>(5, 1))).desired == 2);
  // Within the 60 s period the start is still 5: no further step.
  CHECK(down.evaluate(30 * kUsPerS, pods(2, {1, 1})).desired == 2);
}

TEST_CASE("hpa: minReplicas and maxReplicas bound the count and name the reason") {
  const AutoscaleSpec spec = hpa_spec(50, 2, 5);
  HpaController hpa(spec);
  HpaDecision d = hpa.evaluate(15 * kUsPerS, pods(4, std::vector<double>(4, 500)));
  CHECK(d.desired == 5);
  CHECK(std::string(d.reason) == "TooManyReplicas");
  d = hpa.evaluate(30 * kUsPerS, pods(1, {50}));
  CHECK(d.desired == 2);
  CHECK(std::string(d.reason) == "BelowMinReplicas");
  d = hpa.evaluate(45 * kUsPerS, pods(3, {}));
  CHECK(d.desired == 3);
  CHECK(std::string(d.reason) == "FailedGetMetrics");
}

}  // namespace rlsim_test_hpa
