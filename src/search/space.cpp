#include "search/space.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "scenario/error.h"

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
  if (!scenario.instances.schedule.empty())
    return "it has an instance schedule (the search pins requests to a fixed set of instances)";
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
  return candidate;
}

}  // namespace rlsim
