#include "world/clock.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"

namespace rlsim {

namespace {

bool applies_to(const ClockFault& fault, std::uint32_t instance, std::int32_t region,
                std::int32_t node) {
  if (instance == ClockModel::kRedisNode) {
    return fault.redis && (fault.region < 0 || region < 0 || fault.region == region) &&
           (fault.nodes.empty() ||
            std::find(fault.nodes.begin(), fault.nodes.end(), node) != fault.nodes.end());
  }
  if (fault.redis) return false;
  return fault.instances.empty() || std::find(fault.instances.begin(), fault.instances.end(),
                                              instance) != fault.instances.end();
}

const NtpSpec& ntp_of(const ClockSpec& spec, std::uint32_t instance) {
  if (instance == ClockModel::kRedisNode) return spec.redis_ntp;
  return instance < spec.instance_ntp.size() ? spec.instance_ntp[instance] : spec.ntp;
}

}  // namespace

ClockModel::ClockModel(DurationUs base_offset_us, const ClockSpec& spec, std::uint32_t target)
    : ClockModel(base_offset_us, spec, Target{target, -1, 0}) {}

ClockModel ClockModel::redis_node(const ClockSpec& spec, std::int32_t region, std::int32_t node) {
  return ClockModel(0, spec, Target{kRedisNode, region, node});
}

ClockModel::ClockModel(DurationUs base_offset_us, const ClockSpec& spec, const Target& target) {
  segments_.front().error_us = base_offset_us;
  exact_ = base_offset_us == 0;
  if (const NtpSpec& ntp = ntp_of(spec, target.instance); ntp.interval_us > 0) ntp_ = ntp;
  // Each fault is a change at `at` and, with `for`, its undoing at `at + for`: in time order,
  // an undoing before the changes at the same time, changes at one time in list order.
  struct Event {
    TimeUs at_us;
    bool undo;
    std::size_t index;
  };
  std::vector<Event> events;
  for (std::size_t i = 0; i < spec.faults.size(); ++i) {
    const ClockFault& fault = spec.faults[i];
    if (!applies_to(fault, target.instance, target.region, target.node)) continue;
    events.push_back(Event{fault.at_us, false, i});
    if (fault.for_us > 0) events.push_back(Event{fault.at_us + fault.for_us, true, i});
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.at_us != b.at_us ? a.at_us < b.at_us : a.undo && !b.undo;
  });
  // What each fault did, to undo it: the step it made and the drift rate before it.
  std::vector<DurationUs> stepped_us(spec.faults.size(), 0);
  std::vector<double> drift_before(spec.faults.size(), 0);
  for (const Event& event : events) {
    const ClockFault& fault = spec.faults[event.index];
    RLSIM_CHECK(event.at_us >= segments_.back().at_us);
    exact_ = false;
    const Segment& last = segments_.back();
    Segment next;
    next.at_us = event.at_us;
    next.error_us = raw_error_us(event.at_us);
    next.drift_ppm = last.drift_ppm;
    next.drifted_us = last.drifted_us + drift_over(last.drift_ppm, event.at_us - last.at_us);
    if (fault.type == ClockFaultType::kDrift) {
      if (!event.undo) drift_before[event.index] = next.drift_ppm;
      next.drift_ppm = event.undo ? drift_before[event.index] : fault.drift_ppm;
    } else if (event.undo) {
      next.error_us -= stepped_us[event.index];
    } else {
      // clock_offset sets the error: its step is the difference from the error carried forward.
      stepped_us[event.index] =
          fault.type == ClockFaultType::kOffset ? fault.amount_us - next.error_us : fault.amount_us;
      next.error_us += stepped_us[event.index];
    }
    // Two changes at one time: the later one builds on the earlier.
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
