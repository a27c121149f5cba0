#pragma once
// What a decision does when a Redis call fails or times out (the `on_error` parameter every Redis
// strategy takes, docs/resilience.md). Parsed once from the parameter's text; the strategies and
// the resilience decorator compare the enum, never the text, so "fail_open" and its old name
// "allow" mean the same everywhere.
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace rlsim {

enum class ErrorPolicy { kFailOpen, kFailClosed, kLocalFallback };
// "fail_open", "fail_closed", "local_fallback": the report's spelling.
const char* to_string(ErrorPolicy policy);
// The policy named `text`: its own name, or the old names "allow" (fail_open) and "deny"
// (fail_closed); nullopt for anything else.
std::optional<ErrorPolicy> parse_error_policy(std::string_view text);
// The policy of resolved strategy parameters (their "on_error", checked against its choices).
ErrorPolicy error_policy_of(const nlohmann::json& params);
// Whether a strategy skips a limit whose Redis call failed (true) or denies (false): under
// local_fallback the strategy skips it and the resilience decorator's local counter decides.
inline bool skips_failed_limit(ErrorPolicy policy) { return policy != ErrorPolicy::kFailClosed; }

}  // namespace rlsim
