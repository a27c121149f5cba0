#pragma once
// The oracle: an observer that watches every decision on true time (never an instance clock) and
// measures what actually got through, next to an ideal limiter of the same algorithm (zero
// latency, true clock, exact) that sees the same requests. It never influences a decision.
// Memory grows with the number of keys, not with the number of requests.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/histogram.h"
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
};

struct SeriesPoint {
  TimeUs start_us = 0;           // true time at which the window begins
  std::int64_t admitted = 0;     // admitted in this window of the first limit, all keys together
  std::int64_t max_per_key = 0;  // most admitted for one key in this window
  int instances = 0;             // most active instances seen at a decision in this window
};

struct OracleTotals {
  std::int64_t offered = 0;
  std::int64_t allowed = 0;
  std::int64_t denied = 0;
  std::int64_t errors = 0;
  std::vector<LimitMetrics> limits;
  Histogram latency_us;
  std::vector<SeriesPoint> series;
  bool series_truncated = false;
};

// What a strategy decided about one request, as the oracle sees it.
struct Outcome {
  bool allowed = true;
  int denied_by = -1;  // index of the limit that denied, when !allowed
  bool error = false;  // a Redis call failed or timed out while deciding
  // The count the strategy read for the first limit's key when it decided (e.g. a sharded total
  // from MGET), or -1 when it read none; compared with the true count to measure staleness.
  std::int64_t observed_count = -1;
};

class Oracle {
 public:
  static constexpr std::size_t kMaxSeriesPoints = 100'000;

  // `buckets` has one shape per limit for kTokenBucket and kGcra and is ignored otherwise.
  Oracle(const std::vector<Limit>& limits, Algorithm ideal_algorithm,
         std::vector<BucketShape> buckets = {});

  // The ideal limiter's verdict on a request arriving now (true time). Call once per request, in
  // arrival order; it updates the ideal limiter's state.
  bool ideal_admits(const Request& request);

  // Records the strategy's decision on `request`, made at true time `decided_us`.
  void on_decision(const Request& request, const Outcome& outcome, bool ideal_admitted,
                   TimeUs decided_us, int active_instances);

  const OracleTotals& totals() const { return totals_; }

 private:
  struct WindowCount {
    std::int64_t window = -1;
    std::int64_t count = 0;
  };
  // Times of a key's recent admissions, oldest first: a vector used as a queue.
  struct Recent {
    std::vector<TimeUs> times_us;
    std::size_t head = 0;
  };
  struct PerLimit {
    std::unordered_map<std::uint64_t, WindowCount> window;  // aligned windows, true time
    std::unordered_map<std::uint64_t, Recent> recent;       // for the rolling maximum
    std::unordered_map<std::uint64_t, WindowCount> ideal;   // the ideal limiter's counters
  };
  void record_admission(std::size_t limit_index, std::uint64_t key, TimeUs at_us, int instances);

  const std::vector<Limit>& limits_;
  Algorithm ideal_algorithm_;
  std::vector<BucketShape> buckets_;
  std::vector<PerLimit> per_limit_;
  OracleTotals totals_;
};

// Aligned window index of Unix time: windows start at multiples of the window length.
inline std::int64_t aligned_window(TimeUs unix_us, DurationUs window_us) {
  return unix_us / window_us;
}

}  // namespace rlsim
