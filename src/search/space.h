#pragma once
// What `rlsim search` varies (docs/search.md#the-search-space): the arrival time of each of one
// key's requests, the instance each one goes to, and the start of each fault, all within bounds
// taken from the scenario. A Candidate is one point of that space; it becomes an ordinary scenario
// (search/candidate.h) whose traffic is an explicit request list.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/time.h"
#include "scenario/model.h"
#include "search/dimension.h"

namespace rlsim {

// One request of a candidate: when it arrives (true time) and the instance it is pinned to.
struct SearchArrival {
  TimeUs at_us = 0;
  std::uint32_t instance = 0;
  friend bool operator==(const SearchArrival&, const SearchArrival&) = default;
};

// One point of the search space. Invariant (normalize()): arrivals sorted by (time, instance).
struct Candidate {
  std::vector<SearchArrival> arrivals;
  std::vector<TimeUs> fault_at_us;  // per scenario fault, its start
  std::vector<bool> fault_kept;     // per scenario fault; the shrinker drops faults
  DurationUs duration_us = 0;       // the run's duration (the shrinker shortens it)
  std::uint32_t instances = 1;      // instances.count (the shrinker compacts the pins)
  std::vector<double> params;       // per SearchSpace::fields, its value (a choice's index)
  friend bool operator==(const Candidate&, const Candidate&) = default;
};

// Sorts the arrivals; call after any change to them.
void normalize(Candidate& candidate);

// A fault's start may move within [earliest_us, latest_us] (its length is kept).
struct FaultRange {
  TimeUs earliest_us = 0;
  TimeUs latest_us = 0;
};

// The bounds of the space for one scenario.
struct SearchSpace {
  std::size_t requests = 0;    // the attacker's budget: requests in the whole run
  double budget_per_s = 0;     // the scenario's own offered rate, requests per second
  DurationUs duration_us = 0;  // arrivals lie in [0, duration)
  std::uint32_t instances = 1;
  std::vector<FaultRange> faults;  // one per scenario fault
  // Window and refill edges structured starting points align bursts with (every limit's window,
  // a bucket's time to refill), and the limit of the first limit, in requests.
  std::vector<DurationUs> periods_us;
  std::int64_t first_limit = 1;
  // --paced: requests at least this far apart (one over the budget per second), so that the
  // budget is a steady rate the adversary places, not a burst; 0: bursts allowed.
  DurationUs min_gap_us = 0;
  // Declared dimensions (search/dimension.h): the fields a candidate sets (Candidate::params),
  // the range of instances.count when it is searched, and every dimension as given.
  std::vector<SearchDimension> fields;
  std::optional<GoalRange> instance_range;
  std::vector<std::string> declared;
  std::vector<double> base_params;  // each field's start: the scenario's value, else LO
  // Whether each request is pinned to its instance (the replay's `instance` column); false when
  // the balancer routes them (a `load_balancer` dimension, an instance schedule, autoscaling).
  bool pinned = true;
};

// Enforces space.min_gap_us on a normalized candidate: each request moved later to at least the
// gap after the one before; those pushed past the run's end are dropped.
void pace(const SearchSpace& space, Candidate& candidate);

// The most requests a search candidate holds: runs stay short (docs/search.md).
inline constexpr std::size_t kMaxSearchRequests = 5000;

// The default space of `scenario`: its offered rate (every traffic group's users x rate, at the
// start) as the budget per second over its duration (at least 1 request, at most
// kMaxSearchRequests), its instance count at time 0, each fault's start anywhere that keeps the
// fault inside the run. Throws ScenarioError when the scenario cannot be searched (a replay group,
// regions, no limit).
// `paced`: min_gap_us is one over the budget per second.
SearchSpace default_space(const Scenario& scenario, bool paced = false);

// Adds `dimensions` to the space of `scenario` (whose JSON is `document`): checks that every
// value at their ends (or every choice) makes a valid scenario, narrows fault start ranges, sets
// the instance range and each field's start. Throws ScenarioError naming the dimension's source.
void declare_dimensions(const nlohmann::ordered_json& document, const Scenario& scenario,
                        const std::vector<SearchDimension>& dimensions, SearchSpace& space);

// Sets the candidate's instance count, moving each request pinned above it to instance % count.
void set_instances(Candidate& candidate, std::uint32_t count);

// The scenario's own start of each fault, every fault kept, the scenario's duration and instance
// count, and no arrivals yet.
Candidate empty_candidate(const Scenario& scenario, const SearchSpace& space);

}  // namespace rlsim
