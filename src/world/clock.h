#pragma once
// The clock of one app instance or of the Redis node: a fixed offset, a drift in parts per
// million, step changes at given times (clock_offset, clock_drift, clock_jump faults) and optional
// NTP-like correction. A reading is a pure function of true time, so tests can compute it by hand:
//
//   raw(t)   = e_s + floor(ppm_s * (t - at_s) / 1e6)     for the last change s with at_s <= t
//              (e_s: the error at at_s: the previous segment's error carried forward, then set
//              (offset) or stepped (jump); ppm_s: the drift in force from at_s on)
//   c_k      = the NTP correction after the k-th sync at true time k * interval:
//              c_0 = 0; c_k = c_{k-1} if |raw(t_k) + c_{k-1}| <= max_error,
//                       else clamp(raw(t_k) + c_{k-1}, -max_error, max_error) - raw(t_k)
//   error(t) = raw(t) + c_{floor(t / interval)}          (c = 0 without NTP)
//   reading  = kEpochUnixUs + t + error(t)
//
// The monotonic clock (what a process measures elapsed time with) runs at the drifting rate but
// never jumps and is never corrected: monotonic(t) = t + the drift accumulated up to t.
#include <cstdint>
#include <vector>

#include "core/time.h"
#include "scenario/clock_spec.h"

namespace rlsim {

class ClockModel {
 public:
  static constexpr std::uint32_t kRedisNode = UINT32_MAX;

  // An exact clock.
  ClockModel() = default;
  // The clock of instance `target` (its id) or of the Redis node (kRedisNode): `base_offset_us`
  // (instances.clock.offsets / spread) plus the faults of `spec` that name it; NTP applies to
  // instances only.
  ClockModel(DurationUs base_offset_us, const ClockSpec& spec, std::uint32_t target);

  // Reading minus true Unix time at true time `true_us`.
  DurationUs error_us(TimeUs true_us) const;
  // The clock's reading of Unix time, in microseconds.
  TimeUs unix_us(TimeUs true_us) const { return kEpochUnixUs + true_us + error_us(true_us); }
  // Monotonic time (an arbitrary origin): drifts, never jumps, never corrected.
  TimeUs monotonic_us(TimeUs true_us) const;
  // True when the reading can differ from true time at some point.
  bool exact() const { return exact_; }

 private:
  struct Segment {
    TimeUs at_us = 0;
    DurationUs error_us = 0;  // raw error at at_us
    double drift_ppm = 0;
    DurationUs drifted_us = 0;  // drift accumulated from 0 to at_us
  };
  const Segment& segment_at(TimeUs true_us) const;
  static DurationUs drift_over(double ppm, DurationUs span_us);
  DurationUs raw_error_us(TimeUs true_us) const;
  DurationUs correction_us(TimeUs true_us) const;

  std::vector<Segment> segments_{Segment{}};  // at_us strictly increasing, first at 0
  NtpSpec ntp_;
  bool exact_ = true;
  // NTP corrections are computed forward from the last one asked for (readings mostly move
  // forward in time); an earlier time restarts from sync 0. A cache only: results do not depend
  // on it.
  mutable std::int64_t synced_ = 0;
  mutable DurationUs correction_cache_us_ = 0;
};

}  // namespace rlsim
