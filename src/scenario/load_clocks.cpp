#include "scenario/load_clocks.h"

#include <fmt/format.h>

#include <algorithm>

#include "scenario/reader.h"

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

// Bounds (docs/scenario-format.md): a drift beyond 10% is no clock, and 10^5 ppm over 24 h stays
// exact in a double's integer range.
constexpr double kMaxDriftPpm = 100'000;
constexpr std::size_t kMaxClockFaults = 1000;
// A slew faster than 10% is a step in all but name; with |drift| <= 10% too the reading under a
// slew still advances (docs/clocks.md).
constexpr double kMaxSlewPpm = 100'000;
constexpr std::int64_t kMaxClockInstanceId = 1'000'000;

constexpr std::pair<const char*, ClockFaultType> kClockFaultTypes[] = {
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
void read_target(ObjectReader& reader, FaultSpec& spec) {
  ClockFault& fault = spec.clock;
  if (const json* redis = reader.find("redis")) {
    if (!redis->is_boolean()) reader.fail(reader.path_of("redis"), "expected true or false");
    fault.redis = redis->get<bool>();
  }
  if (const json* nodes = reader.find("nodes")) {
    const auto node_index = [&](const json& index, const std::string& at) {
      if (!index.is_number_integer() || index.get<std::int64_t>() < 0 ||
          index.get<std::int64_t>() >= ScenarioBounds::kMaxClusterNodes)
        reader.fail(at, fmt::format("expected a cluster node index from 0 to {}, got {}",
                                    ScenarioBounds::kMaxClusterNodes - 1, index.dump()));
      spec.nodes.push_back(static_cast<std::int32_t>(index.get<std::int64_t>()));
    };
    if (nodes->is_number()) {
      node_index(*nodes, reader.path_of("nodes"));
    } else if (nodes->is_array() && !nodes->empty()) {
      for (std::size_t i = 0; i < nodes->size(); ++i)
        node_index((*nodes)[i], fmt::format("{}[{}]", reader.path_of("nodes"), i));
    } else if (!(nodes->is_string() && nodes->get<std::string>() == "all")) {
      reader.fail(reader.path_of("nodes"),
                  fmt::format("expected \"all\" (every Redis node's clock), a cluster node index "
                              "or a list of them, got {}",
                              nodes->dump()));
    }
    fault.redis = true;
  }
  if (const json* region = reader.find("region")) {
    if (!region->is_string() || region->get<std::string>().empty())
      reader.fail(reader.path_of("region"), "expected a region name");
    if (!fault.redis)
      reader.fail(reader.path_of("region"),
                  "a clock fault names a region's Redis with \"nodes\": \"all\" (instances are "
                  "named by id)");
    spec.region_name = region->get<std::string>();
  }
  const json* instances = reader.find("instances");
  if (instances == nullptr ||
      (instances->is_string() && instances->get<std::string>() == "all" && !fault.redis))
    return;
  const std::string path = reader.path_of("instances");
  if (fault.redis) reader.fail(path, "a fault on the Redis node (redis: true) names no instances");
  if (!instances->is_array() || instances->empty())
    reader.fail(path, "expected \"all\" or a non-empty array of instance ids");
  for (std::size_t i = 0; i < instances->size(); ++i) {
    const json& id = (*instances)[i];
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
        id.get<std::int64_t>() >= kMaxClockInstanceId) {
      reader.fail(fmt::format("{}[{}]", path, i),
                  fmt::format("expected an instance id (start order, from 0 to {}), got {}",
                              kMaxClockInstanceId - 1, id.dump()));
    }
    fault.instances.push_back(static_cast<std::uint32_t>(id.get<std::int64_t>()));
  }
}

// `mode` ("step" by default: older scenarios keep their numbers), and the slew's own fields.
void read_ntp_mode(ObjectReader& reader, NtpSpec& spec) {
  if (const json* mode = reader.find("mode")) {
    if (*mode == "slew")
      spec.mode = NtpMode::kSlew;
    else if (*mode != "step")
      reader.fail(reader.path_of("mode"),
                  fmt::format("expected one of \"step\", \"slew\", got {}", mode->dump()));
  }
  const json* max_slew = reader.find("max_slew_ppm");
  const json* step_threshold = reader.find("step_threshold");
  if (spec.mode != NtpMode::kSlew && max_slew != nullptr)
    reader.fail(reader.path_of("max_slew_ppm"), "only with \"mode\": \"slew\"");
  if (spec.mode != NtpMode::kSlew && step_threshold != nullptr)
    reader.fail(reader.path_of("step_threshold"), "only with \"mode\": \"slew\"");
  if (max_slew != nullptr) {
    if (!max_slew->is_number() || max_slew->get<double>() < 1 ||
        max_slew->get<double>() > kMaxSlewPpm)
      reader.fail(reader.path_of("max_slew_ppm"),
                  fmt::format("expected a rate in parts per million, a number from 1 to {:.0f}, "
                              "got {}",
                              kMaxSlewPpm, max_slew->dump()));
    spec.max_slew_ppm = max_slew->get<double>();
  }
  if (step_threshold != nullptr)
    spec.step_threshold_us = reader.check_brief_duration(
        *step_threshold, reader.path_of("step_threshold"), 0, ScenarioBounds::kMaxClockOffsetUs);
}

// A clock fault's `amount`: parts per million for a drift, a signed duration for the others.
void read_amount(ObjectReader& reader, ClockFault& fault) {
  const json& amount = reader.require("amount");
  const std::string path = reader.path_of("amount");
  if (fault.type != ClockFaultType::kDrift) {
    fault.amount_us = reader.check_brief_duration(amount, path, -ScenarioBounds::kMaxClockOffsetUs,
                                                  ScenarioBounds::kMaxClockOffsetUs, true);
    return;
  }
  if (!amount.is_number() || amount.get<double>() < -kMaxDriftPpm ||
      amount.get<double>() > kMaxDriftPpm) {
    reader.fail(path, fmt::format("expected a drift in parts per million, a number from {:.0f} to "
                                  "{:.0f}, got {}",
                                  -kMaxDriftPpm, kMaxDriftPpm, amount.dump()));
  }
  fault.drift_ppm = amount.get<double>();
}

}  // namespace

NtpSpec read_ntp(const json& ntp, const std::string& path, const std::string& file) {
  ObjectReader reader(ntp, path, file,
                      {"interval", "max_error", "mode", "max_slew_ppm", "step_threshold"});
  NtpSpec spec;
  spec.interval_us = reader.brief_duration_field("interval", kUsPerS, kUsPerHour);
  spec.max_error_us =
      reader.brief_duration_field("max_error", 0, ScenarioBounds::kMaxClockOffsetUs);
  read_ntp_mode(reader, spec);
  return spec;
}

void read_clock_settings(ObjectReader& clock, ClockSpec& spec) {
  if (const json* ntp = clock.find("ntp")) {
    spec.ntp = read_ntp(*ntp, clock.path_of("ntp"), clock.file());
    spec.configured = true;
  }
  if (const json* threshold = clock.find("attribution_threshold")) {
    spec.attribution_threshold_us = clock.check_brief_duration(
        *threshold, clock.path_of("attribution_threshold"), 0, ScenarioBounds::kMaxClockOffsetUs);
  }
}

void read_redis_clock(const json* redis, const std::string& file, ClockSpec& spec) {
  if (redis == nullptr || !redis->contains("clock")) return;
  ObjectReader clock(redis->at("clock"), "redis.clock", file, {"ntp"});
  if (const json* ntp = clock.find("ntp")) {
    spec.redis_ntp = read_ntp(*ntp, clock.path_of("ntp"), file);
    spec.configured = true;
  }
}

bool is_clock_fault_type(const std::string& type) {
  return std::any_of(std::begin(kClockFaultTypes), std::end(kClockFaultTypes),
                     [&](const auto& row) { return type == row.first; });
}

FaultSpec read_clock_fault(const json& value, const std::string& path, const std::string& file,
                           DurationUs duration_us) {
  ObjectReader reader(value, path, file,
                      {"at", "for", "type", "instances", "redis", "nodes", "region", "amount"});
  FaultSpec spec;
  spec.json_path = path;
  ClockFault& fault = spec.clock;
  fault.at_us = reader.brief_duration_field("at", 0, duration_us);
  const json& type = reader.require("type");
  bool known_type = false;
  for (const auto& [name, t] : kClockFaultTypes) {
    if (type.is_string() && type.get<std::string>() == name) {
      fault.type = t;
      known_type = true;
    }
  }
  if (!known_type) {
    reader.fail(reader.path_of("type"),
                fmt::format("expected one of \"clock_offset\", \"clock_drift\", \"clock_jump\", "
                            "got {}",
                            type.dump()));
  }
  read_target(reader, spec);
  read_amount(reader, fault);
  if (const json* for_value = reader.find("for"))
    fault.for_us = reader.check_brief_duration(*for_value, reader.path_of("for"), 1,
                                               duration_us - fault.at_us);
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
    throw ScenarioError(scenario_error_message(
        file, "clock_faults",
        fmt::format("expected an array of at most {} clock faults", kMaxClockFaults)));
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
