#include "strategy/error_policy.h"

namespace rlsim {

const char* to_string(ErrorPolicy policy) {
  switch (policy) {
    case ErrorPolicy::kFailOpen:
      return "fail_open";
    case ErrorPolicy::kFailClosed:
      return "fail_closed";
    case ErrorPolicy::kLocalFallback:
      return "local_fallback";
  }
  return "?";
}

std::optional<ErrorPolicy> parse_error_policy(std::string_view text) {
  if (text == "fail_open" || text == "allow") return ErrorPolicy::kFailOpen;
  if (text == "fail_closed" || text == "deny") return ErrorPolicy::kFailClosed;
  if (text == "local_fallback") return ErrorPolicy::kLocalFallback;
  return std::nullopt;
}

}  // namespace rlsim
