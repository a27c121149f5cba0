#pragma once
// Where a time-using strategy takes its "now" from (the `clock` parameter, docs/clocks.md):
//   local              the instance's own clock (time.time());
//   redis_time         Redis TIME, read in its own round trip before the decision's scripts and
//                      passed in ARGV, as the lesson recommends: one more round trip, and the
//                      value is already old when the script runs;
//   redis_time_cached  TIME read per instance when the last reading is older than
//                      `clock_refresh` (on the instance's monotonic clock), advanced with the
//                      instance's monotonic clock in between.
// One implementation for every strategy that passes now in ARGV (PerLimitScriptStrategy).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "strategy/params.h"

namespace rlsim {

ParamSpec clock_param();
ParamSpec clock_refresh_param();

struct ClockParams;

// A decision whose TIME call failed or timed out: without a trustworthy now, on_error decides as
// for any failed Redis call (admitted under fail open, else denied by the first limit), an error.
inline Decision time_failed_decision(bool fail_open) {
  return fail_open ? Decision{true, -1, true} : Decision{false, 0, true};
}

class ClockSource {
 public:
  enum class Kind { kLocal, kRedisTime, kRedisTimeCached };

  ClockSource(const ClockParams& params, Simulator& sim, RedisServer& redis);

  // One decision's time base: a TIME reading (Unix us) and the instance's monotonic clock when it
  // was taken. Unused by `local`.
  struct Base {
    TimeUs redis_unix_us = 0;
    TimeUs monotonic_at_us = 0;
  };

  Kind kind() const { return kind_; }
  // Sets `base` for a decision on `instance`: for redis_time sends TIME (one round trip); for
  // redis_time_cached sends it only when the instance's reading is missing or stale. Returns false
  // when TIME failed or timed out (the decision is then an error). REQUIRES: kind() != kLocal.
  // `server`: the Redis to read TIME from when not the one given at construction (with regions,
  // the Redis the decision counts in).
  Task<bool> begin(const Instance& instance, Base& base, RedisServer* server = nullptr);
  // Now, in Unix microseconds, for a decision with `base` on `instance`. Also records how far it
  // is from the Redis node's clock at this moment (the staleness of the value passed); `server` as
  // for begin().
  TimeUs now_us(const Base& base, const Instance& instance, RedisServer* server = nullptr);
  void forget(const Instance& instance);
  // "clock", "time_calls", "time_errors", "clock_lag_us" (mean, max): only for the Redis sources,
  // so that reports of local-clock strategies keep their shape.
  void write_metrics(nlohmann::ordered_json& out) const;

 private:
  struct Cached {
    Base base;
    bool valid = false;
  };

  Kind kind_ = Kind::kLocal;
  DurationUs refresh_us_ = 0;
  Simulator& sim_;
  RedisServer& redis_;
  std::vector<Cached> cache_;  // by instance id (redis_time_cached)
  std::uint64_t time_calls_ = 0;
  std::uint64_t time_errors_ = 0;
  std::uint64_t lag_samples_ = 0;
  std::int64_t lag_total_us_ = 0;  // sum of (Redis clock now - value passed)
  DurationUs lag_max_abs_us_ = 0;
};

// The `clock` and `clock_refresh` parameters (clock_param, clock_refresh_param), typed.
struct ClockParams {
  ClockSource::Kind kind = ClockSource::Kind::kLocal;
  DurationUs refresh_us = 0;  // redis_time_cached: how old a TIME reading may get
};
ClockParams parse_clock_params(const ParamReader& params);

// What every strategy that calls Redis and takes now from a ClockSource declares: on_error
// (on_error_param), clock and clock_refresh.
struct RedisCallParams {
  ErrorPolicy on_error = ErrorPolicy::kFailOpen;
  ClockParams clock;
  // Whether a limit whose Redis call failed is skipped (skips_failed_limit) rather than denied.
  bool fail_open() const { return skips_failed_limit(on_error); }
};
RedisCallParams parse_redis_call_params(const ParamReader& params);
// The declarations of RedisCallParams' parameters (on_error, clock, clock_refresh), in that
// order, followed by a strategy's `own`.
std::vector<ParamSpec> redis_call_params(std::vector<ParamSpec> own = {});
// A strategy's `own` parameter declarations followed by RedisCallParams' (for strategies whose
// explain text lists their own first).
std::vector<ParamSpec> own_then_redis_call_params(std::vector<ParamSpec> own);

}  // namespace rlsim
