#pragma once
// The app instances and the load balancer in front of them. Instances start and stop by the
// scenario's schedule (autoscaling); a started instance has a fresh id and empty local state, and
// its own clock: true time plus a fixed offset, with the drift, jumps and NTP correction of the
// scenario's clock settings (world/clock.h; read as Unix time, like time.time()).
#include <cstdint>
#include <deque>
#include <vector>

#include "core/rng.h"
#include "core/time.h"
#include "scenario/model.h"
#include "world/clock.h"
#include "world/request.h"

namespace rlsim {

struct Instance {
  std::uint32_t id = 0;  // start order, never reused
  DurationUs clock_offset_us = 0;
  std::uint32_t region = 0;    // docs/regions.md; 0 without regions
  std::uint32_t inflight = 0;  // requests routed here and not yet decided
  bool active = false;
  TimeUs started_us = 0;
  // The full clock model; null (tests that build instances by hand): the fixed offset alone.
  const ClockModel* clock = nullptr;
  // The instance's reading of Unix time in microseconds when true time is `true_now_us`.
  TimeUs local_unix_us(TimeUs true_now_us) const {
    return clock != nullptr ? clock->unix_us(true_now_us)
                            : kEpochUnixUs + true_now_us + clock_offset_us;
  }
  // The instance's monotonic clock (elapsed time; drifts, never jumps).
  TimeUs monotonic_us(TimeUs true_now_us) const {
    return clock != nullptr ? clock->monotonic_us(true_now_us) : true_now_us;
  }
};

// Receives instance lifecycle changes (strategies drop local state on stop).
class InstanceObserver {
 public:
  virtual void on_instance_start(const Instance& instance) = 0;
  virtual void on_instance_stop(const Instance& instance) = 0;

 protected:
  ~InstanceObserver() = default;
};

class InstancePool {
 public:
  InstancePool(const InstancesSpec& spec, BalancerPolicy policy, std::uint64_t seed);

  // Starts or stops instances until `count` are active; newest stop first.
  void scale_to(int count, TimeUs now_us, InstanceObserver& observer);
  // Stops active instance `id` at once (a crash fault): it leaves the load balancer and the
  // observer drops its local state. Returns false when it was not active.
  bool stop(std::uint32_t id, InstanceObserver& observer);
  // Picks the instance for a request: the one it is pinned to (Request::instance) while that one
  // runs; otherwise, with regions, round-robin over the active instances of the request's region.
  // REQUIRES: at least one active instance (in that region).
  Instance& route(const Request& request);

  Instance& get(std::uint32_t id) { return all_[id]; }
  const Instance& get(std::uint32_t id) const { return all_[id]; }
  int active_count() const { return static_cast<int>(active_.size()); }
  const std::vector<std::uint32_t>& active_ids() const { return active_; }
  std::size_t started_count() const { return all_.size(); }

 private:
  DurationUs offset_for(std::uint32_t id);

  const InstancesSpec& spec_;
  BalancerPolicy policy_;
  std::uint64_t seed_;
  Rng balancer_rng_;
  std::deque<Instance> all_;           // indexed by id; a deque keeps references stable
  std::deque<ClockModel> clocks_;      // indexed by id, like all_
  std::vector<std::uint32_t> active_;  // ids in start order
  std::uint64_t round_robin_next_ = 0;
  // With regions: active ids per region and a round-robin position per region.
  std::vector<std::vector<std::uint32_t>> region_active_;
  std::vector<std::uint64_t> region_next_;
};

}  // namespace rlsim
