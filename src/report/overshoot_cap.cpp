#include "report/overshoot_cap.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/rounding.h"

namespace rlsim {

namespace {

// The busiest key's mean offered requests per second for `key`, from the traffic groups' rates
// (the higher end of a ramp); nullopt when the scenario does not say (keys shared by IP or
// endpoint, or clients that retry, which add requests the rates do not show).
std::optional<double> busiest_key_rate_per_s(const Scenario& scenario, LimitKey key) {
  double busiest = 0;
  double all = 0;
  for (const TrafficGroup& group : scenario.traffic) {
    if (group.retry) return std::nullopt;
    const double per_user = std::max(group.rate_per_s, group.ramp_to_per_s);
    busiest = std::max(busiest, per_user);
    all += per_user * static_cast<double>(group.users);
  }
  if (key == LimitKey::kUser) return busiest;
  if (key == LimitKey::kGlobal) return all;
  return std::nullopt;
}

int most_instances(const StrategyResult& strategy) {
  int most = 0;
  for (const auto& [at_us, count] : strategy.instance_counts) most = std::max(most, count);
  return most;
}

}  // namespace

std::optional<OvershootCap> overshoot_cap(const Scenario& scenario,
                                          const StrategyResult& strategy) {
  if (!strategy.per_instance_limit || strategy.totals.limits.empty()) return std::nullopt;
  std::size_t worst = 0;
  const auto& limits = strategy.totals.limits;
  for (std::size_t i = 1; i < limits.size(); ++i)
    if (limits[i].overshoot > limits[worst].overshoot) worst = i;
  const Limit& limit = scenario.limits[worst];
  OvershootCap cap;
  cap.label = strategy.label;
  cap.limit = limit.name;
  cap.instances = most_instances(strategy);
  cap.instance_ceiling = cap.instances * limit.limit;
  cap.overshoot = round4(limits[worst].overshoot);
  const auto rate = busiest_key_rate_per_s(scenario, limit.key);
  if (!rate || cap.overshoot <= 1.0001 || cap.overshoot >= cap.instances) return std::nullopt;
  cap.offered_per_window = *rate * to_seconds(limit.window_us);
  if (cap.offered_per_window >= static_cast<double>(cap.instance_ceiling)) return std::nullopt;
  const std::string sender =
      limit.key == LimitKey::kUser ? "the busiest user sends" : "all users send";
  cap.reason = fmt::format(
      "{}: {}, not {}x: {} instances x {} could admit {} per {} window; {} ~{:.0f} "
      "({:.3g}x)",
      cap.label, format_ratio(cap.overshoot), cap.instances, cap.instances, limit.limit,
      cap.instance_ceiling, format_duration(limit.window_us), sender, cap.offered_per_window,
      cap.offered_per_window / static_cast<double>(limit.limit));
  return cap;
}

nlohmann::ordered_json overshoot_cap_json(const OvershootCap& cap) {
  return {{"limit", cap.limit},
          {"instances", cap.instances},
          {"instance_ceiling", cap.instance_ceiling},
          {"offered_per_window", round4(cap.offered_per_window)},
          {"reason", cap.reason}};
}

}  // namespace rlsim
