#pragma once
// The clock parts of a scenario file (docs/clocks.md): `instances.clock.ntp`, `redis.clock.ntp`,
// `instances.clock.attribution_threshold`, and the clock faults (`clock_offset`, `clock_drift`,
// `clock_jump`), which are entries of the `faults` list or, in the deprecated spelling, of a
// top-level `clock_faults` list. Kept apart from load.cpp, which calls these. Throw ScenarioError
// like the rest of the loader.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/model.h"

namespace rlsim {

class ObjectReader;

// The `ntp` and `attribution_threshold` fields of instances.clock (`clock` reads that object; its
// caller reads the other fields and rejects unknown ones).
void read_clock_settings(ObjectReader& clock, ClockSpec& spec);

// `redis.clock` of the `redis` object (null when absent; read_redis checked the rest):
// {"ntp": ...}, NTP for every Redis node's clock.
void read_redis_clock(const nlohmann::json* redis, const std::string& file, ClockSpec& spec);

// One `ntp` object ({interval, max_error, mode, ...}) at JSON path `path`.
NtpSpec read_ntp(const nlohmann::json& ntp, const std::string& path, const std::string& file);

// True when `type` names a clock fault ("clock_offset", "clock_drift", "clock_jump").
bool is_clock_fault_type(const std::string& type);
inline bool is_clock_fault(FaultType type) {
  return type == FaultType::kClockOffset || type == FaultType::kClockDrift ||
         type == FaultType::kClockJump;
}

// One clock fault at JSON path `path` (an entry of `faults` or `clock_faults`).
FaultSpec read_clock_fault(const nlohmann::json& value, const std::string& path,
                           const std::string& file, DurationUs duration_us);

// The deprecated top-level `clock_faults` list (null when absent), in file order.
std::vector<FaultSpec> read_clock_faults(const nlohmann::json* faults, const std::string& file,
                                         DurationUs duration_us);

// spec.faults from the clock faults of `faults` in time order (entries at one time in list
// order); marks the spec configured when there is any.
void collect_clock_faults(const std::vector<FaultSpec>& faults, ClockSpec& spec);

}  // namespace rlsim
