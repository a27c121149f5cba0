// logs/log_time: the time stamps request logs carry, computed by hand from the calendar.
#include <catch2/catch.hpp>

#include "logs/log_time.h"

namespace rlsim_test_log_time {

using namespace rlsim;

namespace {
// 2025-12-06T05:46:40Z.
constexpr std::int64_t kSampleUs = 1'765'000'000LL * 1'000'000;
}  // namespace

TEST_CASE("log seconds keep up to microseconds and refuse anything else") {
  CHECK(parse_seconds_us("1765000000") == kSampleUs);
  CHECK(parse_seconds_us("1765000000.123") == kSampleUs + 123'000);
  CHECK(parse_seconds_us("0.5") == 500'000);
  CHECK(parse_seconds_us("1.123456789") == 1'123'456);  // nanoseconds truncated
  CHECK_FALSE(parse_seconds_us(""));
  CHECK_FALSE(parse_seconds_us("-1"));
  CHECK_FALSE(parse_seconds_us("1."));
  CHECK_FALSE(parse_seconds_us("12s"));
  CHECK_FALSE(parse_seconds_us("99999999999999999999"));
}

TEST_CASE("ISO 8601 times with zones and fractions") {
  bool whole = false;
  CHECK(parse_iso8601_us("2025-12-06T05:46:40Z", &whole) == kSampleUs);
  CHECK(whole);
  CHECK(parse_iso8601_us("2025-12-06T06:46:40.250+01:00", &whole) == kSampleUs + 250'000);
  CHECK_FALSE(whole);
  CHECK(parse_iso8601_us("2025-12-06T00:46:40-0500") == kSampleUs);
  CHECK(parse_iso8601_us("2025-12-06 05:46:40") == kSampleUs);
  CHECK(parse_iso8601_us("1970-01-01T00:00:00Z") == 0);
  CHECK(parse_iso8601_us("2024-02-29T00:00:00Z").has_value());
  CHECK_FALSE(parse_iso8601_us("2025-02-29T00:00:00Z"));  // not a leap year
  CHECK_FALSE(parse_iso8601_us("2025-12-06T24:00:00Z"));
  CHECK_FALSE(parse_iso8601_us("2025-12-06T05:46:40 UTC"));
  CHECK_FALSE(parse_iso8601_us("2025-12-06"));
}

TEST_CASE("nginx time_local and HAProxy accept dates") {
  CHECK(parse_clf_time_us("06/Dec/2025:05:46:40 +0000") == kSampleUs);
  CHECK(parse_clf_time_us("06/Dec/2025:06:46:40 +0100") == kSampleUs);
  CHECK(parse_clf_time_us("06/Dec/2025:05:46:40.655") == kSampleUs + 655'000);
  CHECK_FALSE(parse_clf_time_us("06/Dek/2025:05:46:40 +0000"));
  CHECK_FALSE(parse_clf_time_us("6/Dec/2025:05:46:40 +0000"));
  CHECK_FALSE(parse_clf_time_us("06/Dec/2025:05:46:40 0000"));
}

TEST_CASE("a CSV or JSON Lines time is seconds or ISO 8601") {
  CHECK(parse_log_time_us("12.5") == 12'500'000);
  CHECK(parse_log_time_us("2025-12-06T05:46:40Z") == kSampleUs);
  CHECK_FALSE(parse_log_time_us("yesterday"));
}

}  // namespace rlsim_test_log_time
