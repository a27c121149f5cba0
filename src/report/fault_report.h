#pragma once
// Lines under the run's table for the fields engine/faults.cpp adds to each strategy (the Redis
// node, the resilience policy, each fault window). Pure function of the results.
#include <string>

#include "report/results.h"
#include "report/svg_chart.h"

namespace rlsim {

// "" when no strategy has any of those fields.
std::string fault_notes(const RunResult& result);

// One shaded band per fault of the scenario, and a thin one at each clock fault's instant, for
// the time charts (x in units of `divisor_us`).
std::vector<ChartBand> fault_bands(const Scenario& scenario, double divisor_us);

}  // namespace rlsim
