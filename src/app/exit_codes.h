#pragma once
// rlsim's exit codes (documented in README.md and docs/cli.md).
namespace rlsim::exit_code {
constexpr int kOk = 0;
constexpr int kInternal = 1;     // a bug in rlsim (an assertion aborts instead, with a message)
constexpr int kBadInput = 2;     // bad scenario, unknown strategy, bad command line
constexpr int kOutputError = 3;  // the report could not be written
constexpr int kScriptError = 4;  // a Lua script failed to compile or exceeded its budget
}  // namespace rlsim::exit_code
