#include "oracle/alert_series.h"

#include <algorithm>

namespace rlsim {

DurationUs alert_step_us(DurationUs duration_us) {
  const DurationUs step_s = std::max<DurationUs>(
      1, (duration_us / kUsPerS + Oracle::kMaxSeriesPoints - 1) / Oracle::kMaxSeriesPoints);
  return step_s * kUsPerS;
}

AlertWatch::AlertWatch(const Scenario& scenario, const Oracle& oracle)
    : oracle_(oracle), first_limit_(scenario.limits.front().limit) {
  const DurationUs duration_us = scenario.duration_us;
  series_.step_us = alert_step_us(duration_us);
  series_.steps.resize(static_cast<std::size_t>(
      std::max<DurationUs>(1, (duration_us + series_.step_us - 1) / series_.step_us)));
  std::vector<double>& ratios = series_.near_limit_ratios;
  for (const AlertRule& rule : scenario.alerts)
    if (rule.metric == AlertMetric::kNearLimitShare) ratios.push_back(rule.near_limit_ratio);
  std::sort(ratios.begin(), ratios.end());
  ratios.erase(std::unique(ratios.begin(), ratios.end()), ratios.end());
  if (ratios.empty()) return;
  series_.counted.resize(series_.steps.size());
  series_.near_limit.resize(series_.steps.size() * ratios.size());
}

// What an operator's near-limit metric sees: the strategy's own count (the one it decided on),
// not the oracle's; decisions without one (an error, a fallback, a strategy that reads no count)
// are not in the share at all.
void AlertWatch::count_near_limit(std::size_t index, const Outcome& outcome) {
  const std::int64_t seen = outcome.count_seen();
  if (seen < 0) return;
  ++series_.counted[index];
  const std::size_t ratios = series_.near_limit_ratios.size();
  for (std::size_t r = 0; r < ratios; ++r)
    if (static_cast<double>(seen) >=
        series_.near_limit_ratios[r] * static_cast<double>(first_limit_))
      ++series_.near_limit[index * ratios + r];
}

void AlertWatch::on_decided(const DecidedRequest& decided) {
  // Requests still waiting on Redis when the traffic ends are decided after it: they count in
  // the last step, the run's last evaluation.
  const auto index = std::min<std::size_t>(
      static_cast<std::size_t>(decided.decided_us / series_.step_us), series_.steps.size() - 1);
  AlertStep& step = series_.steps[index];
  ++step.decisions;
  if (!decided.outcome.allowed) ++step.denied;
  if (decided.outcome.error) ++step.errors;
  if (decided.outcome.fallback) ++step.fallbacks;
  std::int64_t excess = 0;
  for (const LimitMetrics& limit : oracle_.totals().limits) excess += limit.excess;
  step.excess += excess - excess_seen_;
  excess_seen_ = excess;
  const DurationUs latency_us = decided.decided_us - decided.request.arrival_us;
  const auto bound =
      std::lower_bound(kSeriesLatencyBoundsUs.begin(), kSeriesLatencyBoundsUs.end(), latency_us);
  ++step.latency[static_cast<std::size_t>(bound - kSeriesLatencyBoundsUs.begin())];
  if (!series_.near_limit_ratios.empty()) count_near_limit(index, decided.outcome);
}

}  // namespace rlsim
