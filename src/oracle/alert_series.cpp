#include "oracle/alert_series.h"

#include <algorithm>

namespace rlsim {

DurationUs alert_step_us(DurationUs duration_us) {
  const DurationUs step_s = std::max<DurationUs>(
      1, (duration_us / kUsPerS + Oracle::kMaxSeriesPoints - 1) / Oracle::kMaxSeriesPoints);
  return step_s * kUsPerS;
}

AlertWatch::AlertWatch(DurationUs duration_us, const Oracle& oracle) : oracle_(oracle) {
  series_.step_us = alert_step_us(duration_us);
  series_.steps.resize(static_cast<std::size_t>(
      std::max<DurationUs>(1, (duration_us + series_.step_us - 1) / series_.step_us)));
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
}

}  // namespace rlsim
