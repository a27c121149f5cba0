#include "core/time.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>

#include "core/parse_double.h"

namespace rlsim {
namespace {

__extension__ using Wide = __int128;  // exact decimal arithmetic on up to 25 digits

}  // namespace

namespace {

struct DurationUnit {
  std::string_view name;
  std::int64_t scale_us;
};
// Largest first: the parts of a compound duration follow this order.
constexpr DurationUnit kDurationUnits[] = {
    {"h", kUsPerHour}, {"m", kUsPerMin}, {"s", kUsPerS}, {"ms", kUsPerMs}, {"us", 1}};
constexpr std::size_t kNoUnit = std::size(kDurationUnits);

// Bound at about 290 years so that sums of durations cannot overflow int64.
constexpr Wide kMaxDurationUs = 9'000'000'000'000'000LL;

// One part "<digits>[.<digits>]<unit>" at text[pos]: its exact microseconds, the index of its
// unit in kDurationUnits and whether it had a fraction; pos moves past it. nullopt when malformed,
// too long or not a whole number of microseconds.
struct DurationPart {
  Wide us = 0;
  std::size_t unit = kNoUnit;
  bool fractional = false;
};
std::optional<DurationPart> parse_duration_part(std::string_view text, std::size_t& pos) {
  // Exact decimal arithmetic: "1.0000005s" is not a whole number of microseconds and is rejected,
  // however large the value (a relative tolerance would accept it).
  const std::size_t number_start = pos;
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
  if (digits == 0 || (seen_point && (fraction_digits == 0 || text[number_start] == '.')))
    return std::nullopt;
  const std::size_t unit_start = pos;
  while (pos < text.size() && std::isalpha(static_cast<unsigned char>(text[pos]))) ++pos;
  const std::string_view unit = text.substr(unit_start, pos - unit_start);
  DurationPart part;
  part.fractional = seen_point;
  for (std::size_t u = 0; u < kNoUnit; ++u)
    if (unit == kDurationUnits[u].name) part.unit = u;
  if (part.unit == kNoUnit) return std::nullopt;
  Wide divisor = 1;
  for (int i = 0; i < fraction_digits; ++i) divisor *= 10;
  const Wide scaled = mantissa * kDurationUnits[part.unit].scale_us;
  if (scaled % divisor != 0) return std::nullopt;
  part.us = scaled / divisor;
  return part;
}

}  // namespace

std::optional<DurationUs> parse_duration(std::string_view text, bool allow_negative) {
  std::size_t pos = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) {
    if (!allow_negative) return std::nullopt;
    pos = 1;
  }
  if (pos == text.size()) return std::nullopt;
  Wide us = 0;
  std::size_t previous_unit = 0;
  bool first = true;
  bool previous_fractional = false;
  while (pos < text.size()) {
    const auto part = parse_duration_part(text, pos);
    // Units strictly from the largest down ("1h30m", not "30m1h" or "1m1m"), and a fraction only
    // in the last part ("1m30.5s", not "1.5m30s").
    if (!part || (!first && (part->unit <= previous_unit || previous_fractional)))
      return std::nullopt;
    us += part->us;
    if (us > kMaxDurationUs) return std::nullopt;
    previous_unit = part->unit;
    previous_fractional = part->fractional;
    first = false;
  }
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
  if (duration_us == 0) return "0us";
  std::string out = duration_us < 0 ? "-" : "";
  // Unsigned, so that the most negative value has a magnitude too.
  std::uint64_t rest = duration_us < 0 ? 0 - static_cast<std::uint64_t>(duration_us)
                                       : static_cast<std::uint64_t>(duration_us);
  constexpr auto hour = static_cast<std::uint64_t>(kUsPerHour);
  constexpr auto minute = static_cast<std::uint64_t>(kUsPerMin);
  constexpr auto second = static_cast<std::uint64_t>(kUsPerS);
  constexpr auto milli = static_cast<std::uint64_t>(kUsPerMs);
  if (rest >= hour) out += fmt::format("{}h", rest / hour);
  rest %= hour;
  if (rest >= minute) out += fmt::format("{}m", rest / minute);
  rest %= minute;
  if (rest == 0) return out;
  // The last part carries the fraction, written with as many digits as it needs (exact).
  const auto with_fraction = [](std::uint64_t whole, std::uint64_t fraction, int digits) {
    std::string text = fmt::format("{}.{:0{}}", whole, fraction, digits);
    while (text.back() == '0') text.pop_back();
    return text;
  };
  if (rest >= second)
    return out +
           (rest % second == 0 ? fmt::format("{}", rest / second)
                               : with_fraction(rest / second, rest % second, 6)) +
           "s";
  if (rest >= milli)
    return out +
           (rest % milli == 0 ? fmt::format("{}", rest / milli)
                              : with_fraction(rest / milli, rest % milli, 3)) +
           "ms";
  return out + fmt::format("{}us", rest);
}

}  // namespace rlsim
