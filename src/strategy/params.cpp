#include "strategy/params.h"

#include <fmt/format.h>

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

BucketShape bucket_shape_of(const nlohmann::json& params, const Limit& limit,
                            const char* capacity_param, const char* rate_param) {
  BucketShape shape;
  const nlohmann::json& capacity = params.at(capacity_param);
  shape.capacity = capacity.is_null() ? static_cast<double>(limit.limit) : capacity.get<double>();
  const nlohmann::json& rate = params.at(rate_param);
  shape.refill_per_s = rate.is_null() ? static_cast<double>(limit.limit) * kUsPerS /
                                            static_cast<double>(limit.window_us)
                                      : *parse_rate_per_s(rate.get<std::string>());
  return shape;
}

namespace {

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
      expected = "a duration such as \"2ms\"";
      return value.is_string() && parse_duration(value.get<std::string>()).has_value();
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
      return value.is_array();  // the elements are checked by StrategyInfo::check, with their index
    case ParamType::kBreaker:
      expected = "false or an object such as {\"failures\": 5, \"cooldown\": \"5s\"}";
      return value.is_object() || value == false;
    case ParamType::kEnum:
      return is_enum_choice(spec, value, expected);
  }
  return false;
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
    resolved[it.key()] = it.value();
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
  if (info.check && !info.check(resolved, scenario_dir, error_field, error)) return std::nullopt;
  return resolved;
}

}  // namespace rlsim
