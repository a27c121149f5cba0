#include <catch2/catch.hpp>

#include "core/time.h"

using namespace rlsim;

TEST_CASE("durations parse with their units") {
  CHECK(parse_duration("250us") == 250);
  CHECK(parse_duration("2ms") == 2000);
  CHECK(parse_duration("1.5s") == 1'500'000);
  CHECK(parse_duration("1m") == 60'000'000);
  CHECK(parse_duration("1h") == 3'600'000'000LL);
  CHECK(parse_duration("0s") == 0);
}

TEST_CASE("malformed or negative durations are rejected") {
  for (const char* bad : {"", "5", "ms", "5 ms", "5sec", "1.5us", "-1s", "1e3s", "abc", "5ms "}) {
    INFO(bad);
    CHECK_FALSE(parse_duration(bad).has_value());
  }
  CHECK(parse_duration("-5ms", true) == -5000);
}

TEST_CASE("durations must be whole microseconds, exactly, at any size") {
  CHECK_FALSE(parse_duration("1.0000005s").has_value());
  CHECK_FALSE(parse_duration("100000.0000005s").has_value());
  CHECK(parse_duration("0.000001s") == 1);
  CHECK(parse_duration("1.000001s") == 1'000'001);
  CHECK(parse_duration("2.5000ms") == 2500);
  CHECK(parse_duration("100000h") == 360'000'000'000'000LL);
  CHECK_FALSE(parse_duration("3000000h").has_value());  // beyond the 290-year bound
  for (const char* bad : {".5s", "1.s", "1..5s", "--1s", "1.2.3s"}) {
    INFO(bad);
    CHECK_FALSE(parse_duration(bad, true).has_value());
  }
}

TEST_CASE("rates parse per second, minute and hour") {
  CHECK(parse_rate_per_s("100/s") == Approx(100));
  CHECK(parse_rate_per_s("2000/m") == Approx(2000.0 / 60));
  CHECK(parse_rate_per_s("36/h") == Approx(0.01));
  CHECK_FALSE(parse_rate_per_s("100").has_value());
  CHECK_FALSE(parse_rate_per_s("100/d").has_value());
  CHECK_FALSE(parse_rate_per_s("/s").has_value());
}

TEST_CASE("durations format with the largest exact unit") {
  CHECK(format_duration(60'000'000) == "1m");
  CHECK(format_duration(1'500'000) == "1.5s");
  CHECK(format_duration(2000) == "2ms");
  CHECK(format_duration(7) == "7us");
}
