#pragma once
// How the reports round and write ratios, shared by report.cpp, the renderers and the sections
// other layers add (clock attribution, regions).
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <string>

namespace rlsim {

// `total` per offered request (Redis commands, round trips), 0 when nothing was offered.
inline double per_request(std::uint64_t total, std::int64_t offered) {
  return offered == 0 ? 0.0 : static_cast<double>(total) / static_cast<double>(offered);
}

// Rounds a non-negative ratio to 4 decimals so that reports stay readable and stable.
inline double round4(double value) {
  return static_cast<double>(std::llround(value * 10000.0)) / 10000.0;
}

// Rounds a rate in [0, 1] to 8 decimals: error rates of interest are around 0.00003 (0.003%),
// which 4 decimals would show as 0.
inline double round8(double value) { return static_cast<double>(std::llround(value * 1e8)) / 1e8; }

// A ratio as "1.34x", with three decimals where two would show an overshoot as "1.00x" ("1.004x").
// It writes the value the JSON report holds (round4), so that the table, the verdict lines and
// the report files show one figure with one rounding.
inline std::string format_ratio(double ratio) {
  const double rounded = round4(ratio);
  return rounded > 1.0001 && rounded < 1.005 ? fmt::format("{:.3f}x", rounded)
                                             : fmt::format("{:.2f}x", rounded);
}

// A figure per offered request (Redis round trips, commands), from the value the JSON report
// holds (round4): 2 decimals, or all 4 below 0.1, where a batching strategy's figures are
// (local_budget's 0.0148 would read 0.01).
inline std::string format_per_request(double value) {
  const double rounded = round4(value);
  return rounded < 0.1 && rounded > 0 ? fmt::format("{:.4f}", rounded)
                                      : fmt::format("{:.2f}", rounded);
}

// Whether an overshoot counts as holding the limit (at most 1.0001, as report.json rounds it).
inline bool holds_limit(double overshoot) { return round4(overshoot) <= 1.0001; }

// A one-line verdict on a strategy's worst overshoot ("holds the limit", "10.00x the limit").
inline std::string verdict(double overshoot) {
  if (holds_limit(overshoot)) return "holds the limit";
  return format_ratio(overshoot) + " the limit";
}

}  // namespace rlsim
