#pragma once
// The time stamps request logs carry, as microseconds. Every parser returns nullopt on anything
// it does not accept in full; none reads the clock or the local time zone.
#include <cstdint>
#include <optional>
#include <string_view>

namespace rlsim {

// "1765000000", "1765000000.123", "12.5": seconds with at most 9 decimals (kept to microseconds).
std::optional<std::int64_t> parse_seconds_us(std::string_view text);

// ISO 8601 / RFC 3339 date-time: "2026-12-06T01:02:03Z", "2026-12-06T01:02:03.456+01:00",
// "2026-12-06 01:02:03" (no zone: UTC). `whole_second` is set when it has no fraction.
std::optional<std::int64_t> parse_iso8601_us(std::string_view text, bool* whole_second = nullptr);

// nginx's $time_local: "06/Dec/2026:01:02:03 +0100" (one-second resolution). HAProxy's accept
// date: "06/Dec/2026:01:02:03.456" (milliseconds, no zone: UTC).
std::optional<std::int64_t> parse_clf_time_us(std::string_view text);

// A time field of a CSV or JSON Lines log: seconds (parse_seconds_us) or ISO 8601.
std::optional<std::int64_t> parse_log_time_us(std::string_view text);

// Microseconds of Unix time at the start of civil date year-month-day (UTC); nullopt when the date
// does not exist.
std::optional<std::int64_t> unix_us_of_date(int year, int month, int day);

}  // namespace rlsim
