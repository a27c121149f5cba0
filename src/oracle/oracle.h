#pragma once
// The oracle: an observer that watches every decision on true time (never an instance clock) and
// measures what actually got through, next to an ideal limiter of the same algorithm (zero
// latency, true clock, exact) that sees the same requests. It never influences a decision.
// Memory grows with the number of active keys and with the limit, not with the number of
// requests: idle keys are freed and every per-key log is bounded (docs/metrics.md, "Memory").
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/histogram.h"
#include "oracle/ideal.h"
#include "oracle/key_table.h"
#include "oracle/observer.h"
#include "oracle/rolling_log.h"
#include "oracle/window_latency.h"
#include "scenario/model.h"
#include "world/request.h"

namespace rlsim {

struct LimitMetrics {
  std::string name;
  std::int64_t limit = 0;
  std::int64_t denied = 0;          // requests this limit denied (the first limit that said no)
  std::int64_t max_in_window = 0;   // most admitted for one key in one aligned window
  std::int64_t max_in_rolling = 0;  // most admitted for one key in any interval of one window
  double overshoot = 0;             // max_in_window / limit
  double rolling_overshoot = 0;     // max_in_rolling / limit
  std::int64_t excess = 0;          // admitted beyond the limit, summed over keys and windows
  std::int64_t false_denials = 0;   // denied by this limit although the ideal limiter admitted
  // Against an exact sliding log over the strategy's own admissions at decision time: admitted
  // although the key already had >= limit admissions in (t - window, t] ...
  std::int64_t wrongly_allowed = 0;
  // ... and denied by this limit although it had fewer.
  std::int64_t wrongly_denied = 0;
  double sliding_log_error_rate = 0;  // (wrongly_allowed + wrongly_denied) / offered
};

// Upper bounds of the per-window latency buckets (SeriesPoint::latency_buckets): 100 us to 10 s,
// with 5 ms (the lesson's alert on the rate check's p99) and the usual Redis timeouts among them.
inline constexpr std::array<std::int64_t, 16> kSeriesLatencyBoundsUs = {
    100,    250,     500,     1'000,   2'500,     5'000,     10'000,    25'000,
    50'000, 100'000, 250'000, 500'000, 1'000'000, 2'500'000, 5'000'000, 10'000'000};

struct SeriesPoint {
  TimeUs start_us = 0;           // true time at which the window begins
  std::int64_t offered = 0;      // decisions in this window of the first limit
  std::int64_t admitted = 0;     // admitted in this window of the first limit, all keys together
  std::int64_t denied = 0;       // denied in this window
  std::int64_t max_per_key = 0;  // most admitted for one key in this window
  int instances = 0;             // most active instances seen at a decision in this window
  // Admitted in this window by the instance that decided, indexed by instance id (start order);
  // ids from kMaxSeriesInstances - 1 on share the last entry, so a window's memory is bounded.
  std::vector<std::int64_t> admitted_by_instance;
  // Latency the limiter added to the decisions made in this window (Oracle::close_series fills
  // the last window): quantiles at most 1/16 above the true sample (oracle/window_latency.h).
  std::int64_t latency_p50_us = 0;
  std::int64_t latency_p99_us = 0;
  std::int64_t latency_max_us = 0;
  // For the OpenMetrics export (report/openmetrics.h), not written to the JSON report:
  std::int64_t errors = 0;  // decisions in this window during which a Redis call failed
  // Admissions in this window beyond their limit (as LimitMetrics::excess), indexed by limit.
  std::vector<std::int64_t> excess_by_limit;
  // The latency of this window's decisions: how many fell at or below each bound of
  // kSeriesLatencyBoundsUs and above the one before it; the last entry counts those above all.
  // 32 bits suffice: a run offers at most ScenarioBounds::kMaxOfferedRequests (2 * 10^8).
  std::array<std::uint32_t, kSeriesLatencyBoundsUs.size() + 1> latency_buckets{};
  std::int64_t latency_sum_us = 0;
};

// How far the counts a strategy read (Outcome::observed_count) were from the true count.
struct Staleness {
  std::int64_t samples = 0;          // decisions that reported an observed count
  std::int64_t total_abs_error = 0;  // sum of |true count - observed count|
  std::int64_t max_abs_error = 0;
  double mean_abs_error() const {
    return samples == 0 ? 0.0 : static_cast<double>(total_abs_error) / static_cast<double>(samples);
  }
};

struct OracleTotals {
  Algorithm ideal_algorithm = Algorithm::kFixedWindow;  // what the ideal limiter ran
  std::int64_t offered = 0;
  std::int64_t allowed = 0;
  std::int64_t denied = 0;
  std::int64_t errors = 0;
  std::vector<LimitMetrics> limits;
  Histogram latency_us;
  std::vector<SeriesPoint> series;
  bool series_truncated = false;
  Staleness staleness;
};

class Oracle final : public DecisionObserver {
 public:
  static constexpr std::size_t kMaxSeriesPoints = 100'000;
  static constexpr std::size_t kMaxSeriesInstances = 32;

  // `buckets` has one shape per limit for kTokenBucket and kGcra (empty: the default shape, a
  // limit of L per window W is a bucket of L refilled at L / W) and is ignored otherwise.
  // `limits` must outlive the oracle.
  Oracle(const std::vector<Limit>& limits, Algorithm ideal_algorithm,
         const std::vector<BucketShape>& buckets = {});

  // The ideal limiter's verdict on a request arriving now (true time). Call once per request, in
  // arrival order; it updates the ideal limiter's state.
  bool ideal_admits(const Request& request);

  // Records the strategy's decision on `request`, made at true time `decided_us`.
  // REQUIRES: decided_us >= request.arrival_us and never decreases between calls.
  void on_decision(const Request& request, const Outcome& outcome, bool ideal_admitted,
                   TimeUs decided_us, int active_instances);

  // As an observer of the run: the ideal limiter's verdict at arrival, the decision with the
  // run's active instance count.
  bool on_arrival(const Request& request) override { return ideal_admits(request); }
  void on_decided(const DecidedRequest& d) override {
    on_decision(d.request, d.outcome, d.arrival_mark, d.decided_us, d.active_instances);
  }

  const OracleTotals& totals() const { return totals_; }

  // What the oracle made of the decision it was told of last (the decision trace, app/trace.h,
  // reads it right after): the limit the decision is about (the one that denied it, else the
  // first), the admissions that limit's key had in its aligned window on true time before this
  // decision, and whether the decision was a false denial (the ideal limiter admitted it).
  struct LastVerdict {
    std::size_t limit_index = 0;
    std::int64_t true_count = 0;
    bool false_denial = false;
  };
  const LastVerdict& last_verdict() const { return last_; }

  // Fills the latency quantiles of the window still open; call once, after the last decision.
  void close_series();

  // Keys whose state the oracle holds (the strategy's side and the ideal limiter's, all limits).
  std::size_t keys_held() const;

 private:
  // What the strategy admitted for one key of one limit, on true time.
  struct ObservedKey {
    std::int64_t window = -1;  // the aligned window `count` belongs to
    std::int64_t count = 0;    // admissions in `window`
    RollingLog recent;         // admissions in the last window's length
  };
  // The key's state with its aligned-window count brought to `unix_us`.
  ObservedKey& observed(std::size_t limit_index, const Request& request, TimeUs unix_us);
  void record_admission(std::size_t limit_index, ObservedKey& key, TimeUs unix_us);
  void record_series(TimeUs unix_us, const Outcome& outcome, std::int64_t key_count, int instances,
                     DurationUs latency_us);

  const std::vector<Limit>& limits_;
  IdealLimiter ideal_;
  std::vector<KeyTable<ObservedKey>> observed_;  // one per limit
  OracleTotals totals_;
  WindowLatency window_latency_;                  // the decisions of the series window in progress
  std::vector<std::int64_t> series_excess_seen_;  // each limit's excess already put in a window
  LastVerdict last_;
  std::size_t latency_window_ = 0;
};

// Aligned window index of Unix time: windows start at multiples of the window length.
inline std::int64_t aligned_window(TimeUs unix_us, DurationUs window_us) {
  return unix_us / window_us;
}

}  // namespace rlsim
