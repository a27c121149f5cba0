#pragma once
// What a scenario says about clocks beyond the fixed per-instance offsets: NTP-like correction for
// the instances, and a schedule of clock faults (a new offset, a drift rate, a step jump) on
// instances or on the Redis node. The clock model itself is world/clock.h.
#include <cstdint>
#include <vector>

#include "core/time.h"

namespace rlsim {

enum class ClockFaultType {
  kOffset,  // from `at` on, the clock's error is `amount` (a step to an absolute offset)
  kDrift,   // from `at` on, the clock runs `drift_ppm` parts per million fast (negative: slow)
  kJump,    // at `at`, the clock steps by `amount` (a VM resume, a container migration)
};
const char* to_string(ClockFaultType type);

struct ClockFault {
  TimeUs at_us = 0;
  ClockFaultType type = ClockFaultType::kJump;
  std::vector<std::uint32_t> instances;  // instance ids (start order); empty: every instance
  bool redis = false;                    // a Redis node's clock instead of instances
  // With `redis`: the region whose Redis it is (-1: every region's), and on an embedded cluster
  // the node indexes (empty: every node). Every Redis node has its own clock model.
  std::int32_t region = -1;
  std::vector<std::int32_t> nodes;
  DurationUs amount_us = 0;  // kOffset, kJump
  double drift_ppm = 0;      // kDrift
  // With `for`: undone at at_us + for_us (a jump or offset steps back by the step it made, a drift
  // returns to the rate before it). 0: the change lasts.
  DurationUs for_us = 0;
};

// NTP-like correction: every `interval_us` of true time the clock is compared with true time; an
// error within `max_error_us` is left alone. A larger one is, in kStep mode, stepped back to the
// bound; in kSlew mode slewed toward 0 at `max_slew_ppm` (as ntpd's 500 ppm limit), or stepped to
// 0 when it is beyond `step_threshold_us` (ntpd's 128 ms). interval 0: no correction.
enum class NtpMode { kStep, kSlew };
struct NtpSpec {
  DurationUs interval_us = 0;
  DurationUs max_error_us = 0;
  NtpMode mode = NtpMode::kStep;
  double max_slew_ppm = 500;               // kSlew
  DurationUs step_threshold_us = 128'000;  // kSlew
};

struct ClockSpec {
  NtpSpec ntp;  // for every instance (instances.clock.ntp)
  // Per instance group: instance id i of a region with its own `regions.list[].ntp` uses
  // instance_ntp[i] (ids beyond the vector use `ntp`); redis.clock.ntp for every Redis node.
  std::vector<NtpSpec> instance_ntp;
  NtpSpec redis_ntp;
  std::vector<ClockFault> faults;  // the scenario's clock faults, in time order
  // Violation attribution (docs/metrics.md): excess admitted while some active instance's clock
  // was off by more than this counts as "while clocks were off".
  DurationUs attribution_threshold_us = kUsPerMs;
  // True when the scenario said anything about clocks (offsets, spread, ntp, faults): the report
  // then carries the clock section.
  bool configured = false;
};

}  // namespace rlsim
