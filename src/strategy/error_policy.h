#pragma once
// What a decision does when a Redis call fails or times out (the `on_error` parameter every Redis
// strategy takes, docs/resilience.md). Parsed once from the parameter's text (by
// ParamReader::error_policy, strategy/params.h, when a strategy is built); the strategies and the
// resilience decorator compare the enum, never the text, so "fail_open" and its old name "allow"
// mean the same everywhere.
#include <optional>
#include <string_view>

namespace rlsim {

enum class ErrorPolicy { kFailOpen, kFailClosed, kLocalFallback };
// "fail_open", "fail_closed", "local_fallback": the report's spelling.
const char* to_string(ErrorPolicy policy);
// The policy named `text`: its own name, or the old names "allow" (fail_open) and "deny"
// (fail_closed); nullopt for anything else.
std::optional<ErrorPolicy> parse_error_policy(std::string_view text);
// Whether a strategy skips a limit whose Redis call failed (true) or denies (false): under
// local_fallback the strategy skips it and the resilience decorator's local counter decides.
inline bool skips_failed_limit(ErrorPolicy policy) { return policy != ErrorPolicy::kFailClosed; }

}  // namespace rlsim
