#include "world/retry.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rlsim {

DurationUs retry_delay_us(const RetrySpec& spec, int attempt, double u) {
  RLSIM_CHECK(attempt >= 1 && attempt <= spec.max);
  const double base_us = static_cast<double>(spec.after_us) * std::pow(spec.backoff, attempt - 1);
  const double delay_us = base_us * (1.0 + spec.jitter * (2.0 * u - 1.0));
  // after <= 24 h, backoff <= 10, max <= 10: at most 8.64e19 us, past any run's end, but kept
  // inside the integer range.
  const double capped_us = std::min(delay_us, static_cast<double>(ScenarioBounds::kMaxDurationUs));
  return std::max<DurationUs>(1, std::llround(capped_us));
}

std::uint64_t retry_request_id(std::uint64_t first_id, std::uint32_t attempt) {
  RLSIM_CHECK(first_id >> 48 == 0);
  return first_id | (static_cast<std::uint64_t>(attempt) << 48);
}

RetryClients::RetryClients(Simulator& sim, const std::vector<TrafficGroup>& groups,
                           std::uint64_t seed, TimeUs end_us, RequestSink& sink)
    : sim_(sim),
      groups_(groups),
      sink_(sink),
      end_us_(end_us),
      stop_us_(std::numeric_limits<TimeUs>::max()) {
  for (std::size_t i = 0; i < groups.size(); ++i) rngs_.emplace_back(seed, "retry", i);
}

bool RetryClients::wanted(const std::vector<TrafficGroup>& groups) {
  return std::any_of(groups.begin(), groups.end(),
                     [](const TrafficGroup& group) { return group.retry.has_value(); });
}

void RetryClients::on_decided(const Request& request, bool admitted, TimeUs now_us) {
  const auto& spec = groups_[request.group].retry;
  if (!spec) return;
  if (request.attempt > 0) ++result_.sent;
  if (admitted) {
    if (request.attempt > 0) ++result_.admitted;
    return;
  }
  if (request.attempt == 0) ++result_.first_denied;
  const auto attempt = static_cast<int>(request.attempt) + 1;
  if (attempt > spec->max) {
    ++result_.gave_up;
    return;
  }
  const TimeUs at_us = now_us + retry_delay_us(*spec, attempt, rngs_[request.group].uniform());
  if (at_us >= end_us_ || at_us > stop_us_) {
    ++result_.cut;
    return;
  }
  Request retry = request;
  retry.id = retry_request_id(request.id & ((std::uint64_t{1} << 48) - 1),
                              static_cast<std::uint32_t>(attempt));
  retry.attempt = static_cast<std::uint32_t>(attempt);
  retry.arrival_us = at_us;
  std::uint64_t slot = waiting_.size();
  if (free_slots_.empty()) {
    waiting_.push_back(retry);
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    waiting_[slot] = retry;
  }
  sim_.schedule(at_us, this, slot);
}

void RetryClients::stop_after(TimeUs at_us) { stop_us_ = at_us; }

RetryResult RetryClients::result() const {
  RetryResult out = result_;
  out.cut += static_cast<std::int64_t>(waiting_.size() - free_slots_.size());
  return out;
}

void RetryClients::on_event(std::uint64_t slot) {
  const Request retry = waiting_[slot];
  free_slots_.push_back(slot);
  if (retry.arrival_us > stop_us_) {
    ++result_.cut;
    return;
  }
  sink_.on_request(retry);
}

}  // namespace rlsim
