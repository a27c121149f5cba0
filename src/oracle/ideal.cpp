#include "oracle/ideal.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "world/catalog.h"

namespace rlsim {
namespace {

constexpr std::int64_t kNsPerUs = 1000;
constexpr double kNsPerS = 1e9;

// The tokens of a bucket refilled up to `unix_us`, before the cap, in the order of operations the
// redis_token_bucket script uses: tokens + elapsed_us * refill_per_s / 10^6.
double refilled(const BucketShape& bucket, double tokens, TimeUs elapsed_us) {
  return tokens + static_cast<double>(elapsed_us) * bucket.refill_per_s / kUsPerS;
}

}  // namespace

IdealLimiter::IdealLimiter(const std::vector<Limit>& limits, Algorithm algorithm,
                           const std::vector<BucketShape>& buckets)
    : algorithm_(algorithm), per_limit_(limits.size()) {
  RLSIM_CHECK(limits.size() <= static_cast<std::size_t>(ScenarioBounds::kMaxLimits));
  const bool bucket_style = algorithm == Algorithm::kTokenBucket || algorithm == Algorithm::kGcra;
  RLSIM_CHECK(buckets.empty() || buckets.size() == limits.size());
  for (std::size_t i = 0; i < limits.size(); ++i) {
    PerLimit& per = per_limit_[i];
    per.limit = &limits[i];
    RLSIM_CHECK(per.limit->limit > 0 && per.limit->window_us > 0);
    if (!bucket_style) continue;
    // Without a shape, a limit of L per window W is a bucket of L refilled at L / W.
    per.bucket = buckets.empty() ? BucketShape{static_cast<double>(per.limit->limit),
                                               static_cast<double>(per.limit->limit) * kUsPerS /
                                                   static_cast<double>(per.limit->window_us)}
                                 : buckets[i];
    RLSIM_CHECK(per.bucket.capacity >= 1 && per.bucket.refill_per_s > 0);
    // GCRA in integer nanoseconds, rounded to the nearest: exact for every rate whose interval is
    // a whole number of nanoseconds (e.g. 100 per minute: T = 0.6 s), else within 0.5 ns.
    per.emission_ns = std::max<std::int64_t>(1, std::llround(kNsPerS / per.bucket.refill_per_s));
    per.tolerance_ns = std::llround((per.bucket.capacity - 1) * kNsPerS / per.bucket.refill_per_s);
  }
}

bool IdealLimiter::check(const PerLimit& per, KeyState& state, TimeUs unix_us) const {
  const Limit& limit = *per.limit;
  switch (algorithm_) {
    case Algorithm::kFixedWindow: {
      const std::int64_t window = unix_us / limit.window_us;
      if (state.window != window) {
        state.window = window;
        state.count = 0;
      }
      return state.count < limit.limit;
    }
    case Algorithm::kSlidingLog:
      return !state.log.at_least(limit.limit, unix_us, limit.window_us);
    case Algorithm::kSlidingCounter: {
      // Cloudflare's approximation, the rule the strategy uses: the previous aligned window's
      // count weighted by the share of it still inside (t - W, t], plus the current count.
      const std::int64_t window = unix_us / limit.window_us;
      if (state.window != window) {
        state.previous = state.window == window - 1 ? state.count : 0;
        state.count = 0;
        state.window = window;
      }
      const DurationUs elapsed_us = unix_us - window * limit.window_us;
      const double weighted = static_cast<double>(state.previous) *
                                  static_cast<double>(limit.window_us - elapsed_us) /
                                  static_cast<double>(limit.window_us) +
                              static_cast<double>(state.count);
      return weighted < static_cast<double>(limit.limit);
    }
    case Algorithm::kTokenBucket: {
      state.tokens = std::min(per.bucket.capacity,
                              refilled(per.bucket, state.tokens, unix_us - state.refilled_us));
      state.refilled_us = unix_us;
      return state.tokens >= 1;
    }
    case Algorithm::kGcra:
      return state.tat_ns <= unix_us * kNsPerUs + per.tolerance_ns;
  }
  return false;
}

void IdealLimiter::commit(const PerLimit& per, KeyState& state, TimeUs unix_us) const {
  switch (algorithm_) {
    case Algorithm::kFixedWindow:
    case Algorithm::kSlidingCounter:
      ++state.count;
      return;
    case Algorithm::kSlidingLog:
      state.log.add(unix_us, per.limit->window_us);
      return;
    case Algorithm::kTokenBucket:
      state.tokens -= 1;
      return;
    case Algorithm::kGcra:
      state.tat_ns = std::max(state.tat_ns, unix_us * kNsPerUs) + per.emission_ns;
      return;
  }
}

bool IdealLimiter::idle(const PerLimit& per, KeyState& state, TimeUs unix_us) const {
  const DurationUs window_us = per.limit->window_us;
  switch (algorithm_) {
    case Algorithm::kFixedWindow:
      return state.window < unix_us / window_us;
    case Algorithm::kSlidingCounter:
      return state.window < unix_us / window_us - 1;
    case Algorithm::kSlidingLog:
      return state.log.empty(unix_us, window_us);
    case Algorithm::kTokenBucket:
      // Full again: every later refill would also give a full bucket, as for a new key.
      return refilled(per.bucket, state.tokens, unix_us - state.refilled_us) >= per.bucket.capacity;
    case Algorithm::kGcra:
      return state.tat_ns <= unix_us * kNsPerUs;
  }
  return false;
}

bool IdealLimiter::admits(const Request& request, TimeUs unix_us) {
  KeyState* states[ScenarioBounds::kMaxLimits];
  for (std::size_t i = 0; i < per_limit_.size(); ++i) {
    PerLimit& per = per_limit_[i];
    per.keys.maybe_sweep(
        unix_us, per.limit->window_us,
        [this, &per](KeyState& state, TimeUs now_us) { return idle(per, state, now_us); });
    KeyState& state = per.keys.get(Catalog::key_id(request, per.limit->key), [&] {
      KeyState fresh;
      fresh.tokens = per.bucket.capacity;  // a bucket starts full
      fresh.refilled_us = unix_us;
      return fresh;
    });
    if (!check(per, state, unix_us)) return false;
    states[i] = &state;
  }
  for (std::size_t i = 0; i < per_limit_.size(); ++i) commit(per_limit_[i], *states[i], unix_us);
  return true;
}

std::size_t IdealLimiter::keys_held() const {
  std::size_t keys = 0;
  for (const PerLimit& per : per_limit_) keys += per.keys.size();
  return keys;
}

}  // namespace rlsim
