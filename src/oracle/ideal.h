#pragma once
// The ideal limiter: the algorithm a strategy implements, run exactly (zero latency, the true
// clock, one shared state, no network) on every request at its arrival time. The oracle compares
// a strategy's denials with its verdicts (false denials). Memory follows the active keys: a key's
// state is freed once it is as good as new (see key_table.h and docs/metrics.md).
#include <cstdint>
#include <vector>

#include "oracle/key_table.h"
#include "oracle/rolling_log.h"
#include "scenario/model.h"
#include "world/request.h"

namespace rlsim {

class IdealLimiter {
 public:
  // `buckets` has one shape per limit for kTokenBucket and kGcra (REQUIRES: capacity >= 1 and
  // refill_per_s > 0), or is empty for the default shape (a limit of L per window W is a bucket of
  // L refilled at L / W); other algorithms ignore it. `limits` must outlive the limiter.
  IdealLimiter(const std::vector<Limit>& limits, Algorithm algorithm,
               const std::vector<BucketShape>& buckets);

  // Whether a request arriving at Unix time `unix_us` is admitted: only when every limit admits
  // it, and then every limit counts it. REQUIRES: unix_us never decreases between calls.
  bool admits(const Request& request, TimeUs unix_us);

  // Keys whose state is held, over all limits (memory grows with this, never with requests).
  std::size_t keys_held() const;

 private:
  struct KeyState {
    std::int64_t window = -1;   // fixed window, sliding counter: the current aligned window
    std::int64_t count = 0;     // admissions in `window`
    std::int64_t previous = 0;  // sliding counter: admissions in window - 1
    double tokens = 0;          // token bucket: tokens after the refill at `refilled_us`
    TimeUs refilled_us = 0;     // token bucket
    std::int64_t tat_ns = 0;    // GCRA: theoretical arrival time, Unix ns (0: none yet)
    RollingLog log;             // sliding log: the ideal admissions in the last window
  };
  struct PerLimit {
    const Limit* limit = nullptr;
    BucketShape bucket;
    std::int64_t emission_ns = 0;   // GCRA: T = 1 / refill_per_s
    std::int64_t tolerance_ns = 0;  // GCRA: tau = (capacity - 1) * T
    KeyTable<KeyState> keys;
  };
  // Brings `state` to time `unix_us` and says whether this limit admits one more request.
  bool check(const PerLimit& per, KeyState& state, TimeUs unix_us) const;
  // Counts an admission at `unix_us` (after check() said yes for every limit).
  void commit(const PerLimit& per, KeyState& state, TimeUs unix_us) const;
  // True when `state` at `unix_us` is equivalent to a new key's state.
  bool idle(const PerLimit& per, KeyState& state, TimeUs unix_us) const;

  Algorithm algorithm_;
  std::vector<PerLimit> per_limit_;
};

}  // namespace rlsim
