#pragma once
// The circuit breaker's settings, the `breaker` parameter of every strategy that takes on_error
// (docs/resilience.md#circuit-breaker): read by ParamReader (strategy/params.h), run by
// CircuitBreaker (strategy/resilience.h).
#include "core/time.h"

namespace rlsim {

struct BreakerSpec {
  bool enabled = false;
  int failures = 5;                      // failed decisions within `window` that open it
  DurationUs window_us = 10 * kUsPerS;   // the sliding window those failures are counted in
  DurationUs cooldown_us = 5 * kUsPerS;  // open this long before it lets probes through
  int probes = 1;  // probe decisions that must all succeed, in half-open, to close it
};

}  // namespace rlsim
