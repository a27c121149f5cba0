#pragma once
// The table of strategies. Each strategy's own file declares it (name, summary, explanation,
// parameters, ideal limiter, factory: a StrategyInfo, strategy/params.h) with one
// StrategyRegistration next to its class, so adding a strategy is adding a file; `rlsim list`,
// `rlsim explain`, scenario validation and docs/strategies.md read from this table.
//
// The registrations are namespace-scope objects of the rlsim_strategy library, which CMakeLists.txt
// links whole (WHOLE_ARCHIVE) into every program: otherwise the linker would drop the files
// nothing else refers to, and their strategies with them.
#include <string>
#include <string_view>
#include <vector>

#include "strategy/params.h"

namespace rlsim {

// Declares one strategy. `order` places it in the table (and in `rlsim list`); orders are unique,
// the built-in strategies use 10, 20, ... 150 (lessons' order: local, central counters, hybrids,
// regions). `declare` is called once, when the table is first used. Every strategy that takes
// on_error gets the resilience parameters and decorator (strategy/resilience.h).
class StrategyRegistration {
 public:
  StrategyRegistration(int order, StrategyInfo (*declare)());
};

// Every registered strategy, by order.
const std::vector<StrategyInfo>& strategy_registry();
const StrategyInfo* find_strategy(std::string_view name);
// "in_memory, redis_fixed_window, ...": every registered name, for error messages.
std::string strategy_names();

}  // namespace rlsim
