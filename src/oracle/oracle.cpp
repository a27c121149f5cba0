#include "oracle/oracle.h"

#include <algorithm>

#include "core/check.h"
#include "world/catalog.h"

namespace rlsim {

Oracle::Oracle(const std::vector<Limit>& limits, Algorithm ideal_algorithm,
               const std::vector<BucketShape>& buckets)
    : limits_(limits), ideal_(limits, ideal_algorithm, buckets), observed_(limits.size()) {
  totals_.ideal_algorithm = ideal_algorithm;
  for (const Limit& limit : limits) {
    LimitMetrics metrics;
    metrics.name = limit.name;
    metrics.limit = limit.limit;
    totals_.limits.push_back(metrics);
  }
}

bool Oracle::ideal_admits(const Request& request) {
  return ideal_.admits(request, kEpochUnixUs + request.arrival_us);
}

std::size_t Oracle::keys_held() const {
  std::size_t keys = ideal_.keys_held();
  for (const auto& table : observed_) keys += table.size();
  return keys;
}

Oracle::ObservedKey& Oracle::observed(std::size_t limit_index, const Request& request,
                                      TimeUs unix_us) {
  const Limit& limit = limits_[limit_index];
  ObservedKey& key =
      observed_[limit_index].get(Catalog::key_id(request, limit.key), [] { return ObservedKey{}; });
  const std::int64_t window = aligned_window(unix_us, limit.window_us);
  if (key.window != window) {
    key.window = window;
    key.count = 0;
  }
  return key;
}

void Oracle::on_decision(const Request& request, const Outcome& outcome, bool ideal_admitted,
                         TimeUs decided_us, int active_instances) {
  RLSIM_CHECK(decided_us >= request.arrival_us);
  const TimeUs unix_us = kEpochUnixUs + decided_us;
  ++totals_.offered;
  totals_.latency_us.record(decided_us - request.arrival_us);
  if (outcome.error) ++totals_.errors;
  for (std::size_t i = 0; i < limits_.size(); ++i) {
    // A key is idle when its aligned window has passed and its rolling log is empty.
    observed_[i].maybe_sweep(unix_us, limits_[i].window_us,
                             [this, i](ObservedKey& key, TimeUs now_us) {
                               return key.window < aligned_window(now_us, limits_[i].window_us) &&
                                      key.recent.empty(now_us, limits_[i].window_us);
                             });
  }

  // Staleness: the true count of the first limit's key in the current window, before this one.
  ObservedKey* first_key = nullptr;
  if (outcome.observed_count >= 0) {
    first_key = &observed(0, request, unix_us);
    const std::int64_t error = first_key->count > outcome.observed_count
                                   ? first_key->count - outcome.observed_count
                                   : outcome.observed_count - first_key->count;
    Staleness& staleness = totals_.staleness;
    ++staleness.samples;
    staleness.total_abs_error += error;
    staleness.max_abs_error = std::max(staleness.max_abs_error, error);
  }

  if (outcome.allowed) {
    ++totals_.allowed;
    for (std::size_t i = 0; i < limits_.size(); ++i) {
      ObservedKey& key =
          i == 0 && first_key != nullptr ? *first_key : observed(i, request, unix_us);
      if (i == 0) {
        first_key = &key;
        last_ = LastVerdict{0, key.count, false};
      }
      record_admission(i, key, unix_us);
    }
  } else {
    ++totals_.denied;
    RLSIM_CHECK(outcome.denied_by >= 0 &&
                static_cast<std::size_t>(outcome.denied_by) < limits_.size());
    const auto index = static_cast<std::size_t>(outcome.denied_by);
    LimitMetrics& metrics = totals_.limits[index];
    ++metrics.denied;
    if (ideal_admitted) ++metrics.false_denials;
    ObservedKey& key =
        index == 0 && first_key != nullptr ? *first_key : observed(index, request, unix_us);
    if (!key.recent.at_least(limits_[index].limit, unix_us, limits_[index].window_us))
      ++metrics.wrongly_denied;
    last_ = LastVerdict{index, key.count, ideal_admitted};
  }
  for (LimitMetrics& metrics : totals_.limits) {
    metrics.sliding_log_error_rate =
        static_cast<double>(metrics.wrongly_allowed + metrics.wrongly_denied) /
        static_cast<double>(totals_.offered);
  }
  record_series(unix_us, outcome, first_key != nullptr ? first_key->count : 0, active_instances,
                decided_us - request.arrival_us);
}

void Oracle::close_series() {
  if (latency_window_ >= totals_.series.size()) return;
  SeriesPoint& point = totals_.series[latency_window_];
  point.latency_p50_us = window_latency_.quantile(0.5);
  point.latency_p99_us = window_latency_.quantile(0.99);
  point.latency_max_us = window_latency_.max();
  window_latency_.clear();
}

void Oracle::record_admission(std::size_t limit_index, ObservedKey& key, TimeUs unix_us) {
  const Limit& limit = limits_[limit_index];
  LimitMetrics& metrics = totals_.limits[limit_index];

  // Aligned windows on true time.
  ++key.count;
  if (key.count > limit.limit) ++metrics.excess;
  metrics.max_in_window = std::max(metrics.max_in_window, key.count);

  // Any interval of one window's length: admissions in (t - window, t], this one included. Before
  // it the key had rolling - 1: at least the limit means an exact sliding log would have denied.
  // The rolling log is exact at any rate, so both are exact (docs/metrics.md, "Memory").
  const std::int64_t rolling = key.recent.add(unix_us, limit.window_us);
  if (rolling - 1 >= limit.limit) ++metrics.wrongly_allowed;
  metrics.max_in_rolling = std::max(metrics.max_in_rolling, rolling);
  metrics.overshoot = static_cast<double>(metrics.max_in_window) / static_cast<double>(limit.limit);
  metrics.rolling_overshoot =
      static_cast<double>(metrics.max_in_rolling) / static_cast<double>(limit.limit);
}

void Oracle::record_series(TimeUs unix_us, const Outcome& outcome, std::int64_t key_count,
                           int instances, DurationUs latency_us) {
  // The series follows the first limit's aligned windows from the start of the run.
  const Limit& limit = limits_.front();
  const std::int64_t first_window = aligned_window(kEpochUnixUs, limit.window_us);
  const auto index =
      static_cast<std::size_t>(aligned_window(unix_us, limit.window_us) - first_window);
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
  // Decisions come in time order, so a later window closes every earlier one for good.
  if (index != latency_window_) {
    close_series();
    latency_window_ = index;
  }
  window_latency_.record(latency_us);
  SeriesPoint& point = totals_.series[index];
  ++point.offered;
  if (outcome.error) ++point.errors;
  const auto bucket = static_cast<std::size_t>(
      std::lower_bound(kSeriesLatencyBoundsUs.begin(), kSeriesLatencyBoundsUs.end(), latency_us) -
      kSeriesLatencyBoundsUs.begin());
  ++point.latency_buckets[bucket];
  point.latency_sum_us += latency_us;
  // The admission (recorded just before) may have gone beyond a limit: what each limit's excess
  // gained since the last decision belongs to this window.
  point.excess_by_limit.resize(limits_.size(), 0);
  series_excess_seen_.resize(limits_.size(), 0);
  for (std::size_t i = 0; i < limits_.size(); ++i) {
    point.excess_by_limit[i] += totals_.limits[i].excess - series_excess_seen_[i];
    series_excess_seen_[i] = totals_.limits[i].excess;
  }
  if (outcome.allowed) {
    ++point.admitted;
    if (outcome.instance >= 0) {
      const auto slot =
          std::min(static_cast<std::size_t>(outcome.instance), kMaxSeriesInstances - 1);
      if (point.admitted_by_instance.size() <= slot) point.admitted_by_instance.resize(slot + 1);
      ++point.admitted_by_instance[slot];
    }
    point.max_per_key = std::max(point.max_per_key, key_count);
  } else {
    ++point.denied;
  }
  point.instances = std::max(point.instances, instances);
}

}  // namespace rlsim
