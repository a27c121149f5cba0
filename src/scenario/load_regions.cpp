#include "scenario/load_regions.h"

#include <algorithm>
#include <optional>

#include "scenario/load_clocks.h"
#include "scenario/load_fields.h"

namespace rlsim {
namespace {

using nlohmann::json;
using namespace load_fields;

constexpr std::size_t kMaxRegions = 16;

}  // namespace

void read_traffic_region(const json* region, const json* roaming, const std::string& group_path,
                         const std::string& file, TrafficGroup& group) {
  if (region != nullptr) {
    if (!region->is_string()) fail(file, group_path + ".region", "expected a region name");
    group.region_name = region->get<std::string>();
  }
  if (roaming != nullptr) {
    if (!roaming->is_number() || roaming->get<double>() < 0 || roaming->get<double>() > 1)
      fail(file, group_path + ".roaming", "expected a share from 0 to 1");
    group.roaming = roaming->get<double>();
  }
}

void read_regions(const json* regions, const std::string& file, Scenario& scenario) {
  if (regions == nullptr) {
    for (std::size_t i = 0; i < scenario.traffic.size(); ++i) {
      const TrafficGroup& group = scenario.traffic[i];
      if (!group.region_name.empty() || group.roaming > 0)
        fail(file, fmt::format("traffic[{}].region", i),
             "region and roaming need a top-level \"regions\" object");
    }
    return;
  }
  check_fields(*regions, "regions", file, {"list", "rtt", "home"});
  RegionsSpec& spec = scenario.regions;
  const json& list = required(*regions, "list", "regions", file);
  if (!list.is_array() || list.size() < 1 || list.size() > kMaxRegions)
    fail(file, "regions.list", fmt::format("expected 1 to {} regions", kMaxRegions));
  int total = 0;
  // Each region is an instance group with its own NTP when it says so (`ntp`: an object as
  // instances.clock.ntp, or "off": no correction); others use instances.clock.ntp.
  std::vector<std::optional<NtpSpec>> region_ntp;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("regions.list[{}]", i);
    check_fields(list[i], path, file, {"name", "instances", "ntp"});
    region_ntp.emplace_back();
    if (const auto it = list[i].find("ntp"); it != list[i].end()) {
      if (it->is_string() && *it == "off")
        region_ntp.back() = NtpSpec{};
      else if (it->is_object())
        region_ntp.back() = read_ntp(*it, path + ".ntp", file);
      else
        fail(file, path + ".ntp",
             "expected an object {\"interval\", \"max_error\", ...} or \"off\"");
    }
    const json& name = required(list[i], "name", path, file);
    if (!name.is_string() || name.get<std::string>().empty() || name.get<std::string>().size() > 64)
      fail(file, path + ".name", "expected a name of 1 to 64 characters");
    for (const RegionSpec& other : spec.list) {
      if (other.name == name.get<std::string>()) fail(file, path + ".name", "duplicate region");
    }
    const json& instances = required(list[i], "instances", path, file);
    if (!instances.is_number_integer() || instances.get<std::int64_t>() < 1 ||
        instances.get<std::int64_t>() > ScenarioBounds::kMaxInstances)
      fail(file, path + ".instances",
           fmt::format("expected an integer from 1 to {}", ScenarioBounds::kMaxInstances));
    spec.list.push_back(RegionSpec{name.get<std::string>(), instances.get<int>()});
    total += instances.get<int>();
  }
  const std::size_t n = spec.list.size();
  const auto region_index = [&](const std::string& name, const std::string& path) {
    for (std::size_t i = 0; i < n; ++i) {
      if (spec.list[i].name == name) return static_cast<std::uint32_t>(i);
    }
    std::string names;
    for (const RegionSpec& r : spec.list) names += (names.empty() ? "" : ", ") + r.name;
    fail(file, path, fmt::format("unknown region \"{}\" (expected one of: {})", name, names));
  };

  // rtt: an n x n matrix of durations, row = the caller's region, column = the Redis's region.
  const json& rtt = required(*regions, "rtt", "regions", file);
  if (!rtt.is_array() || rtt.size() != n)
    fail(file, "regions.rtt", fmt::format("expected {} rows of {} durations", n, n));
  for (std::size_t a = 0; a < n; ++a) {
    if (!rtt[a].is_array() || rtt[a].size() != n)
      fail(file, fmt::format("regions.rtt[{}]", a), fmt::format("expected {} durations", n));
    spec.rtt.emplace_back();
    for (std::size_t b = 0; b < n; ++b) {
      spec.rtt[a].push_back(duration(rtt[a][b], fmt::format("regions.rtt[{}][{}]", a, b), file, 0,
                                     ScenarioBounds::kMaxRedisTimeUs, false));
    }
  }
  if (const auto it = regions->find("home"); it != regions->end()) {
    if (!it->is_string()) fail(file, "regions.home", "expected a region name");
    spec.home = region_index(it->get<std::string>(), "regions.home");
  }

  InstancesSpec& instances = scenario.instances;
  if (!instances.schedule.empty())
    fail(file, "instances.schedule", "a schedule cannot be combined with regions");
  if (instances.count != total) {
    fail(file, "instances.count",
         fmt::format("expected {}, the sum of the regions' instances", total));
  }
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
      group.region = region_index(group.region_name, fmt::format("traffic[{}].region", i));
    if (group.roaming > 0 && n < 2)
      fail(file, fmt::format("traffic[{}].roaming", i), "roaming needs at least two regions");
  }
}

}  // namespace rlsim
