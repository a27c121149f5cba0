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

// How a duration is written, for error messages: one or more parts "<number><unit>", the units
// from the largest down, a fraction only in the last part.
constexpr const char* kDurationSpellings =
    "\"250us\", \"2ms\", \"1.5s\", \"1m\", \"1h\", \"9m30s\", \"1h30m\" (units h, m, s, ms, us, "
    "largest first)";

// Parses "250us", "2ms", "1.5s", "1m", "1h" and their compounds from the largest unit down
// ("9m30s", "1h30m", "1m30.5s"; a fraction only in the last part), with a leading '-' when
// allow_negative. Returns nullopt for anything else, including values that do not fit or are not
// whole microseconds. parse_duration(format_duration(x)) == x for every x it accepts.
std::optional<DurationUs> parse_duration(std::string_view text, bool allow_negative = false);

// Parses "N/s", "N/m", "N/h" into requests per second (N may be fractional).
std::optional<double> parse_rate_per_s(std::string_view text);

// Formats a duration exactly, in parts from the largest unit down ("1m30s", "1h30m", "1.5s",
// "1.5ms", "250us", "0us"): the text parse_duration reads back to the same value.
std::string format_duration(DurationUs duration_us);

}  // namespace rlsim

namespace rlsim {
// Virtual time 0 shown as a Unix timestamp: 2025-06-16 00:00:00 UTC. Being a whole number of days,
// it keeps every window that divides a day aligned with the oracle's true-time windows.
constexpr std::int64_t kEpochUnixUs = 1'750'032'000LL * kUsPerS;
}  // namespace rlsim
