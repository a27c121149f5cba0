#pragma once
// The error that stops a run because of something the user supplied, typed by what went wrong so
// that each front end maps it to its own answer (the CLI to a documented exit code,
// app/exit_codes.h; the page to a message). The engine knows no exit codes.
#include <stdexcept>
#include <string>

#include "core/terminal_text.h"

namespace rlsim {

enum class RunErrorKind {
  kBadInput,          // a value the scenario or the command line gave cannot be used
  kOutput,            // a file the run writes could not be written
  kScript,            // a Lua script failed to compile or exceeded its budget
  kRedisUnavailable,  // a real Redis could not be used at the start
};

// A run that cannot finish because of something the user supplied (a Lua script that fails to
// compile or exceeds its budget, a Redis that cannot be used).
class RunError : public std::runtime_error {
 public:
  // The message may quote a script's error or a server's reply: its control characters are
  // escaped (core/terminal_text.h), since front ends print it on a terminal or a page.
  RunError(const std::string& message, RunErrorKind error_kind)
      : std::runtime_error(escape_controls(message)), kind(error_kind) {}
  RunErrorKind kind;
};

}  // namespace rlsim
