#pragma once
// Virtual time. The simulation counts integer microseconds from the start of a run; nothing in
// rlsim's simulation ever reads the wall clock.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rlsim {

using TimeUs = std::int64_t;      // a point in virtual time, microseconds since the run began
using DurationUs = std::int64_t;  // a span of virtual time in microseconds

constexpr DurationUs kUsPerMs = 1000;
constexpr DurationUs kUsPerS = 1000 * 1000;
constexpr DurationUs kUsPerMin = 60 * kUsPerS;
// A span in seconds, for reports ("bucket_s", "recovery_s").
inline double to_seconds(DurationUs us) { return static_cast<double>(us) / kUsPerS; }
constexpr DurationUs kUsPerHour = 60 * kUsPerMin;

// Parses "250us", "2ms", "1.5s", "1m", "1h" (and a leading '-' when allow_negative).
// Returns nullopt for anything else, including values that do not fit or are not whole
// microseconds.
std::optional<DurationUs> parse_duration(std::string_view text, bool allow_negative = false);

// Parses "N/s", "N/m", "N/h" into requests per second (N may be fractional).
std::optional<double> parse_rate_per_s(std::string_view text);

// Formats a duration compactly with the largest unit that divides it ("90s", "1.5ms").
std::string format_duration(DurationUs duration_us);

}  // namespace rlsim

namespace rlsim {
// Virtual time 0 shown as a Unix timestamp: 2025-06-16 00:00:00 UTC. Being a whole number of days,
// it keeps every window that divides a day aligned with the oracle's true-time windows.
constexpr std::int64_t kEpochUnixUs = 1'750'032'000LL * kUsPerS;
}  // namespace rlsim
