#pragma once
// How the reports round ratios, shared by report.cpp and the sections other layers add (clock
// attribution, regions).
#include <cmath>

namespace rlsim {

// Rounds a non-negative ratio to 4 decimals so that reports stay readable and stable.
inline double round4(double value) {
  return static_cast<double>(std::llround(value * 10000.0)) / 10000.0;
}

// Rounds a rate in [0, 1] to 8 decimals: error rates of interest are around 0.00003 (0.003%),
// which 4 decimals would show as 0.
inline double round8(double value) { return static_cast<double>(std::llround(value * 1e8)) / 1e8; }

}  // namespace rlsim
