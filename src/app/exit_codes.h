#pragma once
// rlsim's exit codes (documented in README.md, docs/cli.md and docs/ci.md), and the one each
// engine error (engine/run_error.h) maps to. Any command file includes this without the run.
#include "engine/run_error.h"

namespace rlsim::exit_code {
constexpr int kOk = 0;
constexpr int kInternal = 1;     // a bug in rlsim (an assertion aborts instead, with a message)
constexpr int kCheckFailed = 1;  // `check`: an expectation, determinism or baseline case failed;
                                 // `run --check-determinism`: two runs differed (an rlsim bug)
constexpr int kBadInput = 2;     // bad scenario, unknown strategy, bad command line
constexpr int kOutputError = 3;  // the report (or JUnit file) could not be written
constexpr int kScriptError = 4;  // a Lua script failed to compile or exceeded its budget
constexpr int kRedisUnavailable = 5;  // a real Redis (--redis) could not be used at the start
constexpr int kInterrupted =
    130;  // SIGINT: `run` or `sweep` wrote a partial report, `check` gave no verdict
          // (128 + SIGINT, what a shell reports for a process it killed)
}  // namespace rlsim::exit_code

namespace rlsim {

// The exit code of a run stopped by `error` (engine/run_error.h).
inline int exit_code_of(const RunError& error) {
  switch (error.kind) {
    case RunErrorKind::kBadInput:
      return exit_code::kBadInput;
    case RunErrorKind::kOutput:
      return exit_code::kOutputError;
    case RunErrorKind::kScript:
      return exit_code::kScriptError;
    case RunErrorKind::kRedisUnavailable:
      return exit_code::kRedisUnavailable;
  }
  return exit_code::kInternal;
}

}  // namespace rlsim
