#include "report/chart_windows.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/time.h"

namespace rlsim {

TimeUs chart_end_us(const RunResult& result) {
  TimeUs end_us = result.scenario->duration_us;
  if (result.partial && result.partial->stopped_at_s)
    end_us = std::min(end_us, static_cast<TimeUs>(*result.partial->stopped_at_s * kUsPerS));
  return end_us;
}

bool charted_window(const RunResult& result, TimeUs start_us) {
  return start_us < chart_end_us(result);
}

std::optional<ChartBand> partial_window_band(const RunResult& result, double divisor_us) {
  const TimeUs window_us = result.scenario->limits.front().window_us;
  if (window_us <= 0) return std::nullopt;
  const TimeUs end_us = chart_end_us(result);
  const TimeUs cut_us = end_us % window_us;
  if (cut_us == 0) return std::nullopt;
  const TimeUs start_us = end_us - cut_us;
  return ChartBand{static_cast<double>(start_us) / divisor_us,
                   static_cast<double>(end_us) / divisor_us,
                   fmt::format("last window partial: {} of {}", format_duration(cut_us),
                               format_duration(window_us))};
}

}  // namespace rlsim
