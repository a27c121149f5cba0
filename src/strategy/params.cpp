#include "strategy/params.h"

#include <fmt/format.h>

#include <cmath>

namespace rlsim {

const char* to_string(ParamType type) {
  switch (type) {
    case ParamType::kBool:
      return "bool";
    case ParamType::kInt:
      return "int";
    case ParamType::kDuration:
      return "duration";
    case ParamType::kEnum:
      return "enum";
    case ParamType::kRate:
      return "rate";
    case ParamType::kPath:
      return "path";
    case ParamType::kString:
      return "string";
    case ParamType::kStringArray:
      return "string_array";
    case ParamType::kBreaker:
      return "breaker";
    case ParamType::kNumber:
      return "number";
  }
  return "?";
}

ParamSpec param(std::string name, ParamType type, nlohmann::json default_value, std::string doc) {
  return ParamSpec{std::move(name), type, std::move(default_value), std::move(doc), {}, false};
}

ParamSpec required_param(std::string name, ParamType type, std::string doc) {
  return ParamSpec{std::move(name), type, nullptr, std::move(doc), {}, true};
}

ParamSpec on_error_param() {
  return ParamSpec{"on_error",
                   ParamType::kEnum,
                   "fail_open",
                   "what a decision does when a Redis call fails or times out: fail_open (skip "
                   "that limit), fail_closed (deny), local_fallback (a local counter of limit / "
                   "divisor per window decides); allow and deny are the old names of fail_open "
                   "and fail_closed (docs/resilience.md)",
                   {"fail_open", "fail_closed", "local_fallback", "allow", "deny"},
                   false};
}

BucketShape bucket_shape_of(std::optional<std::int64_t> capacity,
                            std::optional<double> refill_per_s, const Limit& limit) {
  BucketShape shape;
  shape.capacity = capacity ? static_cast<double>(*capacity) : static_cast<double>(limit.limit);
  shape.refill_per_s = refill_per_s ? *refill_per_s
                                    : static_cast<double>(limit.limit) * kUsPerS /
                                          static_cast<double>(limit.window_us);
  return shape;
}

// ---- the reader --------------------------------------------------------------------------------

const nlohmann::json& ParamReader::at(std::string_view name) const {
  const auto it = resolved_.find(std::string(name));
  RLSIM_CHECK(it != resolved_.end());  // a parameter the strategy did not declare
  return *it;
}

bool ParamReader::boolean(std::string_view name) const {
  const nlohmann::json& value = at(name);
  RLSIM_CHECK(value.is_boolean());
  return value.get<bool>();
}

std::int64_t ParamReader::integer(std::string_view name) const {
  const nlohmann::json& value = at(name);
  RLSIM_CHECK(value.is_number_integer());
  return value.get<std::int64_t>();
}

double ParamReader::number(std::string_view name) const {
  const nlohmann::json& value = at(name);
  RLSIM_CHECK(value.is_number());
  return value.get<double>();
}

std::optional<std::int64_t> ParamReader::optional_integer(std::string_view name) const {
  if (at(name).is_null()) return std::nullopt;
  return integer(name);
}

DurationUs ParamReader::duration_us(std::string_view name) const {
  const auto duration = parse_duration(string(name));
  RLSIM_CHECK(duration.has_value());  // checked by resolve_params
  return *duration;
}

std::optional<DurationUs> ParamReader::optional_duration_us(std::string_view name) const {
  if (at(name).is_null()) return std::nullopt;
  return duration_us(name);
}

std::optional<double> ParamReader::optional_rate_per_s(std::string_view name) const {
  if (at(name).is_null()) return std::nullopt;
  const auto rate = parse_rate_per_s(string(name));
  RLSIM_CHECK(rate.has_value());  // checked by resolve_params
  return *rate;
}

const std::string& ParamReader::string(std::string_view name) const {
  const nlohmann::json& value = at(name);
  RLSIM_CHECK(value.is_string());
  return value.get_ref<const std::string&>();
}

std::vector<std::string> ParamReader::string_array(std::string_view name) const {
  const nlohmann::json& value = at(name);
  RLSIM_CHECK(value.is_array());
  std::vector<std::string> out;
  for (const nlohmann::json& element : value) {
    RLSIM_CHECK(element.is_string());  // checked by resolve_params
    out.push_back(element.get<std::string>());
  }
  return out;
}

ErrorPolicy ParamReader::error_policy() const {
  const auto policy = parse_error_policy(string("on_error"));
  RLSIM_CHECK(policy.has_value());  // checked against on_error's choices
  return *policy;
}

namespace {

constexpr DurationUs kMaxBreakerTimeUs = kUsPerHour;

// One field of a breaker object; false with `error` set when its value is out of range.
bool read_breaker_field(const std::string& key, const nlohmann::json& v, BreakerSpec& spec,
                        std::string& error) {
  if (key == "failures" || key == "probes") {
    const std::int64_t max = key == "failures" ? 1'000'000 : 1000;
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > max) {
      error = fmt::format("expected an integer from 1 to {}, got {}", max, v.dump());
      return false;
    }
    (key == "failures" ? spec.failures : spec.probes) = static_cast<int>(v.get<std::int64_t>());
  } else if (key == "window" || key == "cooldown") {
    const auto parsed = v.is_string() ? parse_duration(v.get<std::string>()) : std::nullopt;
    if (!parsed || *parsed < kUsPerMs || *parsed > kMaxBreakerTimeUs) {
      error = fmt::format("expected a duration from 1ms to 1h such as \"10s\" or \"1m30s\", got {}",
                          v.dump());
      return false;
    }
    (key == "window" ? spec.window_us : spec.cooldown_us) = *parsed;
  } else {
    error = "unknown field (expected one of: cooldown, failures, probes, window)";
    return false;
  }
  return true;
}

}  // namespace

std::optional<BreakerSpec> ParamReader::breaker(std::string& field, std::string& error) const {
  const nlohmann::json& value = at("breaker");
  BreakerSpec spec;
  if (!value.is_object()) return spec;  // false: no breaker (the type allows nothing else)
  spec.enabled = true;
  for (auto it = value.begin(); it != value.end(); ++it) {
    field = "breaker." + it.key();
    if (!read_breaker_field(it.key(), it.value(), spec, error)) return std::nullopt;
  }
  return spec;
}

namespace {

constexpr DurationUs kMaxNativeDurationUs = 24 * kUsPerHour;

// A number of seconds (kSeconds) or a {"seconds", "nanos"} object (kProto) as microseconds;
// nullopt when `value` is neither or out of range. Kong's -1 ("unset") is handled by the caller.
std::optional<DurationUs> native_duration_us(const nlohmann::json& value, NativeDuration native) {
  if (native == NativeDuration::kSeconds && value.is_number()) {
    const double us = value.get<double>() * static_cast<double>(kUsPerS);
    if (!(us >= 1.0 && us <= static_cast<double>(kMaxNativeDurationUs))) return std::nullopt;
    return static_cast<DurationUs>(std::llround(us));
  }
  if (native != NativeDuration::kProto || !value.is_object()) return std::nullopt;
  std::int64_t seconds = 0;
  std::int64_t nanos = 0;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!it.value().is_number_integer() || (it.key() != "seconds" && it.key() != "nanos"))
      return std::nullopt;
    (it.key() == "seconds" ? seconds : nanos) = it.value().get<std::int64_t>();
  }
  // Whole microseconds, as every rlsim duration.
  if (seconds < 0 || nanos < 0 || nanos > 999'999'999 || nanos % 1000 != 0 ||
      seconds > kMaxNativeDurationUs / kUsPerS)
    return std::nullopt;
  const DurationUs us = seconds * kUsPerS + nanos / 1000;
  if (us <= 0 || us > kMaxNativeDurationUs) return std::nullopt;
  return us;
}

// Kong's sync_rate -1: the parameter is unset.
bool is_native_unset(const ParamSpec& spec, const nlohmann::json& value) {
  return spec.native == NativeDuration::kSeconds && value.is_number() && value.get<double>() == -1;
}

bool duration_ok(const ParamSpec& spec, const nlohmann::json& value, std::string& expected) {
  expected = fmt::format("a duration such as {}", kDurationSpellings);
  if (spec.native == NativeDuration::kSeconds)
    expected += ", or a number of seconds such as 0.5 (-1: unset)";
  if (spec.native == NativeDuration::kProto)
    expected += R"(, or {"seconds": 1, "nanos": 500000000} (protobuf's Duration))";
  if (value.is_string()) return parse_duration(value.get<std::string>()).has_value();
  return is_native_unset(spec, value) || native_duration_us(value, spec.native).has_value();
}

// The value resolve_params keeps: a native duration as rlsim's duration string (null for -1).
nlohmann::json normalised(const ParamSpec& spec, const nlohmann::json& value) {
  if (spec.type != ParamType::kDuration || value.is_string()) return value;
  if (is_native_unset(spec, value)) return nullptr;
  return format_duration(*native_duration_us(value, spec.native));
}

bool is_enum_choice(const ParamSpec& spec, const nlohmann::json& value, std::string& expected) {
  for (const auto& choice : spec.choices) {
    expected += (expected.empty() ? "one of " : ", ") + fmt::format("\"{}\"", choice);
    if (value.is_string() && value.get<std::string>() == choice) return true;
  }
  return false;
}

// Whether `value` has the type `spec` asks for; otherwise sets `expected`.
bool param_type_ok(const ParamSpec& spec, const nlohmann::json& value, std::string& expected) {
  switch (spec.type) {
    case ParamType::kBool:
      expected = "true or false";
      return value.is_boolean();
    case ParamType::kInt:
      expected = fmt::format("a positive integer (at most {})", ScenarioBounds::kMaxLimitValue);
      return value.is_number_integer() && value.get<std::int64_t>() > 0 &&
             value.get<std::int64_t>() <= ScenarioBounds::kMaxLimitValue;
    case ParamType::kDuration:
      return duration_ok(spec, value, expected);
    case ParamType::kRate: {
      expected = "a rate such as \"100/m\" or \"2.5/s\"";
      if (!value.is_string()) return false;
      const auto rate = parse_rate_per_s(value.get<std::string>());
      return rate.has_value() && *rate > 0;
    }
    case ParamType::kPath:
      expected = "a file name (relative to the scenario file)";
      return value.is_string() && !value.get<std::string>().empty();
    case ParamType::kString:
      expected = "a string";
      return value.is_string();
    case ParamType::kStringArray:
      expected = "an array of strings";
      return value.is_array();  // the elements: string_elements_ok, with their index
    case ParamType::kBreaker:
      expected = "false or an object such as {\"failures\": 5, \"cooldown\": \"5s\"}";
      return value.is_object() || value == false;
    case ParamType::kEnum:
      return is_enum_choice(spec, value, expected);
    case ParamType::kNumber:
      expected = "a number";
      return value.is_number();
  }
  return false;
}

// Whether every element of a kStringArray `value` is a string; otherwise sets `error_field` to
// "<name>[<index>]" of the first that is not, and `error`.
bool string_elements_ok(const ParamSpec& spec, const nlohmann::json& value,
                        std::string& error_field, std::string& error) {
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i].is_string()) continue;
    error_field = fmt::format("{}[{}]", spec.name, i);
    error = fmt::format("expected {}, got {}", spec.element, value[i].dump());
    return false;
  }
  return true;
}

}  // namespace

std::optional<nlohmann::json> resolve_params(const StrategyInfo& info, const nlohmann::json& given,
                                             std::string& error_field, std::string& error,
                                             const std::string& scenario_dir) {
  nlohmann::json resolved = nlohmann::json::object();
  for (auto it = given.begin(); it != given.end(); ++it) {
    const ParamSpec* spec = nullptr;
    for (const auto& p : info.params) {
      if (p.name == it.key()) spec = &p;
    }
    error_field = it.key();
    if (spec == nullptr) {
      std::string names;
      for (const auto& p : info.params) names += (names.empty() ? "" : ", ") + p.name;
      error = names.empty()
                  ? fmt::format("unknown parameter ({} takes no parameters)", info.name)
                  : fmt::format("unknown parameter for {} (expected one of: {})", info.name, names);
      return std::nullopt;
    }
    std::string expected;
    if (!param_type_ok(*spec, it.value(), expected)) {
      error = fmt::format("expected {}, got {}", expected, it.value().dump());
      return std::nullopt;
    }
    if (spec->type == ParamType::kStringArray &&
        !string_elements_ok(*spec, it.value(), error_field, error))
      return std::nullopt;
    resolved[it.key()] = normalised(*spec, it.value());
  }
  for (const auto& p : info.params) {
    if (resolved.contains(p.name)) continue;
    if (p.required) {
      error_field = p.name;
      error = fmt::format("missing parameter {} for {} ({})", p.name, info.name, p.doc);
      return std::nullopt;
    }
    resolved[p.name] = p.default_value;
  }
  if (info.check && !info.check(ParamReader(resolved), scenario_dir, error_field, error))
    return std::nullopt;
  return resolved;
}

}  // namespace rlsim
