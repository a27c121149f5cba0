#include "scenario/load_clocks.h"

#include <fmt/format.h>

#include <algorithm>

#include "scenario/load.h"
#include "scenario/load_fields.h"

namespace rlsim {

const char* to_string(ClockFaultType type) {
  switch (type) {
    case ClockFaultType::kOffset:
      return "clock_offset";
    case ClockFaultType::kDrift:
      return "clock_drift";
    case ClockFaultType::kJump:
      return "clock_jump";
  }
  return "?";
}

namespace {

using nlohmann::json;
using namespace load_fields;

// Bounds (docs/scenario-format.md): a drift beyond 10% is no clock, and 10^5 ppm over 24 h stays
// exact in a double's integer range.
constexpr double kMaxDriftPpm = 100'000;
constexpr std::size_t kMaxClockFaults = 1000;
constexpr std::int64_t kMaxInstanceId = 1'000'000;

constexpr std::pair<const char*, ClockFaultType> kFaultTypes[] = {
    {"clock_offset", ClockFaultType::kOffset},
    {"clock_drift", ClockFaultType::kDrift},
    {"clock_jump", ClockFaultType::kJump}};

ClockFault read_fault(const json& value, const std::string& path, const std::string& file,
                      DurationUs duration_us) {
  check_fields(value, path, file, {"at", "type", "instances", "redis", "amount"});
  ClockFault fault;
  fault.at_us =
      duration(required(value, "at", path, file), path + ".at", file, 0, duration_us, false);
  const json& type = required(value, "type", path, file);
  bool known_type = false;
  for (const auto& [name, t] : kFaultTypes) {
    if (type.is_string() && type.get<std::string>() == name) {
      fault.type = t;
      known_type = true;
    }
  }
  if (!known_type) {
    fail(file, path + ".type",
         fmt::format("expected one of \"clock_offset\", \"clock_drift\", \"clock_jump\", got {}",
                     type.dump()));
  }
  if (const auto it = value.find("redis"); it != value.end()) {
    if (!it->is_boolean()) fail(file, path + ".redis", "expected true or false");
    fault.redis = it->get<bool>();
  }
  if (const auto it = value.find("instances"); it != value.end()) {
    if (fault.redis)
      fail(file, path + ".instances", "a fault on the Redis node (redis: true) names no instances");
    if (!it->is_array() || it->empty())
      fail(file, path + ".instances", "expected a non-empty array of instance ids");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& id = (*it)[i];
      if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
          id.get<std::int64_t>() >= kMaxInstanceId) {
        fail(file, fmt::format("{}.instances[{}]", path, i),
             fmt::format("expected an instance id (start order, from 0 to {}), got {}",
                         kMaxInstanceId - 1, id.dump()));
      }
      fault.instances.push_back(static_cast<std::uint32_t>(id.get<std::int64_t>()));
    }
  }
  const json& amount = required(value, "amount", path, file);
  if (fault.type == ClockFaultType::kDrift) {
    if (!amount.is_number() || amount.get<double>() < -kMaxDriftPpm ||
        amount.get<double>() > kMaxDriftPpm) {
      fail(file, path + ".amount",
           fmt::format("expected a drift in parts per million, a number from {:.0f} to {:.0f}, "
                       "got {}",
                       -kMaxDriftPpm, kMaxDriftPpm, amount.dump()));
    }
    fault.drift_ppm = amount.get<double>();
  } else {
    fault.amount_us = duration(amount, path + ".amount", file, -ScenarioBounds::kMaxClockOffsetUs,
                               ScenarioBounds::kMaxClockOffsetUs, true);
  }
  return fault;
}

}  // namespace

void read_clock_settings(const json* ntp, const json* threshold, const std::string& file,
                         ClockSpec& spec) {
  if (ntp != nullptr) {
    const std::string path = "instances.clock.ntp";
    check_fields(*ntp, path, file, {"interval", "max_error"});
    spec.ntp.interval_us = duration(required(*ntp, "interval", path, file), path + ".interval",
                                    file, kUsPerS, kUsPerHour, false);
    spec.ntp.max_error_us = duration(required(*ntp, "max_error", path, file), path + ".max_error",
                                     file, 0, ScenarioBounds::kMaxClockOffsetUs, false);
    spec.configured = true;
  }
  if (threshold != nullptr) {
    spec.attribution_threshold_us = duration(*threshold, "instances.clock.attribution_threshold",
                                             file, 0, ScenarioBounds::kMaxClockOffsetUs, false);
  }
}

void read_clock_faults(const json* faults, const std::string& file, DurationUs duration_us,
                       ClockSpec& spec) {
  if (faults == nullptr) return;
  if (!faults->is_array() || faults->size() > kMaxClockFaults) {
    fail(file, "clock_faults",
         fmt::format("expected an array of at most {} clock faults", kMaxClockFaults));
  }
  for (std::size_t i = 0; i < faults->size(); ++i)
    spec.faults.push_back(
        read_fault((*faults)[i], fmt::format("clock_faults[{}]", i), file, duration_us));
  // Applied in time order; faults at the same time in the order listed.
  std::stable_sort(spec.faults.begin(), spec.faults.end(),
                   [](const ClockFault& a, const ClockFault& b) { return a.at_us < b.at_us; });
  if (!spec.faults.empty()) spec.configured = true;
}

}  // namespace rlsim
