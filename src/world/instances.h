#pragma once
// The app instances and the load balancer in front of them. Instances start and stop by the
// scenario's schedule (autoscaling); a started instance has a fresh id and empty local state, and
// its own clock: true time plus a fixed offset (read as Unix time, like time.time()).
#include <cstdint>
#include <deque>
#include <vector>

#include "core/rng.h"
#include "core/time.h"
#include "scenario/model.h"
#include "world/request.h"

namespace rlsim {

struct Instance {
  std::uint32_t id = 0;  // start order, never reused
  DurationUs clock_offset_us = 0;
  std::uint32_t inflight = 0;  // requests routed here and not yet decided
  bool active = false;
  TimeUs started_us = 0;
  // The instance's reading of Unix time in microseconds when true time is `true_now_us`.
  TimeUs local_unix_us(TimeUs true_now_us) const {
    return kEpochUnixUs + true_now_us + clock_offset_us;
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
  // Picks the instance for a request. REQUIRES: at least one active instance.
  Instance& route(const Request& request);

  Instance& get(std::uint32_t id) { return all_[id]; }
  int active_count() const { return static_cast<int>(active_.size()); }
  std::size_t started_count() const { return all_.size(); }

 private:
  DurationUs offset_for(std::uint32_t id);

  const InstancesSpec& spec_;
  BalancerPolicy policy_;
  std::uint64_t seed_;
  Rng balancer_rng_;
  std::deque<Instance> all_;           // indexed by id; a deque keeps references stable
  std::vector<std::uint32_t> active_;  // ids in start order
  std::uint64_t round_robin_next_ = 0;
};

}  // namespace rlsim
