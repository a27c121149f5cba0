#pragma once
// The clock of one app instance or of the Redis node: a fixed offset, a drift in parts per
// million, step changes at given times (clock_offset, clock_drift, clock_jump faults) and optional
// NTP-like correction. A reading is a pure function of true time, so tests can compute it by hand:
//
//   raw(t)   = e_s + floor(ppm_s * (t - at_s) / 1e6)     for the last change s with at_s <= t
//              (e_s: the error at at_s: the previous segment's error carried forward, then set
//              (offset) or stepped (jump); ppm_s: the drift in force from at_s on)
//              A fault with `for` adds a change at at + for that undoes it: a step back by the
//              step it made, or the drift rate before it.
//   c_k      = the NTP correction after the k-th sync at true time t_k = k * interval, c_0 = 0.
//              Step mode: c_k = c_{k-1} if |raw(t_k) + c_{k-1}| <= max_error,
//                         else clamp(raw(t_k) + c_{k-1}, -max_error, max_error) - raw(t_k)
//   error(t) = raw(t) + c_{floor(t / interval)}          (c = 0 without NTP)
//   reading  = kEpochUnixUs + t + error(t)
//
// Slew mode plans a slew d_k at each sync instead of a step: with e = raw(t_k) + c_k (c_k as
// carried, see below), d_k = 0 if |e| <= max_error, -e if |e| <= step_threshold (then c_k stays),
// and beyond the threshold the clock is stepped to 0 (c_k = -raw(t_k), d_k = 0). Between syncs the
// slew applied so far, s_k(t) = sign(d_k) * min(|d_k|, rate * (t - t_k) / 1e6), joins the drift
// inside one floor:
//   error(t) = e_s + c_k + floor(ppm_s * (t - at_s) / 1e6 + s_k(t))
// and the next sync carries c_{k+1} = c_k + ceil(s_k(t_{k+1})) before measuring. Rounding up
// (never down) at the sync and one floor over drift and slew keep the reading non-decreasing
// under a slew while |ppm| + rate < 1e6 (only clock faults step it).
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
  // The clock of instance `target` (its id) or of the Redis node (kRedisNode: the one node of a
  // scenario without regions or cluster): `base_offset_us` (instances.clock.offsets / spread) plus
  // the faults of `spec` that name it, corrected by its group's NTP (the instance's, or
  // redis.clock.ntp).
  ClockModel(DurationUs base_offset_us, const ClockSpec& spec, std::uint32_t target);
  // The clock of one Redis node: the Redis of `region` (-1: no regions) or node `node` of an
  // embedded cluster (0 otherwise).
  static ClockModel redis_node(const ClockSpec& spec, std::int32_t region, std::int32_t node);

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
  struct Target {
    std::uint32_t instance = kRedisNode;  // kRedisNode: a Redis node, named by region and node
    std::int32_t region = -1;
    std::int32_t node = 0;
  };
  ClockModel(DurationUs base_offset_us, const ClockSpec& spec, const Target& target);
  const Segment& segment_at(TimeUs true_us) const;
  static DurationUs drift_over(double ppm, DurationUs span_us);
  DurationUs raw_error_us(TimeUs true_us) const;
  // The NTP state in force at true_us: the correction carried at the last sync and the slew
  // planned there (0 in step mode).
  struct NtpState {
    std::int64_t synced = 0;  // k: syncs done
    DurationUs correction_us = 0;
    DurationUs slew_us = 0;
  };
  const NtpState& ntp_state(TimeUs true_us) const;
  double slewed_us(const NtpState& state, TimeUs true_us) const;

  std::vector<Segment> segments_{Segment{}};  // at_us strictly increasing, first at 0
  NtpSpec ntp_;
  bool exact_ = true;
  // NTP corrections are computed forward from the last one asked for (readings mostly move
  // forward in time); an earlier time restarts from sync 0. A cache only: results do not depend
  // on it.
  mutable NtpState state_;
};

}  // namespace rlsim
