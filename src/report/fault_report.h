#pragma once
// Lines under the run's table for the fields app/faults.cpp adds to each strategy (the Redis
// node, the resilience policy, each fault window). Pure function of the results.
#include <string>

#include "report/report.h"

namespace rlsim {

// "" when no strategy has any of those fields.
std::string fault_notes(const RunResult& result);

}  // namespace rlsim
