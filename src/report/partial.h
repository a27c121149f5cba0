#pragma once
// The notice a partial report opens with (a run stopped early by SIGINT, app/interrupt.h): one
// line, the same in the terminal table, report.html and report.md.
#include <string>

#include "report/results.h"

namespace rlsim {

// "PARTIAL REPORT: stopped by SIGINT at virtual time 12.3 s of 60.0 s (...)"; "" when the run
// was not stopped early.
std::string partial_notice(const RunResult& result);

}  // namespace rlsim
