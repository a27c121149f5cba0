#include "scenario/alerts.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "scenario/reader.h"

namespace rlsim {
namespace {

using nlohmann::json;

constexpr int kMaxAlerts = 64;

constexpr std::pair<const char*, AlertMetric> kMetrics[] = {
    {"rate_check_p50_ms", AlertMetric::kRateCheckP50Ms},
    {"rate_check_p99_ms", AlertMetric::kRateCheckP99Ms},
    {"fallback_per_s", AlertMetric::kFallbackPerS},
    {"denied_per_s", AlertMetric::kDeniedPerS},
    {"denied_share", AlertMetric::kDeniedShare},
    {"errors_per_s", AlertMetric::kErrorsPerS},
    {"redis_utilization", AlertMetric::kRedisUtilization},
    {"redis_queue", AlertMetric::kRedisQueue},
    {"near_limit_share", AlertMetric::kNearLimitShare},
};

// An alert's name is a key of the report's `alerts` object and a step of an `expect` metric path
// (alerts.<name>.time_to_detect_s): no '.', which would split the path.
void check_alert_name(const ObjectReader& reader, const std::string& name) {
  const bool ok = !name.empty() && name.size() <= kMaxNameLength &&
                  name.find_first_not_of(
                      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                      "0123456789_-") == std::string::npos;
  if (!ok)
    reader.fail(reader.path_of("name"),
                fmt::format("expected 1 to 64 characters from [A-Za-z0-9_-], got \"{}\"", name));
}

// near_limit_share's "ratio" (the share of the limit a count must reach), and no other metric's.
void read_ratio(ObjectReader& reader, AlertRule& rule) {
  const json* ratio = reader.find("ratio");
  if (ratio == nullptr) return;
  if (rule.metric != AlertMetric::kNearLimitShare)
    reader.fail(reader.path_of("ratio"),
                fmt::format("only the metric \"near_limit_share\" takes a ratio, not \"{}\"",
                            to_string(rule.metric)));
  if (!ratio->is_number() || !(ratio->get<double>() > 0) || ratio->get<double>() > 1)
    reader.fail(reader.path_of("ratio"),
                fmt::format("expected a number above 0 and at most 1, got {}", ratio->dump()));
  rule.near_limit_ratio = ratio->get<double>();
}

AlertRule read_alert(const json& value, const std::string& path, const std::string& file,
                     DurationUs duration_us) {
  ObjectReader reader(value, path, file,
                      {"name", "metric", "above", "below", "for", "window", "ratio"});
  AlertRule rule;
  rule.json_path = path;
  rule.name = reader.string_field("name", nullptr);
  check_alert_name(reader, rule.name);
  const json& metric = reader.require("metric");
  if (!metric.is_string())
    reader.fail(reader.path_of("metric"),
                fmt::format("expected one of {}, got {}", alert_metric_names(), metric.dump()));
  bool known = false;
  for (const auto& [name, m] : kMetrics) {
    if (metric.get<std::string>() != name) continue;
    rule.metric = m;
    known = true;
  }
  if (!known)
    reader.fail(reader.path_of("metric"),
                fmt::format("unknown metric \"{}\" (expected one of {})", metric.get<std::string>(),
                            alert_metric_names()));
  const json* above = reader.find("above");
  const json* below = reader.find("below");
  if ((above == nullptr) == (below == nullptr))
    reader.fail(path, above != nullptr ? "expected one of \"above\" and \"below\", got both"
                                       : "expected one of \"above\" or \"below\"");
  rule.above = above != nullptr;
  const json& threshold = rule.above ? *above : *below;
  const std::string threshold_path = reader.path_of(rule.above ? "above" : "below");
  if (!threshold.is_number() || !std::isfinite(threshold.get<double>()))
    reader.fail(threshold_path,
                fmt::format("expected a number, got {}", json_type_name(threshold)));
  rule.threshold = threshold.get<double>();
  const DurationUs zero = 0;
  rule.for_us = reader.duration_field("for", &zero, 0, duration_us);
  const DurationUs one_s = kUsPerS;
  rule.window_us = reader.duration_field("window", &one_s, 1, duration_us);
  read_ratio(reader, rule);
  return rule;
}

}  // namespace

const char* to_string(AlertMetric metric) {
  for (const auto& [name, m] : kMetrics)
    if (m == metric) return name;
  return "?";
}

std::string alert_metric_names() {
  std::string names;
  for (const auto& [name, m] : kMetrics)
    names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", name);
  return names;
}

std::vector<AlertRule> read_alerts(const json* value, const std::string& file,
                                   DurationUs duration_us) {
  std::vector<AlertRule> rules;
  if (value == nullptr) return rules;
  if (!value->is_array())
    throw ScenarioError(scenario_error_message(
        file, "alerts", fmt::format("expected an array, got {}", json_type_name(*value))));
  if (value->size() > static_cast<std::size_t>(kMaxAlerts))
    throw ScenarioError(scenario_error_message(
        file, "alerts",
        fmt::format("expected at most {} entries, got {}", kMaxAlerts, value->size())));
  std::set<std::string> names;
  for (std::size_t i = 0; i < value->size(); ++i) {
    const std::string path = fmt::format("alerts[{}]", i);
    rules.push_back(read_alert((*value)[i], path, file, duration_us));
    if (!names.insert(rules.back().name).second)
      throw ScenarioError(scenario_error_message(
          file, path + ".name", fmt::format("duplicate alert name \"{}\"", rules.back().name)));
  }
  return rules;
}

}  // namespace rlsim
