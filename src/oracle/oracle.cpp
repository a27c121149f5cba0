#include "oracle/oracle.h"

#include <algorithm>

#include "core/check.h"
#include "world/catalog.h"

namespace rlsim {

Oracle::Oracle(const std::vector<Limit>& limits, Algorithm ideal_algorithm,
               std::vector<BucketShape> buckets)
    : limits_(limits),
      ideal_algorithm_(ideal_algorithm),
      buckets_(std::move(buckets)),
      per_limit_(limits.size()) {
  for (const Limit& limit : limits) {
    LimitMetrics metrics;
    metrics.name = limit.name;
    metrics.limit = limit.limit;
    totals_.limits.push_back(metrics);
  }
}

bool Oracle::ideal_admits(const Request& request) {
  RLSIM_CHECK(ideal_algorithm_ == Algorithm::kFixedWindow);
  const TimeUs unix_us = kEpochUnixUs + request.arrival_us;
  WindowCount* counters[ScenarioBounds::kMaxLimits];
  for (std::size_t i = 0; i < limits_.size(); ++i) {
    const std::int64_t window = aligned_window(unix_us, limits_[i].window_us);
    WindowCount& counter = per_limit_[i].ideal[Catalog::key_id(request, limits_[i].key)];
    if (counter.window != window) counter = WindowCount{window, 0};
    if (counter.count >= limits_[i].limit) return false;
    counters[i] = &counter;
  }
  for (std::size_t i = 0; i < limits_.size(); ++i) ++counters[i]->count;
  return true;
}

void Oracle::on_decision(const Request& request, const Outcome& outcome, bool ideal_admitted,
                         TimeUs decided_us, int active_instances) {
  const bool allowed = outcome.allowed;
  const int denied_by = outcome.denied_by;
  const bool error = outcome.error;
  RLSIM_CHECK(decided_us >= request.arrival_us);
  ++totals_.offered;
  totals_.latency_us.record(decided_us - request.arrival_us);
  if (error) ++totals_.errors;
  if (!allowed) {
    ++totals_.denied;
    RLSIM_CHECK(denied_by >= 0 && static_cast<std::size_t>(denied_by) < limits_.size());
    LimitMetrics& metrics = totals_.limits[static_cast<std::size_t>(denied_by)];
    ++metrics.denied;
    if (ideal_admitted) ++metrics.false_denials;
    return;
  }
  ++totals_.allowed;
  for (std::size_t i = 0; i < limits_.size(); ++i) {
    record_admission(i, Catalog::key_id(request, limits_[i].key), decided_us, active_instances);
  }
}

void Oracle::record_admission(std::size_t limit_index, std::uint64_t key, TimeUs at_us,
                              int instances) {
  const Limit& limit = limits_[limit_index];
  LimitMetrics& metrics = totals_.limits[limit_index];
  PerLimit& state = per_limit_[limit_index];
  const TimeUs unix_us = kEpochUnixUs + at_us;

  // Aligned windows on true time.
  const std::int64_t window = aligned_window(unix_us, limit.window_us);
  WindowCount& counter = state.window[key];
  if (counter.window != window) counter = WindowCount{window, 0};
  ++counter.count;
  if (counter.count > limit.limit) ++metrics.excess;
  metrics.max_in_window = std::max(metrics.max_in_window, counter.count);

  // Any interval of one window's length: admissions in (t - window, t].
  Recent& recent = state.recent[key];
  recent.times_us.push_back(at_us);
  while (recent.times_us[recent.head] <= at_us - limit.window_us) ++recent.head;
  if (recent.head > 64 && recent.head * 2 > recent.times_us.size()) {
    recent.times_us.erase(recent.times_us.begin(),
                          recent.times_us.begin() + static_cast<std::ptrdiff_t>(recent.head));
    recent.head = 0;
  }
  metrics.max_in_rolling = std::max(
      metrics.max_in_rolling, static_cast<std::int64_t>(recent.times_us.size() - recent.head));
  metrics.overshoot = static_cast<double>(metrics.max_in_window) / static_cast<double>(limit.limit);
  metrics.rolling_overshoot =
      static_cast<double>(metrics.max_in_rolling) / static_cast<double>(limit.limit);

  if (limit_index != 0) return;
  // The series follows the first limit's aligned windows from the start of the run.
  const std::int64_t first_window = aligned_window(kEpochUnixUs, limit.window_us);
  const auto index = static_cast<std::size_t>(window - first_window);
  if (index >= kMaxSeriesPoints) {
    totals_.series_truncated = true;
    return;
  }
  while (totals_.series.size() <= index) {
    SeriesPoint point;
    point.start_us =
        (first_window + static_cast<std::int64_t>(totals_.series.size())) * limit.window_us -
        kEpochUnixUs;
    totals_.series.push_back(point);
  }
  SeriesPoint& point = totals_.series[index];
  ++point.admitted;
  point.max_per_key = std::max(point.max_per_key, counter.count);
  point.instances = std::max(point.instances, instances);
}

}  // namespace rlsim
