#pragma once
// The notice a partial report opens with (a run stopped early by SIGINT, app/interrupt.h, or by
// the loss of its real Redis): one line, the same in the terminal table, report.html and report.md.
#include <string>

#include "report/results.h"

namespace rlsim {

// "PARTIAL REPORT: stopped by SIGINT at virtual time 12.3 s of 60.0 s (...)", or "PARTIAL
// REPORT: Redis at ... lost during strategy X at virtual time T s: <why>; not run: X, Y; ..."; ""
// when the run was not stopped early.
std::string partial_notice(const RunResult& result);

}  // namespace rlsim
