#pragma once
// The per-interval series alert rules are evaluated over (scenario `alerts`, report/alerts.h):
// per evaluation step of true time, the decisions, 429s, errors, fallback decisions, the
// oracle's excess and the rate check's latency buckets. Recorded by AlertWatch, an observer the
// run adds after the oracle only when the scenario has alerts, so other reports do not change; and
// for near_limit_share, the decisions whose count, as the strategy saw it, was near the limit.
#include <array>
#include <cstdint>
#include <vector>

#include "oracle/observer.h"
#include "oracle/oracle.h"
#include "scenario/model.h"

namespace rlsim {

struct AlertStep {
  std::int64_t decisions = 0;
  std::int64_t denied = 0;
  std::int64_t errors = 0;     // decisions during which a Redis call failed
  std::int64_t fallbacks = 0;  // decisions the error policy made instead of Redis
  std::int64_t excess = 0;     // admissions beyond a limit, as the oracle counts them
  // Decisions whose added latency fell at or below each bound of kSeriesLatencyBoundsUs and above
  // the one before it; the last entry counts those above all bounds.
  std::array<std::int64_t, kSeriesLatencyBoundsUs.size() + 1> latency{};
};

struct AlertSeries {
  DurationUs step_us = kUsPerS;
  std::vector<AlertStep> steps;  // step i covers true time [i * step_us, (i + 1) * step_us)
  // For near_limit_share rules only (empty without them): per step, the decisions for which the
  // strategy reported its count for the first limit's key (Decision::observed_count, else
  // counted_before), and of those, per ratio of near_limit_ratios (the rules' distinct ratios,
  // ascending), the ones whose count was at least that ratio of the first limit's limit, at
  // near_limit[i * near_limit_ratios.size() + r].
  std::vector<double> near_limit_ratios;
  std::vector<std::int64_t> counted;
  std::vector<std::int64_t> near_limit;
};

// The evaluation step of a run of `duration_us`: one second, or longer for runs above 100,000 s,
// the same step as the Redis nodes' series (engine/faults.cpp), so both line up.
DurationUs alert_step_us(DurationUs duration_us);

class AlertWatch final : public DecisionObserver {
 public:
  // `oracle` must be notified of each decision before this observer. Records the near-limit counts
  // only when one of the scenario's alerts is on near_limit_share.
  AlertWatch(const Scenario& scenario, const Oracle& oracle);
  void on_decided(const DecidedRequest& decided) override;
  const AlertSeries& series() const { return series_; }

 private:
  void count_near_limit(std::size_t index, const Outcome& outcome);

  const Oracle& oracle_;
  std::int64_t first_limit_ = 0;
  AlertSeries series_;
  std::int64_t excess_seen_ = 0;
};

}  // namespace rlsim
