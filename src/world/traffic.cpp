#include "world/traffic.h"

#include <algorithm>
#include <cmath>

namespace rlsim {

TrafficSource::TrafficSource(Simulator& sim, const TrafficGroup& group, std::uint32_t group_index,
                             const Catalog& catalog, std::uint64_t seed, RequestSink& sink)
    : sim_(sim),
      group_(group),
      group_index_(group_index),
      catalog_(catalog),
      sink_(sink),
      rng_(seed, "traffic", group_index),
      region_rng_(seed, "region", group_index),
      max_rate_per_s_(static_cast<double>(group.users) *
                      std::max(group.rate_per_s, group.ramp_to_per_s)) {}

double TrafficSource::total_rate_per_s(double t_us) const {
  const double span_us = static_cast<double>(group_.end_us - group_.start_us);
  const double progress =
      std::clamp((t_us - static_cast<double>(group_.start_us)) / span_us, 0.0, 1.0);
  const double per_user_per_s =
      group_.rate_per_s + (group_.ramp_to_per_s - group_.rate_per_s) * progress;
  return static_cast<double>(group_.users) * per_user_per_s;
}

void TrafficSource::start() {
  RLSIM_CHECK(sequence_ == 0);
  if (group_.arrival == Arrival::kConstant) {
    next_us_ = static_cast<double>(group_.start_us);
    sim_.schedule(group_.start_us, this);
  } else {
    schedule_next(static_cast<double>(group_.start_us));
  }
}

bool TrafficSource::schedule_next(double after_us) {
  const double end_us = static_cast<double>(group_.end_us);
  double t_us = after_us;
  if (group_.arrival == Arrival::kConstant) {
    // Dividing the second keeps whole-microsecond intervals exact (10/s is exactly 100000 us).
    t_us += static_cast<double>(kUsPerS) / total_rate_per_s(t_us);
  } else {
    // Thinning (Lewis-Shedler): candidates at the peak rate, kept with probability rate(t)/peak,
    // which is exact for a ramped Poisson process. Bursts are a Poisson process of bursts.
    const double burst =
        group_.arrival == Arrival::kBurst ? static_cast<double>(group_.burst_size) : 1.0;
    const double peak_per_s = max_rate_per_s_ / burst;
    while (true) {
      t_us += rng_.exponential(static_cast<double>(kUsPerS) / peak_per_s);
      if (t_us >= end_us) break;
      if (rng_.uniform() * peak_per_s < total_rate_per_s(t_us) / burst) break;
    }
  }
  if (t_us >= end_us) return false;
  next_us_ = t_us;
  sim_.schedule(static_cast<TimeUs>(std::floor(t_us)), this);
  return true;
}

void TrafficSource::emit(TimeUs at_us, std::uint32_t user_index) {
  Request request;
  request.id = (static_cast<std::uint64_t>(group_index_) << 40) | sequence_++;
  request.arrival_us = at_us;
  request.group = group_index_;
  request.user = catalog_.first_user(group_index_) + user_index;
  request.ip =
      catalog_.first_ip(group_index_) + user_index % static_cast<std::uint32_t>(group_.ips);
  const auto endpoint_count = static_cast<std::uint32_t>(group_.endpoints.size());
  const auto endpoint_index =
      endpoint_count == 1 ? 0u : static_cast<std::uint32_t>(rng_.below(endpoint_count));
  request.endpoint = catalog_.endpoint_id(group_index_, endpoint_index);
  request.region = group_.region;
  if (group_.instance) request.instance = *group_.instance;
  // A roaming request lands in one of the other regions (its own stream: no other draw moves).
  if (group_.roaming > 0 && region_rng_.uniform() < group_.roaming) {
    const auto other = static_cast<std::uint32_t>(region_rng_.below(group_.region_count - 1));
    request.region = other < group_.region ? other : other + 1;
  }
  ++emitted_;
  sink_.on_request(request);
}

void TrafficSource::on_event(std::uint64_t) {
  const TimeUs now_us = sim_.now();
  const auto users = static_cast<std::uint64_t>(group_.users);
  switch (group_.arrival) {
    case Arrival::kConstant:
      // Users take turns, so each user sees the group's rate divided evenly.
      emit(now_us, static_cast<std::uint32_t>(sequence_ % users));
      break;
    case Arrival::kPoisson:
      emit(now_us, static_cast<std::uint32_t>(rng_.below(users)));
      break;
    case Arrival::kBurst: {
      const auto user = static_cast<std::uint32_t>(rng_.below(users));
      for (std::int64_t i = 0; i < group_.burst_size; ++i) emit(now_us, user);
      break;
    }
  }
  schedule_next(next_us_);
}

}  // namespace rlsim
