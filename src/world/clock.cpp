#include "world/clock.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"

namespace rlsim {

namespace {

bool applies_to(const ClockFault& fault, std::uint32_t target) {
  if (target == ClockModel::kRedisNode) return fault.redis;
  if (fault.redis) return false;
  return fault.instances.empty() ||
         std::find(fault.instances.begin(), fault.instances.end(), target) != fault.instances.end();
}

}  // namespace

ClockModel::ClockModel(DurationUs base_offset_us, const ClockSpec& spec, std::uint32_t target) {
  segments_.front().error_us = base_offset_us;
  exact_ = base_offset_us == 0;
  if (target != kRedisNode && spec.ntp.interval_us > 0) ntp_ = spec.ntp;
  for (const ClockFault& fault : spec.faults) {
    if (!applies_to(fault, target)) continue;
    RLSIM_CHECK(fault.at_us >= segments_.back().at_us);
    exact_ = false;
    const Segment& last = segments_.back();
    Segment next;
    next.at_us = fault.at_us;
    next.error_us = raw_error_us(fault.at_us);
    next.drift_ppm = last.drift_ppm;
    next.drifted_us = last.drifted_us + drift_over(last.drift_ppm, fault.at_us - last.at_us);
    switch (fault.type) {
      case ClockFaultType::kOffset:
        next.error_us = fault.amount_us;
        break;
      case ClockFaultType::kJump:
        next.error_us += fault.amount_us;
        break;
      case ClockFaultType::kDrift:
        next.drift_ppm = fault.drift_ppm;
        break;
    }
    // Two changes at one time: the later one in the list builds on the earlier.
    if (next.at_us == last.at_us)
      segments_.back() = next;
    else
      segments_.push_back(next);
  }
}

DurationUs ClockModel::drift_over(double ppm, DurationUs span_us) {
  // floor, not truncation, so that a slow clock's error moves down by whole microseconds too.
  return static_cast<DurationUs>(std::floor(ppm * static_cast<double>(span_us) / 1e6));
}

const ClockModel::Segment& ClockModel::segment_at(TimeUs true_us) const {
  // Few segments (one per fault): the last one at or before true_us.
  auto it = std::upper_bound(segments_.begin(), segments_.end(), true_us,
                             [](TimeUs t, const Segment& s) { return t < s.at_us; });
  return it == segments_.begin() ? segments_.front() : *(it - 1);
}

DurationUs ClockModel::raw_error_us(TimeUs true_us) const {
  const Segment& s = segment_at(true_us);
  return s.error_us + drift_over(s.drift_ppm, true_us - s.at_us);
}

double ClockModel::slewed_us(const NtpState& state, TimeUs true_us) const {
  if (state.slew_us == 0) return 0;
  const double since_us = static_cast<double>(true_us - state.synced * ntp_.interval_us);
  const double amount_us =
      std::min(static_cast<double>(std::abs(state.slew_us)), ntp_.max_slew_ppm * since_us / 1e6);
  return state.slew_us > 0 ? amount_us : -amount_us;
}

const ClockModel::NtpState& ClockModel::ntp_state(TimeUs true_us) const {
  if (ntp_.interval_us <= 0) return state_;  // never advanced: all zero
  const std::int64_t syncs = true_us / ntp_.interval_us;
  if (syncs < state_.synced) state_ = NtpState{};
  const bool slew = ntp_.mode == NtpMode::kSlew;
  while (state_.synced < syncs) {
    const TimeUs sync_us = (state_.synced + 1) * ntp_.interval_us;
    // Rounded up, so the reading does not step back at the sync (see clock.h).
    state_.correction_us += static_cast<DurationUs>(std::ceil(slewed_us(state_, sync_us)));
    state_.slew_us = 0;
    ++state_.synced;
    const DurationUs raw = raw_error_us(sync_us);
    const DurationUs error = raw + state_.correction_us;
    if (std::abs(error) <= ntp_.max_error_us) continue;
    if (!slew)
      state_.correction_us = std::clamp(error, -ntp_.max_error_us, ntp_.max_error_us) - raw;
    else if (std::abs(error) > ntp_.step_threshold_us)
      state_.correction_us = -raw;
    else
      state_.slew_us = -error;
  }
  return state_;
}

DurationUs ClockModel::error_us(TimeUs true_us) const {
  if (exact_) return 0;
  const Segment& s = segment_at(true_us);
  const NtpState& state = ntp_state(true_us);
  // One floor over the drift and the slew (clock.h); without a slew this is raw + correction.
  const double drift_us = s.drift_ppm * static_cast<double>(true_us - s.at_us) / 1e6;
  return s.error_us + state.correction_us +
         static_cast<DurationUs>(std::floor(drift_us + slewed_us(state, true_us)));
}

TimeUs ClockModel::monotonic_us(TimeUs true_us) const {
  const Segment& s = segment_at(true_us);
  return true_us + s.drifted_us + drift_over(s.drift_ppm, true_us - s.at_us);
}

}  // namespace rlsim
