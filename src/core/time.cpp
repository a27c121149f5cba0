#include "core/time.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "core/parse_double.h"

namespace rlsim {
namespace {

__extension__ using Wide = __int128;  // exact decimal arithmetic on up to 25 digits

}  // namespace

std::optional<DurationUs> parse_duration(std::string_view text, bool allow_negative) {
  // Exact decimal arithmetic: "1.0000005s" is not a whole number of microseconds and is rejected,
  // however large the value (a relative tolerance would accept it).
  std::size_t pos = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) {
    if (!allow_negative) return std::nullopt;
    pos = 1;
  }
  Wide mantissa = 0;  // the digits without the point
  int fraction_digits = 0;
  int digits = 0;
  bool seen_point = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    if (++digits > 25) return std::nullopt;  // keeps mantissa * scale within 128 bits
    mantissa = mantissa * 10 + (c - '0');
    if (seen_point) ++fraction_digits;
  }
  if (digits == 0 || pos == text.size()) return std::nullopt;
  if (seen_point && (fraction_digits == 0 || text[negative ? 1 : 0] == '.')) return std::nullopt;
  const std::string_view unit = text.substr(pos);
  std::int64_t scale = 0;
  if (unit == "us") {
    scale = 1;
  } else if (unit == "ms") {
    scale = kUsPerMs;
  } else if (unit == "s") {
    scale = kUsPerS;
  } else if (unit == "m") {
    scale = kUsPerMin;
  } else if (unit == "h") {
    scale = kUsPerHour;
  } else {
    return std::nullopt;
  }
  Wide divisor = 1;
  for (int i = 0; i < fraction_digits; ++i) divisor *= 10;
  const Wide scaled = mantissa * scale;
  if (scaled % divisor != 0) return std::nullopt;
  const Wide us = scaled / divisor;
  // Bound at about 290 years so that sums of durations cannot overflow int64.
  if (us > static_cast<Wide>(9'000'000'000'000'000LL)) return std::nullopt;
  return static_cast<DurationUs>(negative ? -us : us);
}

std::optional<double> parse_rate_per_s(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos || slash == 0) return std::nullopt;
  double count = 0;
  const auto number = text.substr(0, slash);
  auto [ptr, ec] = from_chars_double(number.data(), number.data() + number.size(), count);
  if (ec != std::errc() || ptr != number.data() + number.size() || !std::isfinite(count)) {
    return std::nullopt;
  }
  const auto unit = text.substr(slash + 1);
  double per_s = 0;
  if (unit == "s") {
    per_s = count;
  } else if (unit == "m") {
    per_s = count / 60.0;
  } else if (unit == "h") {
    per_s = count / 3600.0;
  } else {
    return std::nullopt;
  }
  return per_s;
}

std::string format_duration(DurationUs duration_us) {
  const DurationUs magnitude = duration_us < 0 ? -duration_us : duration_us;
  if (magnitude != 0 && magnitude % kUsPerHour == 0)
    return fmt::format("{}h", duration_us / kUsPerHour);
  if (magnitude != 0 && magnitude % kUsPerMin == 0)
    return fmt::format("{}m", duration_us / kUsPerMin);
  if (magnitude >= kUsPerS) return fmt::format("{:g}s", static_cast<double>(duration_us) / kUsPerS);
  if (magnitude >= kUsPerMs)
    return fmt::format("{:g}ms", static_cast<double>(duration_us) / kUsPerMs);
  return fmt::format("{}us", duration_us);
}

}  // namespace rlsim
