#include "scenario/load_regions.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "scenario/load_clocks.h"
#include "scenario/reader.h"

namespace rlsim {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxRegions = 16;

// `regions.list`: each region's name and instance count into spec.list, and its own NTP (`ntp`:
// an object as instances.clock.ntp, or "off": no correction; nullopt when it has none, so it uses
// instances.clock.ntp) in the same order. Returns the instances of all regions.
int read_region_list(ObjectReader& regions, RegionsSpec& spec,
                     std::vector<std::optional<NtpSpec>>& region_ntp) {
  const json& list = regions.require("list");
  if (!list.is_array() || list.size() < 1 || list.size() > kMaxRegions)
    regions.fail("regions.list", fmt::format("expected 1 to {} regions", kMaxRegions));
  int total = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    ObjectReader region(list[i], fmt::format("regions.list[{}]", i), regions.file(),
                        {"name", "instances", "ntp"});
    region_ntp.emplace_back();
    if (const json* ntp = region.find("ntp")) {
      if (ntp->is_string() && *ntp == "off")
        region_ntp.back() = NtpSpec{};
      else if (ntp->is_object())
        region_ntp.back() = read_ntp(*ntp, region.path_of("ntp"), regions.file());
      else
        region.fail(region.path_of("ntp"),
                    "expected an object {\"interval\", \"max_error\", ...} or \"off\"");
    }
    const std::string name = region.name_value(region.require("name"), region.path_of("name"));
    for (const RegionSpec& other : spec.list) {
      if (other.name == name) region.fail(region.path_of("name"), "duplicate region");
    }
    const json& instances = region.require("instances");
    if (!instances.is_number_integer() || instances.get<std::int64_t>() < 1 ||
        instances.get<std::int64_t>() > ScenarioBounds::kMaxInstances)
      region.fail(region.path_of("instances"),
                  fmt::format("expected an integer from 1 to {}", ScenarioBounds::kMaxInstances));
    spec.list.push_back(RegionSpec{name, instances.get<int>()});
    total += instances.get<int>();
  }
  return total;
}

// `regions.rtt`: an n x n matrix of durations, row = the caller's region, column = the Redis's
// region.
void read_rtt(ObjectReader& regions, RegionsSpec& spec) {
  const std::size_t n = spec.list.size();
  const json& rtt = regions.require("rtt");
  if (!rtt.is_array() || rtt.size() != n)
    regions.fail("regions.rtt", fmt::format("expected {} rows of {} durations", n, n));
  for (std::size_t a = 0; a < n; ++a) {
    if (!rtt[a].is_array() || rtt[a].size() != n)
      regions.fail(fmt::format("regions.rtt[{}]", a), fmt::format("expected {} durations", n));
    spec.rtt.emplace_back();
    for (std::size_t b = 0; b < n; ++b) {
      spec.rtt[a].push_back(regions.check_brief_duration(
          rtt[a][b], fmt::format("regions.rtt[{}][{}]", a, b), 0, ScenarioBounds::kMaxRedisTimeUs));
    }
  }
}

// The index of the region `name` in spec.list; fails at `path` when there is none.
std::uint32_t region_index(const ObjectReader& reader, const RegionsSpec& spec,
                           const std::string& name, const std::string& path) {
  for (std::size_t i = 0; i < spec.list.size(); ++i) {
    if (spec.list[i].name == name) return static_cast<std::uint32_t>(i);
  }
  std::string names;
  for (const RegionSpec& r : spec.list) names += (names.empty() ? "" : ", ") + r.name;
  reader.fail(path, fmt::format("unknown region \"{}\" (expected one of: {})", name, names));
}

// Gives every instance its region (and, when any region has its own NTP, its NTP) and resolves
// each traffic group's region; `total` is the regions' instances.
void assign_regions(const ObjectReader& root, int total,
                    const std::vector<std::optional<NtpSpec>>& region_ntp, Scenario& scenario) {
  const RegionsSpec& spec = scenario.regions;
  const std::size_t n = spec.list.size();
  InstancesSpec& instances = scenario.instances;
  if (!instances.schedule.empty())
    root.fail("instances.schedule", "a schedule cannot be combined with regions");
  if (instances.count != total)
    root.fail("instances.count",
              fmt::format("expected {}, the sum of the regions' instances", total));
  const bool own_ntp =
      std::any_of(region_ntp.begin(), region_ntp.end(), [](const auto& ntp) { return ntp; });
  for (std::size_t r = 0; r < n; ++r) {
    for (int i = 0; i < spec.list[r].instances; ++i) {
      instances.regions.push_back(static_cast<std::uint32_t>(r));
      if (own_ntp)
        instances.clock.instance_ntp.push_back(region_ntp[r].value_or(instances.clock.ntp));
    }
  }
  if (own_ntp) instances.clock.configured = true;
  for (std::size_t i = 0; i < scenario.traffic.size(); ++i) {
    TrafficGroup& group = scenario.traffic[i];
    group.region_count = static_cast<std::uint32_t>(n);
    if (!group.region_name.empty())
      group.region =
          region_index(root, spec, group.region_name, fmt::format("traffic[{}].region", i));
    if (group.roaming > 0 && n < 2)
      root.fail(fmt::format("traffic[{}].roaming", i), "roaming needs at least two regions");
  }
}

}  // namespace

void read_traffic_region(ObjectReader& group_reader, TrafficGroup& group) {
  if (const json* region = group_reader.find("region")) {
    group.region_name = group_reader.name_value(*region, group_reader.path_of("region"));
  }
  if (const json* roaming = group_reader.find("roaming")) {
    if (!roaming->is_number() || roaming->get<double>() < 0 || roaming->get<double>() > 1)
      group_reader.fail(group_reader.path_of("roaming"), "expected a share from 0 to 1");
    group.roaming = roaming->get<double>();
  }
}

void read_regions(ObjectReader& root, Scenario& scenario) {
  const json* value = root.find("regions");
  if (value == nullptr) {
    for (std::size_t i = 0; i < scenario.traffic.size(); ++i) {
      const TrafficGroup& group = scenario.traffic[i];
      if (!group.region_name.empty() || group.roaming > 0)
        root.fail(fmt::format("traffic[{}].region", i),
                  "region and roaming need a top-level \"regions\" object");
    }
    return;
  }
  ObjectReader regions(*value, root.path_of("regions"), root.file(), {"list", "rtt", "home"});
  RegionsSpec& spec = scenario.regions;
  std::vector<std::optional<NtpSpec>> region_ntp;
  const int total = read_region_list(regions, spec, region_ntp);
  read_rtt(regions, spec);
  if (const json* home = regions.find("home")) {
    spec.home =
        region_index(regions, spec, regions.name_value(*home, "regions.home"), "regions.home");
  }
  assign_regions(root, total, region_ntp, scenario);
}

}  // namespace rlsim
