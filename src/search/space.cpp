#include "search/space.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/run.h"
#include "scenario/error.h"
#include "scenario/load.h"
#include "scenario/setting_path.h"

namespace rlsim {

void normalize(Candidate& candidate) {
  std::sort(candidate.arrivals.begin(), candidate.arrivals.end(),
            [](const SearchArrival& a, const SearchArrival& b) {
              return a.at_us != b.at_us ? a.at_us < b.at_us : a.instance < b.instance;
            });
}

namespace {

// Why `scenario` cannot be searched, or "" when it can.
std::string unsearchable(const Scenario& scenario) {
  if (scenario.limits.empty()) return "it has no limit";
  if (scenario.regions.enabled()) return "it has regions";
  for (const TrafficGroup& group : scenario.traffic)
    if (group.replay) return fmt::format("traffic group \"{}\" replays a log", group.name);
  return "";
}

}  // namespace

void pace(const SearchSpace& space, Candidate& candidate) {
  if (space.min_gap_us <= 0) return;
  auto& arrivals = candidate.arrivals;
  for (std::size_t i = 1; i < arrivals.size(); ++i)
    arrivals[i].at_us = std::max(arrivals[i].at_us, arrivals[i - 1].at_us + space.min_gap_us);
  while (!arrivals.empty() && arrivals.back().at_us >= space.duration_us) arrivals.pop_back();
}

SearchSpace default_space(const Scenario& scenario, bool paced) {
  if (const std::string why = unsearchable(scenario); !why.empty())
    throw ScenarioError(fmt::format("{}: cannot search this scenario: {}", scenario.file, why));
  SearchSpace space;
  space.duration_us = scenario.duration_us;
  space.instances = static_cast<std::uint32_t>(std::max(1, scenario.instances.count));
  for (const TrafficGroup& group : scenario.traffic)
    space.budget_per_s += static_cast<double>(group.users) * group.rate_per_s;
  const double seconds = static_cast<double>(scenario.duration_us) / kUsPerS;
  const double requests = std::round(space.budget_per_s * seconds);
  space.requests =
      static_cast<std::size_t>(std::clamp(requests, 1.0, static_cast<double>(kMaxSearchRequests)));
  for (const FaultSpec& fault : scenario.faults) {
    const TimeUs latest = std::max<TimeUs>(0, scenario.duration_us - fault.for_us - 1);
    space.faults.push_back({0, latest});
  }
  space.first_limit = scenario.limits.front().limit;
  // Instances that come and go: requests go through the balancer, to instances that run.
  space.pinned = scenario.instances.schedule.empty() && !scenario.instances.autoscale.enabled;
  if (paced && space.budget_per_s > 0)
    space.min_gap_us =
        std::max<DurationUs>(1, static_cast<DurationUs>(kUsPerS / space.budget_per_s));
  for (const Limit& limit : scenario.limits) {
    space.periods_us.push_back(limit.window_us);
    // A bucket of L per W refills one token every W / L: the refill edge.
    if (limit.limit > 0)
      space.periods_us.push_back(std::max<DurationUs>(1, limit.window_us / limit.limit));
  }
  std::sort(space.periods_us.begin(), space.periods_us.end());
  space.periods_us.erase(std::unique(space.periods_us.begin(), space.periods_us.end()),
                         space.periods_us.end());
  return space;
}

Candidate empty_candidate(const Scenario& scenario, const SearchSpace& space) {
  Candidate candidate;
  for (const FaultSpec& fault : scenario.faults) candidate.fault_at_us.push_back(fault.at_us);
  candidate.fault_kept.assign(scenario.faults.size(), true);
  candidate.duration_us = space.duration_us;
  candidate.instances = space.instances;
  candidate.params = space.base_params;
  return candidate;
}

void set_instances(Candidate& candidate, std::uint32_t count) {
  candidate.instances = std::max<std::uint32_t>(1, count);
  for (SearchArrival& arrival : candidate.arrivals) arrival.instance %= candidate.instances;
  normalize(candidate);
}

namespace {

// The scenario with the dimension at x, parsed: a ScenarioError names the dimension's source
// (apply_setting's "--set PATH: " prefix left out).
void check_dimension_value(const nlohmann::ordered_json& document, const std::string& file,
                           const SearchDimension& d, double x) {
  nlohmann::ordered_json changed = document;
  try {
    apply_setting(changed, d.range.path, dimension_value(d, x));
    // Strategy parameters are checked when the strategies are resolved, not when parsed.
    Scenario scenario = parse_scenario(changed.dump(), file);
    scenario.file = file;
    resolve_strategies(scenario, file);
  } catch (const ScenarioError& e) {
    std::string message = e.what();
    const std::string prefix = "--set " + d.range.path + ": ";
    if (message.rfind(prefix, 0) == 0) message = message.substr(prefix.size());
    throw ScenarioError(fmt::format("{}: at {}: {}", d.where, dimension_value_text(d, x), message));
  }
}

void declare_fault_start(const Scenario& scenario, const SearchDimension& d, SearchSpace& space) {
  if (d.fault >= scenario.faults.size())
    throw ScenarioError(fmt::format("{}: the scenario has {} fault(s), no faults[{}]", d.where,
                                    scenario.faults.size(), d.fault));
  FaultRange& range = space.faults[d.fault];
  const auto lo = static_cast<TimeUs>(d.range.lo), hi = static_cast<TimeUs>(d.range.hi);
  if (lo > range.latest_us)
    throw ScenarioError(
        fmt::format("{}: the fault must end inside the run: it starts at {} at "
                    "the latest",
                    d.where, format_duration(range.latest_us)));
  range = {lo, std::min(hi, range.latest_us)};
}

}  // namespace

void declare_dimensions(const nlohmann::ordered_json& document, const Scenario& scenario,
                        const std::vector<SearchDimension>& dimensions, SearchSpace& space) {
  for (const SearchDimension& d : dimensions) {
    if (d.choices.empty()) {
      check_dimension_value(document, scenario.file, d, d.range.lo);
      check_dimension_value(document, scenario.file, d, d.range.hi);
    }
    for (std::size_t i = 0; i < d.choices.size(); ++i)
      check_dimension_value(document, scenario.file, d, static_cast<double>(i));
    space.declared.push_back(d.text);
    if (routes_requests(d)) space.pinned = false;
    switch (d.role) {
      case SearchDimension::Role::kInstances:
        space.instance_range = d.range;
        space.instances =
            static_cast<std::uint32_t>(std::clamp<double>(space.instances, d.range.lo, d.range.hi));
        break;
      case SearchDimension::Role::kFaultStart:
        declare_fault_start(scenario, d, space);
        break;
      case SearchDimension::Role::kField:
        space.fields.push_back(d);
        space.base_params.push_back(document_value(d, document).value_or(d.range.lo));
        break;
    }
  }
}

}  // namespace rlsim
