#pragma once
// Traffic sources: one per scenario traffic group, each an event source on its own random stream,
// so every strategy run sees exactly the same requests at the same true times.
#include <cstdint>
#include <functional>

#include "core/rng.h"
#include "core/simulator.h"
#include "scenario/model.h"
#include "world/catalog.h"
#include "world/request.h"

namespace rlsim {

// Receives every request the moment it arrives (in true time).
class RequestSink {
 public:
  virtual void on_request(const Request& request) = 0;

 protected:
  ~RequestSink() = default;
};

class TrafficSource final : public EventTarget {
 public:
  TrafficSource(Simulator& sim, const TrafficGroup& group, std::uint32_t group_index,
                const Catalog& catalog, std::uint64_t seed, RequestSink& sink);
  // Schedules the first arrival. Call once.
  void start();
  void on_event(std::uint64_t arg) override;
  std::uint64_t emitted() const { return emitted_; }

 private:
  double total_rate_per_s(double t_us) const;  // all users together, at true time t
  bool schedule_next(double after_us);         // false once past the group's end
  void emit(TimeUs at_us, std::uint32_t user_index);

  Simulator& sim_;
  const TrafficGroup& group_;
  std::uint32_t group_index_;
  const Catalog& catalog_;
  RequestSink& sink_;
  Rng rng_;
  Rng region_rng_;  // roaming draws only (docs/regions.md)
  double max_rate_per_s_;
  double next_us_ = 0;  // exact (fractional) time of the next arrival or burst
  std::uint64_t sequence_ = 0;
  std::uint64_t emitted_ = 0;
};

}  // namespace rlsim
