#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"

namespace rlsim_test_time {

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

TEST_CASE("durations format in exact parts from the largest unit down") {
  CHECK(format_duration(60'000'000) == "1m");
  CHECK(format_duration(1'500'000) == "1.5s");
  CHECK(format_duration(2000) == "2ms");
  CHECK(format_duration(7) == "7us");
  CHECK(format_duration(0) == "0us");
  CHECK(format_duration(570 * kUsPerS) == "9m30s");
  CHECK(format_duration(90 * kUsPerMin) == "1h30m");
  CHECK(format_duration(kUsPerHour + kUsPerS) == "1h1s");
  CHECK(format_duration(kUsPerMin + 500 * kUsPerMs) == "1m500ms");
  CHECK(format_duration(90 * kUsPerS + 500 * kUsPerMs) == "1m30.5s");
  CHECK(format_duration(1'234'567) == "1.234567s");  // every digit, not 6 significant ones
  CHECK(format_duration(1500) == "1.5ms");
  CHECK(format_duration(-250 * kUsPerMs) == "-250ms");
}

TEST_CASE("compound durations parse from the largest unit down") {
  CHECK(parse_duration("9m30s") == 570 * kUsPerS);
  CHECK(parse_duration("1h30m") == 90 * kUsPerMin);
  CHECK(parse_duration("1h0m5s") == kUsPerHour + 5 * kUsPerS);
  CHECK(parse_duration("1m30.5s") == 90'500'000);
  CHECK(parse_duration("2s250ms") == 2'250'000);
  CHECK(parse_duration("1ms5us") == 1005);
  CHECK(parse_duration("-1m30s", true) == -90 * kUsPerS);
  for (const char* bad : {"30s9m", "1m1m", "1.5m30s", "9m 30s", "9m30", "9m-30s", "1h30x", "h30m",
                          "1m30s ", "-", "1ms1s", "1s1.5ms1us"}) {
    INFO(bad);
    CHECK_FALSE(parse_duration(bad, true).has_value());
  }
  CHECK_FALSE(parse_duration("-1m30s").has_value());       // negative only where allowed
  CHECK_FALSE(parse_duration("2500000h1us").has_value());  // the sum beyond the bound
}

TEST_CASE("every printed duration parses back to the same value") {
  std::vector<DurationUs> values = {0,
                                    1,
                                    7,
                                    999,
                                    1000,
                                    1001,
                                    1500,
                                    999'999,
                                    kUsPerS,
                                    1'234'567,
                                    59 * kUsPerS + 999'999,
                                    kUsPerMin,
                                    kUsPerMin + 1,
                                    570 * kUsPerS,
                                    kUsPerHour,
                                    kUsPerHour + kUsPerMin + kUsPerS + 1,
                                    90 * kUsPerMin,
                                    100'000 * kUsPerHour};
  // And a spread of odd values across the range, with a fixed generator (deterministic).
  std::uint64_t state = 12345;
  for (int i = 0; i < 2000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    values.push_back(static_cast<DurationUs>((state >> 11) % 400'000'000'000'000ULL) >> (i % 40));
  }
  for (const DurationUs us : values) {
    for (const DurationUs signed_us : {us, -us}) {
      const std::string text = format_duration(signed_us);
      INFO(signed_us << " printed as " << text);
      CHECK(parse_duration(text, true) == signed_us);
    }
  }
}

}  // namespace rlsim_test_time
