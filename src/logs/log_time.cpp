#include "logs/log_time.h"

#include <array>
#include <limits>

namespace rlsim {
namespace {

constexpr std::int64_t kUsPerSecond = 1'000'000;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Exactly `count` digits at `text[at]`, as a number; -1 when they are not all digits.
int fixed_digits(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return -1;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (!is_digit(text[i])) return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

// A fraction ".ddd" at text[at] (at most 6 digits kept, as microseconds); advances `at`.
bool read_fraction(std::string_view text, std::size_t& at, std::int64_t& us, bool& had) {
  had = false;
  us = 0;
  if (at >= text.size() || text[at] != '.') return true;
  ++at;
  std::int64_t scale = 100'000;
  const std::size_t first = at;
  while (at < text.size() && is_digit(text[at])) {
    us += (text[at] - '0') * scale;
    scale /= 10;
    ++at;
  }
  had = true;
  return at > first && at - first <= 9;
}

// "hh:mm:ss" at text[at] as seconds of the day; -1 when malformed.
std::int64_t clock_seconds(std::string_view text, std::size_t at) {
  const int hour = fixed_digits(text, at, 2), minute = fixed_digits(text, at + 3, 2),
            second = fixed_digits(text, at + 6, 2);
  if (hour < 0 || minute < 0 || second < 0 || text[at + 2] != ':' || text[at + 5] != ':' ||
      hour > 23 || minute > 59 || second > 60)
    return -1;
  return hour * 3600 + minute * 60 + second;
}

// "Z", "+hh:mm", "+hhmm", "-hh" at text[at] to the end: the zone's offset in seconds east of UTC.
std::optional<std::int64_t> zone_offset_s(std::string_view text, std::size_t at) {
  if (at == text.size()) return 0;
  if (text.substr(at) == "Z") return 0;
  if (text[at] != '+' && text[at] != '-') return std::nullopt;
  const std::int64_t sign = text[at] == '-' ? -1 : 1;
  const std::string_view rest = text.substr(at + 1);
  const int hours = fixed_digits(rest, 0, 2);
  int minutes = 0;
  if (rest.size() == 5 && rest[2] == ':') {
    minutes = fixed_digits(rest, 3, 2);
  } else if (rest.size() == 4) {
    minutes = fixed_digits(rest, 2, 2);
  } else if (rest.size() != 2) {
    return std::nullopt;
  }
  if (hours < 0 || minutes < 0 || hours > 23 || minutes > 59) return std::nullopt;
  return sign * (hours * 3600 + minutes * 60);
}

}  // namespace

std::optional<std::int64_t> unix_us_of_date(int year, int month, int day) {
  constexpr std::array<int, 12> kDays = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (year < 1970 || year > 9999 || month < 1 || month > 12 || day < 1 || day > kDays[month - 1])
    return std::nullopt;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month == 2 && day == 29 && !leap) return std::nullopt;
  // Howard Hinnant's days_from_civil.
  const int y = month <= 2 ? year - 1 : year;
  const int era = y / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const std::int64_t days = std::int64_t{era} * 146097 + doe - 719468;
  return days * 86400 * kUsPerSecond;
}

std::optional<std::int64_t> parse_seconds_us(std::string_view text) {
  std::size_t at = 0;
  std::int64_t seconds = 0;
  constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / kUsPerSecond / 2;
  while (at < text.size() && is_digit(text[at])) {
    seconds = seconds * 10 + (text[at] - '0');
    if (seconds > kMaxSeconds) return std::nullopt;
    ++at;
  }
  if (at == 0) return std::nullopt;
  std::int64_t fraction_us = 0;
  bool had_fraction = false;
  if (!read_fraction(text, at, fraction_us, had_fraction) || at != text.size()) return std::nullopt;
  return seconds * kUsPerSecond + fraction_us;
}

std::optional<std::int64_t> parse_iso8601_us(std::string_view text, bool* whole_second) {
  // yyyy-mm-ddThh:mm:ss: 19 characters before the fraction and the zone.
  if (text.size() < 19 || text[4] != '-' || text[7] != '-' || (text[10] != 'T' && text[10] != ' '))
    return std::nullopt;
  const auto day_us =
      unix_us_of_date(fixed_digits(text, 0, 4), fixed_digits(text, 5, 2), fixed_digits(text, 8, 2));
  const std::int64_t of_day_s = clock_seconds(text, 11);
  if (!day_us || of_day_s < 0) return std::nullopt;
  std::size_t at = 19;
  std::int64_t fraction_us = 0;
  bool had_fraction = false;
  if (!read_fraction(text, at, fraction_us, had_fraction)) return std::nullopt;
  const auto zone_s = zone_offset_s(text, at);
  if (!zone_s) return std::nullopt;
  if (whole_second != nullptr) *whole_second = !had_fraction;
  return *day_us + (of_day_s - *zone_s) * kUsPerSecond + fraction_us;
}

std::optional<std::int64_t> parse_clf_time_us(std::string_view text) {
  // dd/Mon/yyyy:hh:mm:ss, then " +hhmm" or ".mmm".
  constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (text.size() < 20 || text[2] != '/' || text[6] != '/' || text[11] != ':') return std::nullopt;
  int month = 0;
  for (std::size_t i = 0; i < kMonths.size(); ++i)
    if (text.substr(3, 3) == kMonths[i]) month = static_cast<int>(i) + 1;
  const auto day_us = unix_us_of_date(fixed_digits(text, 7, 4), month, fixed_digits(text, 0, 2));
  const std::int64_t of_day_s = clock_seconds(text, 12);
  if (!day_us || of_day_s < 0) return std::nullopt;
  std::size_t at = 20;
  std::int64_t fraction_us = 0;
  bool had_fraction = false;
  if (!read_fraction(text, at, fraction_us, had_fraction)) return std::nullopt;
  std::int64_t zone_s = 0;
  if (at < text.size()) {
    if (text[at] != ' ') return std::nullopt;
    const auto zone = zone_offset_s(text, at + 1);
    if (!zone) return std::nullopt;
    zone_s = *zone;
  }
  return *day_us + (of_day_s - zone_s) * kUsPerSecond + fraction_us;
}

std::optional<std::int64_t> parse_log_time_us(std::string_view text) {
  if (auto seconds = parse_seconds_us(text)) return seconds;
  return parse_iso8601_us(text);
}

}  // namespace rlsim
