#pragma once
// One alert rule's timeline over a strategy run (report/alerts.h evaluates it; docs/metrics.md,
// "Alert timeline"): plain data, kept in StrategyResult so that renderers evaluate it once.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/time.h"
#include "scenario/model.h"

namespace rlsim {

struct AlertFiring {
  TimeUs fired_us = 0;
  std::optional<TimeUs> resolved_us;  // unset: still firing at the end of the run
};

// One fault as one alert saw it.
struct AlertDetection {
  std::size_t fault = 0;  // index in the scenario's faults
  TimeUs at_us = 0;
  // From the fault's start to the first firing at or after it (0 when the alert was already
  // firing); unset when it never fired after the start.
  std::optional<DurationUs> time_to_detect_us;
  // Admissions beyond a limit (summed over limits) from the fault's start to that firing, or to
  // the end of the run when it never fired.
  std::int64_t excess_before_detect = 0;
};

struct AlertTimeline {
  const AlertRule* rule = nullptr;
  std::vector<AlertFiring> firings;
  std::vector<AlertDetection> faults;
  // near_limit_share only: the decisions of the run whose count the strategy reported (0: the
  // metric never had a value; a strategy that reads no count, docs/metrics.md).
  std::optional<std::int64_t> counted_decisions;
};

}  // namespace rlsim
