#include "strategy/registry.h"

#include <fmt/format.h>

namespace rlsim {

std::vector<std::string> redis_key_prefixes(const std::vector<Limit>& limits) {
  std::vector<std::string> prefixes;
  for (const Limit& limit : limits) {
    int same_kind = 0;
    for (const Limit& other : limits) same_kind += other.key == limit.key;
    const char* kind = limit.key == LimitKey::kEndpoint ? "ep" : to_string(limit.key);
    prefixes.push_back(fmt::format("rl:{}:", same_kind > 1 ? limit.name : std::string(kind)));
  }
  return prefixes;
}

const std::vector<StrategyInfo>& strategy_registry() {
  static const std::vector<StrategyInfo> registry = {
      {"in_memory",
       "per-instance fixed-window counter in process memory (the anti-pattern: N instances admit N "
       "x limit)",
       "Each instance keeps its own counter per key and window in a local dictionary, exactly like "
       "the "
       "lesson's local_fallback_allow(): the window is int(time.time() // window) on the "
       "instance's "
       "own clock, a request is allowed while the local count is below the limit, and nothing is "
       "shared. It sends no Redis commands and adds no latency. Its trade-off is the lesson's "
       "first "
       "point: behind a load balancer with N instances each one allows the full limit, so a user "
       "gets "
       "up to N x limit (10 instances x 100/min = 1000/min), and with autoscaling the effective "
       "limit "
       "moves with the instance count. A new instance starts with empty counters.",
       {},
       Algorithm::kFixedWindow,
       make_in_memory,
       nullptr},
      {"redis_fixed_window",
       "central fixed-window counter: INCR rl:user:<id>:<window>, then EXPIRE on the first hit",
       "Every instance counts in one Redis: for each limit it sends INCR "
       "rl:<kind>:<value>:<window>, "
       "where window = int(now // window) on the instance's clock, and when the counter has just "
       "been "
       "created (INCR returned 1) it sends EXPIRE key 2*window in a second round trip, so old "
       "windows "
       "disappear. A request is allowed while the counter is at most the limit; limits are checked "
       "in "
       "order and the first one over its limit denies. INCR is atomic, so all instances share one "
       "source of truth and the limit holds however many instances there are. The costs: one round "
       "trip per limit per request (two on a window's first request), Redis as a single point of "
       "failure (on_error decides: allow = fail open, deny = fail closed), and the gap between "
       "INCR "
       "and EXPIRE: if the EXPIRE is lost the key never expires.",
       {{"on_error",
         "enum",
         "allow",
         "what to do when a Redis call fails or times out: allow (fail open) or deny (fail closed)",
         {"allow", "deny"}}},
       Algorithm::kFixedWindow,
       make_redis_fixed_window,
       nullptr},
  };
  return registry;
}

const StrategyInfo* find_strategy(std::string_view name) {
  for (const auto& info : strategy_registry()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string strategy_names() {
  std::string names;
  for (const auto& info : strategy_registry()) names += (names.empty() ? "" : ", ") + info.name;
  return names;
}

std::optional<nlohmann::json> resolve_params(const StrategyInfo& info, const nlohmann::json& given,
                                             std::string& error_field, std::string& error) {
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
    const nlohmann::json& value = it.value();
    bool ok = false;
    if (spec->type == "bool") ok = value.is_boolean();
    if (spec->type == "int") ok = value.is_number_integer() && value.get<std::int64_t>() > 0;
    if (spec->type == "duration")
      ok = value.is_string() && parse_duration(value.get<std::string>()).has_value();
    if (spec->type == "enum") {
      for (const auto& choice : spec->choices)
        ok = ok || (value.is_string() && value.get<std::string>() == choice);
    }
    if (!ok) {
      std::string expected = spec->type == "bool"       ? "true or false"
                             : spec->type == "int"      ? "a positive integer"
                             : spec->type == "duration" ? "a duration such as \"2ms\""
                                                        : "";
      for (const auto& choice : spec->choices)
        expected += (expected.empty() ? "one of " : ", ") + fmt::format("\"{}\"", choice);
      error = fmt::format("expected {}, got {}", expected, value.dump());
      return std::nullopt;
    }
    resolved[it.key()] = value;
  }
  for (const auto& p : info.params) {
    if (!resolved.contains(p.name)) resolved[p.name] = p.default_value;
  }
  return resolved;
}

}  // namespace rlsim
