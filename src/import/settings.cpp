#include "import/settings.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "core/parse_double.h"
#include "scenario/error.h"

namespace rlsim {

void check_setting_names(const ImportSettings& settings, const std::string& format,
                         const std::vector<std::string>& accepted) {
  for (const auto& [name, value] : settings) {
    if (std::find(accepted.begin(), accepted.end(), name) != accepted.end()) continue;
    std::string names;
    for (const std::string& one : accepted) names += (names.empty() ? "" : ", ") + one;
    throw ScenarioError(
        names.empty() ? fmt::format("--setting {}: the {} format takes no settings", name, format)
                      : fmt::format("--setting {}: unknown for {} (expected one of: {})", name,
                                    format, names));
  }
}

namespace {

[[noreturn]] void bad_setting(const std::string& name, const std::string& value,
                              const std::string& expected) {
  throw ScenarioError(fmt::format("--setting {}: expected {}, got \"{}\"", name, expected, value));
}

std::int64_t integer_setting(const std::string& name, const std::string& value, std::int64_t min,
                             std::int64_t max) {
  std::int64_t out = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || end != value.data() + value.size() || out < min || out > max)
    bad_setting(name, value, fmt::format("an integer from {} to {}", min, max));
  return out;
}

bool bool_setting(const std::string& name, const std::string& value) {
  // Go's strconv.ParseBool, which settings.go's envconfig uses.
  for (const char* yes : {"1", "t", "T", "TRUE", "true", "True"})
    if (value == yes) return true;
  for (const char* no : {"0", "f", "F", "FALSE", "false", "False"})
    if (value == no) return false;
  bad_setting(name, value, "true or false (Go's ParseBool: 1, t, true, 0, f, false...)");
}

std::string source_of(const std::string& name, const std::string& value) {
  return fmt::format("--setting {}={}", name, value);
}

// A duration in milliseconds (a flag's value) as rlsim's duration string.
std::string ms_setting(const std::string& name, const std::string& value) {
  return format_duration(integer_setting(name, value, 1, 3'600'000) * kUsPerMs);
}

}  // namespace

void apply_ratelimit_settings(const ImportSettings& settings, Imported& imported) {
  check_setting_names(
      settings, "envoy_ratelimit",
      {"LOCAL_CACHE_SIZE_IN_BYTES", "STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT", "NEAR_LIMIT_RATIO",
       "EXPIRATION_JITTER_MAX_SECONDS", "REDIS_TIMEOUT", "SHADOW_MODE"});
  for (const auto& [name, value] : settings) {
    const std::string source = source_of(name, value);
    if (name == "LOCAL_CACHE_SIZE_IN_BYTES") {
      const std::int64_t bytes = integer_setting(name, value, 0, 1'000'000'000);
      if (bytes > 0) imported.param("local_cache_size_in_bytes", bytes, source);
    } else if (name == "STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT") {
      imported.param("stop_cache_key_increment_when_overlimit", bool_setting(name, value), source);
    } else if (name == "SHADOW_MODE") {  // the service's global shadow mode: a dry run
      if (bool_setting(name, value)) imported.mode = {"shadow", source};
    } else if (name == "NEAR_LIMIT_RATIO") {
      double ratio = 0;
      const auto [end, ec] = from_chars_double(value.data(), value.data() + value.size(), ratio);
      if (ec != std::errc() || end != value.data() + value.size() || !(ratio > 0 && ratio <= 1))
        bad_setting(name, value, "a number above 0, at most 1");
      imported.param("near_limit_ratio", ratio, source);
    } else if (name == "EXPIRATION_JITTER_MAX_SECONDS") {
      imported.param("expiration_jitter_max",
                     format_duration(integer_setting(name, value, 0, 86'400) * kUsPerS), source);
    } else {  // REDIS_TIMEOUT: a Go duration ("10s"), which rlsim's spelling reads when simple
      const auto us = parse_duration(value);
      if (!us || *us < 1 || *us > 60 * kUsPerS)
        bad_setting(name, value, "a duration from 1us to 60s such as \"10s\" or \"500ms\"");
      imported.redis.emplace_back("timeout", Sourced{format_duration(*us), source});
    }
  }
}

void apply_limitador_settings(const ImportSettings& settings, Imported& imported) {
  check_setting_names(settings, "limitador",
                      {"flush-period", "batch-size", "max-cached", "response-timeout",
                       "REDIS_LOCAL_CACHE_FLUSHING_PERIOD_MS"});
  for (const auto& [name, value] : settings) {
    const std::string source = source_of(name, value);
    if (name == "flush-period" || name == "REDIS_LOCAL_CACHE_FLUSHING_PERIOD_MS") {
      imported.param("flush_period", ms_setting(name, value), source + " (ms)");
    } else if (name == "response-timeout") {
      imported.param("response_timeout", ms_setting(name, value), source + " (ms)");
    } else {
      imported.param(name == "batch-size" ? "batch_size" : "max_cached",
                     integer_setting(name, value, 1, 1'000'000), source);
    }
  }
}

}  // namespace rlsim
