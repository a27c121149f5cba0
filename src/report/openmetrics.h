#pragma once
// The run's per-interval series as OpenMetrics text with timestamps (`rlsim run --metrics-out`),
// for `promtool tsdb create-blocks-from openmetrics`: a second writer over the same typed results
// as the JSON report (report/results.h), computing nothing of its own beyond sums over windows.
// docs/metrics.md ("OpenMetrics export") names every family and label.
#include <cstdint>
#include <string>

#include "core/time.h"
#include "report/results.h"

namespace rlsim {

// The Unix time (whole seconds) that virtual time 0 is written at when no other is asked for: the
// simulator's own epoch (kEpochUnixUs, 2025-06-16T00:00:00Z), which the oracle's aligned windows
// and the simulated Redis TIME already use.
inline constexpr std::int64_t kDefaultMetricsEpochUnixS = kEpochUnixUs / kUsPerS;
// The latest epoch accepted (9999-12-31T23:59:59Z): timestamps stay far inside Prometheus' int64
// milliseconds.
inline constexpr std::int64_t kMaxMetricsEpochUnixS = 253'402'300'799;

// The text of the OpenMetrics exposition, ending with "# EOF\n". Sample timestamps are
// `epoch_unix_s` plus virtual time, never the wall clock: the same result gives the same bytes.
std::string openmetrics_text(const RunResult& result, std::int64_t epoch_unix_s);

}  // namespace rlsim
