#include "scenario/faults.h"

#include <fmt/format.h>

#include <algorithm>

#include "scenario/load_clocks.h"
#include "scenario/reader.h"

namespace rlsim {
namespace {

using nlohmann::json;

// Upper bounds of a fault's own numbers: beyond them a run says nothing more.
constexpr double kMaxMultiplier = 1000.0;
constexpr std::uint32_t kMaxInstanceId = 100'000;

// Where a fault applies: the Redis node (there is one), or app instances.
enum class Target { kNode, kInstances };

struct FaultTypeRow {
  const char* name;
  FaultType type;
  Target target;
  bool timed;  // has `for`; otherwise the type reads its own end (instance_crash: restart_after)
  void (*read)(ObjectReader& reader, FaultSpec& fault, DurationUs until_end_us);
};

constexpr std::pair<const char*, FaultMode> kModes[] = {{"refuse", FaultMode::kRefuse},
                                                        {"blackhole", FaultMode::kBlackhole}};

double multiplier_field(ObjectReader& reader, const std::string& key) {
  const json* value = reader.find(key);
  if (value == nullptr) return 1.0;
  if (!value->is_number() || value->get<double>() < 1.0 || value->get<double>() > kMaxMultiplier)
    reader.fail(reader.path_of(key),
                fmt::format("expected a number from 1 to {:.0f}, got {}", kMaxMultiplier,
                            value->is_number() ? value->dump() : json_type_name(*value)));
  return value->get<double>();
}

void read_down(ObjectReader& reader, FaultSpec& fault, DurationUs) {
  fault.mode = reader.enum_field("mode", FaultMode::kRefuse, kModes);
}

void read_partition(ObjectReader& reader, FaultSpec& fault, DurationUs) {
  // A partition drops packets: the client hears nothing until its timeout.
  fault.mode = reader.enum_field("mode", FaultMode::kBlackhole, kModes);
}

void read_latency(ObjectReader& reader, FaultSpec& fault, DurationUs) {
  const DurationUs zero = 0;
  fault.added_rtt_us = reader.duration_field("added", &zero, 0, ScenarioBounds::kMaxRedisTimeUs);
  fault.rtt_multiplier = multiplier_field(reader, "multiplier");
  fault.rtt_jitter_us = reader.duration_field("jitter", &zero, 0, ScenarioBounds::kMaxRedisTimeUs);
  if (fault.added_rtt_us == 0 && fault.rtt_multiplier == 1.0 && fault.rtt_jitter_us == 0)
    reader.fail(reader.path(), "expected at least one of \"added\", \"multiplier\", \"jitter\"");
}

void read_slow(ObjectReader& reader, FaultSpec& fault, DurationUs) {
  if (reader.find("multiplier") == nullptr)
    reader.fail(reader.path_of("multiplier"), "required field is missing");
  fault.service_multiplier = multiplier_field(reader, "multiplier");
}

void read_crash(ObjectReader& reader, FaultSpec& fault, DurationUs until_end_us) {
  // Without restart_after the instance stays down to the end of the run.
  const json* restart = reader.find("restart_after");
  fault.restarts = restart != nullptr;
  fault.for_us =
      restart == nullptr
          ? until_end_us
          : reader.check_duration(*restart, reader.path_of("restart_after"), 1, until_end_us);
}

void read_restart(ObjectReader&, FaultSpec& fault, DurationUs) { fault.mode = FaultMode::kRefuse; }

// Sentinel's down-after-milliseconds default (redis/redis sentinel.conf: 30000); with
// redis.cluster the default is cluster-node-timeout's (redis.conf: 15000), set by
// resolve_failovers once the redis section is known.
constexpr DurationUs kSentinelDownAfterUs = 30 * kUsPerS;
constexpr DurationUs kClusterNodeTimeoutUs = 15 * kUsPerS;

// The phases are read here; `for` is their sum (resolve_failovers), so the type has no `for`.
void read_failover(ObjectReader& reader, FaultSpec& fault, DurationUs until_end_us) {
  fault.mode = reader.enum_field("mode", FaultMode::kRefuse, kModes);
  fault.replication_lag_us =
      reader.duration_field("replication_lag", nullptr, 0, ScenarioBounds::kMaxRedisTimeUs);
  const DurationUs unset = -1, one_s = kUsPerS, zero = 0;
  fault.down_after_us = reader.duration_field("down_after", &unset, 0, until_end_us);
  fault.promotion_us = reader.duration_field("promotion", &one_s, 0, until_end_us);
  fault.discovery_us = reader.duration_field("discovery", &zero, 0, until_end_us);
}

// No fields of its own: a cut link drops packets, so a peer's call waits out its own timeout.
void read_peer_partition(ObjectReader&, FaultSpec&, DurationUs) {}

// The table of fault types: one row per type.
constexpr FaultTypeRow kFaultTypes[] = {
    {"redis_down", FaultType::kRedisDown, Target::kNode, true, read_down},
    {"redis_latency", FaultType::kRedisLatency, Target::kNode, true, read_latency},
    {"redis_slow", FaultType::kRedisSlow, Target::kNode, true, read_slow},
    {"partition", FaultType::kPartition, Target::kInstances, true, read_partition},
    {"instance_crash", FaultType::kInstanceCrash, Target::kInstances, false, read_crash},
    // Refuses connections for `for` (the restart) and comes back empty: no persistence.
    {"redis_restart", FaultType::kRedisRestart, Target::kNode, true, read_restart},
    // Cuts the links between the listed instances and the others (peers that talk to each
    // other, as gubernator's); Redis stays reachable.
    {"peer_partition", FaultType::kPeerPartition, Target::kInstances, true, read_peer_partition},
    // The primary goes away; its replica, missing the last replication_lag of writes, serves
    // after detection, promotion and the clients' discovery.
    {"redis_failover", FaultType::kRedisFailover, Target::kNode, false, read_failover},
};

// The row of `type`; null for the clock faults (load_clocks.cpp reads them).
const FaultTypeRow* row_of(FaultType type) {
  for (const FaultTypeRow& row : kFaultTypes)
    if (row.type == type) return &row;
  return nullptr;
}

// Read by load_clocks.cpp (docs/clocks.md), listed here for messages and names.
constexpr const char* kClockFaultNames[] = {"clock_offset", "clock_drift", "clock_jump"};

// `instances`: "all" or a non-empty list of distinct instance ids.
void read_instances(ObjectReader& reader, FaultSpec& fault) {
  const json* value = reader.find("instances");
  const std::string path = reader.path_of("instances");
  if (value == nullptr) reader.fail(path, "required field is missing (\"all\" or a list of ids)");
  if (value->is_string() && value->get<std::string>() == "all") {
    fault.all_instances = true;
    return;
  }
  if (!value->is_array() || value->empty() || value->size() > kMaxInstanceId)
    reader.fail(path, fmt::format("expected \"all\" or a non-empty array of instance ids, got {}",
                                  value->is_string() ? value->dump() : json_type_name(*value)));
  fault.all_instances = false;
  for (std::size_t i = 0; i < value->size(); ++i) {
    const auto id = static_cast<std::uint32_t>(
        reader.check_int((*value)[i], fmt::format("{}[{}]", path, i), 0, kMaxInstanceId - 1));
    for (std::uint32_t seen : fault.instances)
      if (seen == id) reader.fail(fmt::format("{}[{}]", path, i), "duplicate instance id");
    fault.instances.push_back(id);
  }
}

// `nodes`: optional, "all", or on an embedded cluster a node index or a list of them (checked
// against redis.cluster.nodes later); `region`: optional, the region whose Redis the fault hits
// (checked against `regions` later).
void read_nodes(ObjectReader& reader, FaultSpec& fault) {
  const json* value = reader.find("nodes");
  const std::string path = reader.path_of("nodes");
  if (value != nullptr && value->is_number_integer()) {
    fault.nodes.push_back(static_cast<std::int32_t>(
        reader.check_int(*value, path, 0, ScenarioBounds::kMaxClusterNodes - 1)));
  } else if (value != nullptr && value->is_array() && !value->empty()) {
    for (std::size_t i = 0; i < value->size(); ++i)
      fault.nodes.push_back(static_cast<std::int32_t>(reader.check_int(
          (*value)[i], fmt::format("{}[{}]", path, i), 0, ScenarioBounds::kMaxClusterNodes - 1)));
  } else if (value != nullptr && !(value->is_string() && value->get<std::string>() == "all")) {
    reader.fail(path,
                fmt::format("expected \"all\", a cluster node index or a list of them, got {}",
                            value->dump()));
  }
  const std::string none;
  fault.region_name = reader.string_field("region", &none);
  if (reader.find("region") != nullptr && fault.region_name.empty())
    reader.fail(reader.path_of("region"), "expected a region name");
}

FaultSpec read_fault(const json& value, const std::string& path, const std::string& file,
                     DurationUs duration_us) {
  ObjectReader reader(value, path, file);
  const std::string type = reader.string_field("type", nullptr);
  if (is_clock_fault_type(type)) return read_clock_fault(value, path, file, duration_us);
  FaultSpec fault;
  fault.json_path = path;
  const FaultTypeRow* row = nullptr;
  for (const FaultTypeRow& candidate : kFaultTypes)
    if (type == candidate.name) row = &candidate;
  if (row == nullptr)
    reader.fail(reader.path_of("type"),
                fmt::format("expected one of {}, got \"{}\"", fault_type_names(), type));
  fault.type = row->type;
  fault.at_us = reader.duration_field("at", nullptr, 0, duration_us);
  if (fault.at_us >= duration_us)
    reader.fail(reader.path_of("at"), fmt::format("expected a time before the end of the run ({})",
                                                  format_duration(duration_us)));
  if (row->timed) {
    fault.for_us = reader.duration_field("for", nullptr, 1, duration_us - fault.at_us);
  } else if (value.contains("for")) {
    reader.fail(reader.path_of("for"), fmt::format("not allowed for \"{}\"", type));
  }
  if (row->target == Target::kInstances) {
    read_instances(reader, fault);
  } else {
    read_nodes(reader, fault);
  }
  row->read(reader, fault, duration_us - fault.at_us);
  reader.reject_unknown();
  return fault;
}

}  // namespace

std::string fault_type_names() {
  std::string names;
  for (const FaultTypeRow& row : kFaultTypes)
    names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", row.name);
  for (const char* clock : kClockFaultNames) names += fmt::format(", \"{}\"", clock);
  return names;
}

const char* to_string(FaultType type) {
  if (const FaultTypeRow* row = row_of(type)) return row->name;
  switch (type) {
    case FaultType::kClockOffset:
      return kClockFaultNames[0];
    case FaultType::kClockDrift:
      return kClockFaultNames[1];
    case FaultType::kClockJump:
      return kClockFaultNames[2];
    default:
      return "?";
  }
}

std::vector<FaultSpec> read_faults(const json* value, const std::string& file,
                                   DurationUs duration_us) {
  std::vector<FaultSpec> faults;
  if (value == nullptr) return faults;
  if (!value->is_array())
    throw ScenarioError(scenario_error_message(
        file, "faults", fmt::format("expected an array, got {}", json_type_name(*value))));
  if (value->size() > static_cast<std::size_t>(ScenarioBounds::kMaxFaults))
    throw ScenarioError(
        scenario_error_message(file, "faults",
                               fmt::format("expected at most {} entries, got {}",
                                           ScenarioBounds::kMaxFaults, value->size())));
  for (std::size_t i = 0; i < value->size(); ++i)
    faults.push_back(read_fault((*value)[i], fmt::format("faults[{}]", i), file, duration_us));
  return faults;
}

namespace {

// With regions (docs/regions.md): a Redis fault hits every region's Redis or the one its `region`
// names; faults on instances are not modelled across regions yet.
void resolve_regions(const std::string& file, Scenario& scenario) {
  const RegionsSpec& regions = scenario.regions;
  for (FaultSpec& fault : scenario.faults) {
    const FaultTypeRow* row = row_of(fault.type);
    const bool node = row != nullptr && row->target == Target::kNode;
    if (regions.enabled() && !node && !is_clock_fault(fault.type))
      throw ScenarioError(scenario_error_message(
          file, fault.json_path + ".type",
          fmt::format("\"{}\" is not supported together with \"regions\" yet (redis_down, "
                      "redis_latency, redis_slow, redis_restart and clock faults are)",
                      to_string(fault.type))));
    if (fault.region_name.empty()) continue;
    const std::string path = fault.json_path + ".region";
    if (!regions.enabled())
      throw ScenarioError(scenario_error_message(
          file, path, "needs \"regions\" (a scenario without regions has one Redis)"));
    std::string names;
    for (std::size_t r = 0; r < regions.list.size(); ++r) {
      if (regions.list[r].name == fault.region_name) fault.region = static_cast<std::int32_t>(r);
      names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", regions.list[r].name);
    }
    if (fault.region < 0)
      throw ScenarioError(scenario_error_message(
          file, path,
          fmt::format("expected one of the regions ({}), got \"{}\"", names, fault.region_name)));
  }
}

bool fault_hits_node_spec(const FaultSpec& fault, std::int32_t node) {
  return fault.nodes.empty() ||
         std::find(fault.nodes.begin(), fault.nodes.end(), node) != fault.nodes.end();
}

void fail_failover(const std::string& file, const FaultSpec& fault, const std::string& field,
                   const std::string& message) {
  throw ScenarioError(scenario_error_message(file, fault.json_path + field, message));
}

// redis_failover: its phases' defaults and sum, and what the model covers: the embedded Redis or
// embedded cluster, without regions, one failover per node (the promoted replica has no replica).
void resolve_failovers(const std::string& file, Scenario& scenario) {
  std::vector<bool> failed_over(static_cast<std::size_t>(std::max(1, scenario.redis.cluster_nodes)),
                                false);
  for (FaultSpec& fault : scenario.faults) {
    if (fault.type != FaultType::kRedisFailover) continue;
    if (!scenario.redis.url.empty() || !scenario.redis.cluster_url.empty())
      fail_failover(file, fault, ".type",
                    "redis_failover is embedded-only: remove redis.url / redis.cluster_url");
    if (scenario.regions.enabled())
      fail_failover(file, fault, ".type",
                    "\"redis_failover\" is not supported together with \"regions\" yet");
    if (fault.down_after_us < 0)
      fault.down_after_us =
          scenario.redis.cluster_nodes > 0 ? kClusterNodeTimeoutUs : kSentinelDownAfterUs;
    fault.for_us = fault.down_after_us + fault.promotion_us + fault.discovery_us;
    if (fault.for_us <= 0 || fault.at_us + fault.for_us > scenario.duration_us)
      fail_failover(file, fault, ".down_after",
                    fmt::format("down_after + promotion + discovery must be positive and end by "
                                "the end of the run ({}), got {}",
                                format_duration(scenario.duration_us - fault.at_us),
                                format_duration(fault.for_us)));
    for (std::size_t node = 0; node < failed_over.size(); ++node) {
      if (!fault_hits_node_spec(fault, static_cast<std::int32_t>(node))) continue;
      if (failed_over[node])
        fail_failover(file, fault, ".nodes",
                      fmt::format("a second redis_failover of node {}: the model fails each "
                                  "node over once (the promoted replica has no replica)",
                                  node));
      failed_over[node] = true;
    }
  }
}

}  // namespace

void read_scenario_faults(const json* faults, const json* clock_faults, const std::string& file,
                          Scenario& scenario) {
  scenario.faults = read_faults(faults, file, scenario.duration_us);
  // The deprecated spelling: the same faults, after those of `faults`.
  for (FaultSpec& fault : read_clock_faults(clock_faults, file, scenario.duration_us))
    scenario.faults.push_back(std::move(fault));
  resolve_regions(file, scenario);
  for (const FaultSpec& fault : scenario.faults)
    for (std::int32_t node : fault.nodes)
      if (node >= scenario.redis.cluster_nodes)
        throw ScenarioError(scenario_error_message(
            file, fault.json_path + ".nodes",
            scenario.redis.cluster_nodes == 0
                ? std::string(
                      "a node index needs \"redis.cluster\" (the scenario has one Redis node)")
                : fmt::format("expected node indexes below {} (redis.cluster.nodes), got {}",
                              scenario.redis.cluster_nodes, node)));
  resolve_failovers(file, scenario);
  collect_clock_faults(scenario.faults, scenario.instances.clock);
}

}  // namespace rlsim
