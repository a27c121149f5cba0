#pragma once
// rlsim's exit codes (documented in README.md, docs/cli.md and docs/ci.md), and the error that
// carries one out of a run. Any command file includes this without including the run.
#include <stdexcept>
#include <string>

#include "core/terminal_text.h"

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

// A run that cannot finish because of something the user supplied (a Lua script that fails to
// compile or exceeds its budget, a Redis that cannot be used). `exit_code` is the documented
// code to exit with (exit_code::k*).
class RunError : public std::runtime_error {
 public:
  // The message may quote a script's error or a server's reply: its control characters are
  // escaped (core/terminal_text.h), since main prints it on a terminal.
  RunError(const std::string& message, int code)
      : std::runtime_error(escape_controls(message)), exit_code(code) {}
  int exit_code;
};

}  // namespace rlsim
