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
// A slew faster than 10% is a step in all but name; with |drift| <= 10% too the reading under a
// slew still advances (docs/clocks.md).
constexpr double kMaxSlewPpm = 100'000;
constexpr std::int64_t kMaxInstanceId = 1'000'000;

constexpr std::pair<const char*, ClockFaultType> kFaultTypes[] = {
    {"clock_offset", ClockFaultType::kOffset},
    {"clock_drift", ClockFaultType::kDrift},
    {"clock_jump", ClockFaultType::kJump}};

FaultType fault_type_of(ClockFaultType type) {
  switch (type) {
    case ClockFaultType::kOffset:
      return FaultType::kClockOffset;
    case ClockFaultType::kDrift:
      return FaultType::kClockDrift;
    case ClockFaultType::kJump:
      return FaultType::kClockJump;
  }
  return FaultType::kClockJump;
}

// The target: `instances` ("all" or ids; default all), or the Redis node (`"redis": true`, or
// `"nodes"` as the other faults name it: "all", or on an embedded cluster a node index or a list of
// them), with regions optionally one region's Redis (`region`). Node indexes and the region are
// checked against the scenario later, with the other faults' (scenario/faults.cpp).
void read_target(const json& value, const std::string& path, const std::string& file,
                 FaultSpec& spec) {
  ClockFault& fault = spec.clock;
  if (const auto it = value.find("redis"); it != value.end()) {
    if (!it->is_boolean()) fail(file, path + ".redis", "expected true or false");
    fault.redis = it->get<bool>();
  }
  if (const auto it = value.find("nodes"); it != value.end()) {
    const auto node_index = [&](const json& index, const std::string& at) {
      if (!index.is_number_integer() || index.get<std::int64_t>() < 0 ||
          index.get<std::int64_t>() >= ScenarioBounds::kMaxClusterNodes)
        fail(file, at,
             fmt::format("expected a cluster node index from 0 to {}, got {}",
                         ScenarioBounds::kMaxClusterNodes - 1, index.dump()));
      spec.nodes.push_back(static_cast<std::int32_t>(index.get<std::int64_t>()));
    };
    if (it->is_number()) {
      node_index(*it, path + ".nodes");
    } else if (it->is_array() && !it->empty()) {
      for (std::size_t i = 0; i < it->size(); ++i)
        node_index((*it)[i], fmt::format("{}.nodes[{}]", path, i));
    } else if (!(it->is_string() && it->get<std::string>() == "all")) {
      fail(file, path + ".nodes",
           fmt::format("expected \"all\" (every Redis node's clock), a cluster node index or a "
                       "list of them, got {}",
                       it->dump()));
    }
    fault.redis = true;
  }
  if (const auto it = value.find("region"); it != value.end()) {
    if (!it->is_string() || it->get<std::string>().empty())
      fail(file, path + ".region", "expected a region name");
    if (!fault.redis)
      fail(file, path + ".region",
           "a clock fault names a region's Redis with \"nodes\": \"all\" (instances are "
           "named by id)");
    spec.region_name = it->get<std::string>();
  }
  const auto it = value.find("instances");
  if (it == value.end() || (it->is_string() && it->get<std::string>() == "all" && !fault.redis))
    return;
  if (fault.redis)
    fail(file, path + ".instances", "a fault on the Redis node (redis: true) names no instances");
  if (!it->is_array() || it->empty())
    fail(file, path + ".instances", "expected \"all\" or a non-empty array of instance ids");
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

// `mode` ("step" by default: older scenarios keep their numbers), and the slew's own fields.
void read_ntp_mode(const json& ntp, const std::string& path, const std::string& file,
                   NtpSpec& spec) {
  if (const auto it = ntp.find("mode"); it != ntp.end()) {
    if (*it == "slew")
      spec.mode = NtpMode::kSlew;
    else if (*it != "step")
      fail(file, path + ".mode",
           fmt::format("expected one of \"step\", \"slew\", got {}", it->dump()));
  }
  for (const char* key : {"max_slew_ppm", "step_threshold"}) {
    if (spec.mode != NtpMode::kSlew && ntp.contains(key))
      fail(file, path + "." + key, "only with \"mode\": \"slew\"");
  }
  if (const auto it = ntp.find("max_slew_ppm"); it != ntp.end()) {
    if (!it->is_number() || it->get<double>() < 1 || it->get<double>() > kMaxSlewPpm)
      fail(file, path + ".max_slew_ppm",
           fmt::format("expected a rate in parts per million, a number from 1 to {:.0f}, got {}",
                       kMaxSlewPpm, it->dump()));
    spec.max_slew_ppm = it->get<double>();
  }
  if (const auto it = ntp.find("step_threshold"); it != ntp.end())
    spec.step_threshold_us =
        duration(*it, path + ".step_threshold", file, 0, ScenarioBounds::kMaxClockOffsetUs, false);
}

}  // namespace

NtpSpec read_ntp(const json& ntp, const std::string& path, const std::string& file) {
  check_fields(ntp, path, file,
               {"interval", "max_error", "mode", "max_slew_ppm", "step_threshold"});
  NtpSpec spec;
  spec.interval_us = duration(required(ntp, "interval", path, file), path + ".interval", file,
                              kUsPerS, kUsPerHour, false);
  spec.max_error_us = duration(required(ntp, "max_error", path, file), path + ".max_error", file, 0,
                               ScenarioBounds::kMaxClockOffsetUs, false);
  read_ntp_mode(ntp, path, file, spec);
  return spec;
}

void read_clock_settings(const json* ntp, const json* threshold, const std::string& file,
                         ClockSpec& spec) {
  if (ntp != nullptr) {
    spec.ntp = read_ntp(*ntp, "instances.clock.ntp", file);
    spec.configured = true;
  }
  if (threshold != nullptr) {
    spec.attribution_threshold_us = duration(*threshold, "instances.clock.attribution_threshold",
                                             file, 0, ScenarioBounds::kMaxClockOffsetUs, false);
  }
}

void read_redis_clock(const json* redis, const std::string& file, ClockSpec& spec) {
  if (redis == nullptr || !redis->contains("clock")) return;
  const json& clock = redis->at("clock");
  check_fields(clock, "redis.clock", file, {"ntp"});
  if (const auto it = clock.find("ntp"); it != clock.end()) {
    spec.redis_ntp = read_ntp(*it, "redis.clock.ntp", file);
    spec.configured = true;
  }
}

bool is_clock_fault_type(const std::string& type) {
  return std::any_of(std::begin(kFaultTypes), std::end(kFaultTypes),
                     [&](const auto& row) { return type == row.first; });
}

FaultSpec read_clock_fault(const json& value, const std::string& path, const std::string& file,
                           DurationUs duration_us) {
  check_fields(value, path, file,
               {"at", "for", "type", "instances", "redis", "nodes", "region", "amount"});
  FaultSpec spec;
  spec.json_path = path;
  ClockFault& fault = spec.clock;
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
  read_target(value, path, file, spec);
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
  if (const auto it = value.find("for"); it != value.end())
    fault.for_us = duration(*it, path + ".for", file, 1, duration_us - fault.at_us, false);
  spec.type = fault_type_of(fault.type);
  spec.at_us = fault.at_us;
  // Without `for` the change lasts: the report's window runs to the end of the run.
  spec.for_us = fault.for_us > 0 ? fault.for_us : duration_us - fault.at_us;
  spec.all_instances = fault.instances.empty() && !fault.redis;
  spec.instances = fault.instances;
  return spec;
}

std::vector<FaultSpec> read_clock_faults(const json* faults, const std::string& file,
                                         DurationUs duration_us) {
  std::vector<FaultSpec> out;
  if (faults == nullptr) return out;
  if (!faults->is_array() || faults->size() > kMaxClockFaults) {
    fail(file, "clock_faults",
         fmt::format("expected an array of at most {} clock faults", kMaxClockFaults));
  }
  for (std::size_t i = 0; i < faults->size(); ++i)
    out.push_back(
        read_clock_fault((*faults)[i], fmt::format("clock_faults[{}]", i), file, duration_us));
  return out;
}

void collect_clock_faults(const std::vector<FaultSpec>& faults, ClockSpec& spec) {
  for (const FaultSpec& fault : faults) {
    if (!is_clock_fault(fault.type)) continue;
    spec.faults.push_back(fault.clock);
    spec.faults.back().region = fault.region;  // resolved from `region` by then
    spec.faults.back().nodes = fault.nodes;
  }
  // Applied in time order; faults at the same time in the order listed.
  std::stable_sort(spec.faults.begin(), spec.faults.end(),
                   [](const ClockFault& a, const ClockFault& b) { return a.at_us < b.at_us; });
  if (!spec.faults.empty()) spec.configured = true;
}

}  // namespace rlsim
