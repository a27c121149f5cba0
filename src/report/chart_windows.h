#pragma once
// Where the time charts' per-window lines end: at the end of the run's data, never with a drop to
// 0 for a window that was cut short or holds only the requests decided after the end.
#include <optional>

#include "report/results.h"
#include "report/svg_chart.h"

namespace rlsim {

// The true time the run's data ends: the scenario's duration, or where a stopped run stopped.
TimeUs chart_end_us(const RunResult& result);

// Whether the time charts draw the window (or bucket) starting at `start_us`: it starts before
// the end. Windows after it hold only the requests still decided while the last ones drain.
bool charted_window(const RunResult& result, TimeUs start_us);

// The shaded band that marks the last window of the first limit as partial when the end cuts it
// ("last window partial: 30s of 1m"), x in units of `divisor_us`; none when it ends on a window's
// boundary.
std::optional<ChartBand> partial_window_band(const RunResult& result, double divisor_us);

}  // namespace rlsim
