#pragma once
// `instances.autoscale` on one strategy run: every sync period it measures each ready instance's
// metric (requests offered or admitted per second, or CPU millicores) over the metric window,
// asks the HPA algorithm (world/hpa.h) for the replica count, and starts or stops instances to
// reach it. A started instance takes traffic after the start-up delay; until then it counts in
// the replicas but has no metric (a Pending pod). Scaling down removes starting instances first,
// then the newest running ones (InstancePool::scale_to). Everything happens as simulator events,
// so a run stays a pure function of scenario and seed (docs/autoscaling.md).
#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "core/simulator.h"
#include "scenario/autoscale_spec.h"
#include "world/hpa.h"
#include "world/instances.h"

namespace rlsim {

class Autoscaler final : public EventTarget {
 public:
  // Everything referenced outlives the autoscaler. `instance_counts` receives (time, active
  // count) at each change of the running instances. Events stop at `end_us` (the scenario's
  // duration): no sync and no instance start after it.
  Autoscaler(const AutoscaleSpec& spec, Simulator& sim, InstancePool& pool,
             InstanceObserver& observer, TimeUs end_us,
             std::vector<std::pair<TimeUs, int>>& instance_counts);

  // Schedules the first sync, one sync period after time 0.
  void start();
  // A request routed to instance `id` (an offered request).
  void on_routed(std::uint32_t id, TimeUs now_us);
  // A request decided on instance `id` (not one lost with its instance).
  void on_decided(std::uint32_t id, bool allowed, TimeUs now_us);

  void on_event(std::uint64_t arg) override;

  // Every sync's decision, in time order.
  const std::vector<HpaDecision>& decisions() const { return decisions_; }
  int starting() const { return static_cast<int>(starting_.size()); }

 private:
  // One second of one instance's requests.
  struct Bucket {
    std::int64_t second = 0;
    std::int64_t offered = 0;
    std::int64_t admitted = 0;
    std::int64_t denied = 0;
  };
  struct Starting {
    std::uint64_t ticket = 0;
    TimeUs ready_at_us = 0;
  };
  Bucket& bucket(std::uint32_t id, TimeUs now_us);
  void sync();
  HpaInput measure(TimeUs now_us);
  void scale(int desired);
  void instance_ready(std::uint64_t ticket);
  void record_count();

  const AutoscaleSpec& spec_;
  Simulator& sim_;
  InstancePool& pool_;
  InstanceObserver& observer_;
  TimeUs end_us_;
  std::vector<std::pair<TimeUs, int>>& instance_counts_;
  HpaController hpa_;
  std::map<std::uint32_t, std::deque<Bucket>> windows_;  // by running instance id; window long
  std::deque<Starting> starting_;                        // in start order
  std::uint64_t next_ticket_ = 1;                        // 0 is the sync event
  std::vector<HpaDecision> decisions_;
};

}  // namespace rlsim
