#include "engine/strategy_timeout.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/time.h"
#include "scenario/error.h"

namespace rlsim {

namespace {

// As redis.timeout's bounds (scenario/load.cpp: from 1 us up to ScenarioBounds::kMaxRedisTimeUs).
constexpr DurationUs kStrategyTimeoutMaxUs = ScenarioBounds::kMaxRedisTimeUs;

bool declares_timeout_param(const StrategyInfo& info) {
  return std::any_of(info.params.begin(), info.params.end(),
                     [](const ParamSpec& param) { return param.name == "timeout"; });
}

}  // namespace

StrategyTimeout resolve_strategy_timeout(const Scenario& scenario, const StrategySpec& spec,
                                         const StrategyInfo& info, const std::string& file,
                                         nlohmann::json& params) {
  if (!declares_timeout_param(info) && params.contains("timeout")) {
    const nlohmann::json& value = params["timeout"];
    const std::optional<DurationUs> timeout_us =
        value.is_string() ? parse_duration(value.get<std::string>()) : std::nullopt;
    if (!timeout_us || *timeout_us < 1 || *timeout_us > kStrategyTimeoutMaxUs)
      throw ScenarioError(scenario_error_message(
          file, spec.json_path + ".timeout",
          fmt::format("expected a duration from 1us to {} (the strategy's Redis client "
                      "timeout), got {}",
                      format_duration(kStrategyTimeoutMaxUs), value.dump())));
    params.erase("timeout");
    return {timeout_us, "the entry's timeout"};
  }
  if (!scenario.redis.timeout_given && info.product_redis_timeout_us)
    return {info.product_redis_timeout_us, info.product_redis_timeout_from};
  return {};
}

std::unique_ptr<Scenario> scenario_with_strategy_timeout(const Scenario& scenario,
                                                         std::optional<DurationUs> timeout_us) {
  if (!timeout_us || *timeout_us == scenario.redis.timeout_us) return nullptr;
  auto copy = std::make_unique<Scenario>(scenario);
  copy->redis.timeout_us = *timeout_us;
  return copy;
}

}  // namespace rlsim
