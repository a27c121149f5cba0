#pragma once
// Why a strategy that gives every instance the full limit (in_memory) shows less than N x the
// limit with N instances: the busiest key does not send N x the limit per window. Computed from
// the scenario's traffic rates, the limit and the instance count the run had; the report prints
// it under the table and writes it into the strategy's JSON ("overshoot_cap").
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "report/results.h"

namespace rlsim {

struct OvershootCap {
  std::string label;                  // the strategy
  std::string limit;                  // the limit whose overshoot it is (the worst one)
  int instances = 0;                  // most instances active at once during the run
  std::int64_t instance_ceiling = 0;  // instances x the limit: what they could admit per window
  double offered_per_window = 0;      // the busiest key's mean offered requests per window
  double overshoot = 0;               // the strategy's worst overshoot (as the report has it)
  std::string reason;                 // one line, as printed under the table
};

// The cap for `strategy`, when it is a per-instance limiter (StrategyResult::per_instance_limit)
// whose overshoot is above 1 and below its instance count because the busiest key of its worst
// limit offers fewer than instances x limit per window; nullopt otherwise, and also when the
// offered rate per key cannot be read off the scenario (keys by IP or endpoint, retrying clients).
std::optional<OvershootCap> overshoot_cap(const Scenario& scenario, const StrategyResult& strategy);

// The strategy's "overshoot_cap" object of the JSON report.
nlohmann::ordered_json overshoot_cap_json(const OvershootCap& cap);

}  // namespace rlsim
