#pragma once
// The report's charts of what happened around the limiter (report/state_charts.cpp): the Redis
// node's load, the circuit breakers' states and the fallback, the clocks' errors, and the
// per-region admissions. Each is drawn only from report fields the run has, so a scenario without
// Redis, faults, clocks or regions gets none of them. Pure functions of the results.
#include <string>
#include <vector>

#include "report/results.h"
#include "report/svg_chart.h"

namespace rlsim {

// Appends, in this order and only where the data is present: Redis ops/s ("redis-ops"),
// utilization ("redis-utilization") and longest queue ("redis-queue", when at least 1% of the calls
// queued); decisions the on_error policy made instead of Redis per second ("fallback", when any);
// the breaker states of each strategy with a circuit breaker ("breaker-<n>", n = strategy's 1-based
// position); clock error per instance and of the Redis node ("clock-error"); and, per strategy of a
// multi-region run, the most admitted for one key per window in each region and across regions
// against the limit ("regions-<n>"). Time in units of `divisor_us` named `unit`; every chart shades
// the scenario's fault windows.
void append_state_charts(const RunResult& result, double divisor_us, const std::string& unit,
                         std::vector<Chart>& charts);

}  // namespace rlsim
