#include "core/time.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace rlsim {
namespace {

// Splits "12.5ms" into a number and a unit suffix; nullopt when the number part is malformed.
std::optional<std::pair<double, std::string_view>> split_number(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size() && (std::isdigit(static_cast<unsigned char>(text[pos])) ||
                               text[pos] == '.' || (pos == 0 && text[pos] == '-'))) {
    ++pos;
  }
  if (pos == 0 || pos == text.size()) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + pos, value);
  if (ec != std::errc() || ptr != text.data() + pos || !std::isfinite(value)) return std::nullopt;
  return std::make_pair(value, text.substr(pos));
}

}  // namespace

std::optional<DurationUs> parse_duration(std::string_view text, bool allow_negative) {
  auto parts = split_number(text);
  if (!parts) return std::nullopt;
  auto [value, unit] = *parts;
  if (value < 0 && !allow_negative) return std::nullopt;
  double scale = 0;
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
  const double us = value * scale;
  // Bound at about 290 years so that sums of durations cannot overflow int64.
  if (std::fabs(us) > 9.0e15) return std::nullopt;
  const double rounded = std::round(us);
  if (std::fabs(us - rounded) > 1e-6 * std::max(1.0, std::fabs(us))) return std::nullopt;
  return static_cast<DurationUs>(rounded);
}

std::optional<double> parse_rate_per_s(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos || slash == 0) return std::nullopt;
  double count = 0;
  const auto number = text.substr(0, slash);
  auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), count);
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
