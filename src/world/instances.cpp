#include "world/instances.h"

#include "core/check.h"

namespace rlsim {

InstancePool::InstancePool(const InstancesSpec& spec, BalancerPolicy policy, std::uint64_t seed)
    : spec_(spec), policy_(policy), seed_(seed), balancer_rng_(seed, "load_balancer") {}

DurationUs InstancePool::offset_for(std::uint32_t id) {
  if (id < spec_.clock_offsets.size()) return spec_.clock_offsets[id];
  if (spec_.clock_spread_us == 0) return 0;
  // Each instance's offset has its own stream, so it does not depend on what else was drawn.
  Rng rng(seed_, "clock", id);
  const auto span = static_cast<std::uint64_t>(2 * spec_.clock_spread_us + 1);
  return static_cast<DurationUs>(rng.below(span)) - spec_.clock_spread_us;
}

void InstancePool::scale_to(int count, TimeUs now_us, InstanceObserver& observer) {
  RLSIM_CHECK(count >= 1);
  while (static_cast<int>(active_.size()) < count) {
    Instance instance;
    instance.id = static_cast<std::uint32_t>(all_.size());
    instance.clock_offset_us = offset_for(instance.id);
    clocks_.emplace_back(instance.clock_offset_us, spec_.clock, instance.id);
    instance.clock = &clocks_.back();
    instance.active = true;
    instance.started_us = now_us;
    if (!spec_.regions.empty()) {
      // Regions have no schedule: every instance starts at time 0 and never stops.
      RLSIM_CHECK(instance.id < spec_.regions.size());
      instance.region = spec_.regions[instance.id];
      if (region_active_.size() <= instance.region) {
        region_active_.resize(instance.region + 1);
        region_next_.resize(instance.region + 1);
      }
      region_active_[instance.region].push_back(instance.id);
    }
    all_.push_back(instance);
    active_.push_back(instance.id);
    observer.on_instance_start(all_.back());
  }
  while (static_cast<int>(active_.size()) > count) {
    Instance& instance = all_[active_.back()];
    active_.pop_back();
    instance.active = false;  // requests already inside finish; no new ones arrive
    observer.on_instance_stop(instance);
  }
}

bool InstancePool::stop(std::uint32_t id, InstanceObserver& observer) {
  for (std::size_t i = 0; i < active_.size(); ++i) {
    if (active_[i] != id) continue;
    active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
    all_[id].active = false;
    observer.on_instance_stop(all_[id]);
    return true;
  }
  return false;
}

Instance& InstancePool::route(const Request& request) {
  RLSIM_CHECK(!active_.empty());
  if (request.instance < all_.size() && all_[request.instance].active)
    return all_[request.instance];
  if (!region_active_.empty()) {
    RLSIM_CHECK(request.region < region_active_.size() && !region_active_[request.region].empty());
    const auto& ids = region_active_[request.region];
    return all_[ids[region_next_[request.region]++ % ids.size()]];
  }
  const auto n = static_cast<std::uint64_t>(active_.size());
  std::uint64_t position = 0;
  switch (policy_) {
    case BalancerPolicy::kRoundRobin:
      position = round_robin_next_++ % n;
      break;
    case BalancerPolicy::kRandom:
      position = balancer_rng_.below(n);
      break;
    case BalancerPolicy::kSticky:
      position = mix64(seed_ ^ (0x5157ULL << 32) ^ request.user) % n;
      break;
    case BalancerPolicy::kLeastInflight: {
      // Ties go round-robin, so an idle pool still spreads load evenly.
      const std::uint64_t offset = round_robin_next_++ % n;
      std::uint32_t best = UINT32_MAX;
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t candidate = (offset + i) % n;
        const std::uint32_t load = all_[active_[candidate]].inflight;
        if (load < best) {
          best = load;
          position = candidate;
        }
      }
      break;
    }
  }
  return all_[active_[position]];
}

}  // namespace rlsim
