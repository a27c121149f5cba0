#pragma once
// Known analytic worst cases beside what the search finds (docs/search.md#bounds): a fixed window
// admits at most 2L in any window-long interval, an exact sliding log L on its stamps' clock (2L
// on decision times, the round trip's share), a token bucket or GCRA
// C + r x W, N counters in N processes N x L per window (2N x L in any window-long interval),
// Kong's redis policy without sync_rate 2L (docs/products.md). A finding above its bound is a bug
// in the bound or in the model, and the report says so loudly.
#include <optional>
#include <string>

#include "search/candidate.h"

namespace rlsim {

struct AnalyticBound {
  double value = 0;     // in the metric's units (a ratio to the limit)
  std::string formula;  // "2L / L = 2: L at the end of one window, L at the start of the next"
};

// The bound of the problem's metric for its strategy, on a scenario with `instances` instances,
// or nullopt when none is known (only `overshoot` and `rolling_overshoot` of a few strategies).
// With several limits, the largest of their bounds (the metric is the largest over the limits).
std::optional<AnalyticBound> analytic_bound(const SearchProblem& problem, std::uint32_t instances);

// Why the problem has no stated bound (when analytic_bound gives none), for the report: "no
// stated bound" with the reason, e.g. Kong's sync_rate drops deltas made while a sync is out.
std::string no_bound_reason(const SearchProblem& problem);

}  // namespace rlsim
