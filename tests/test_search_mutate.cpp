// search/mutate.h: the structured starting points and the mutations keep a candidate inside its
// space (the budget's request count, times inside the run, instances and fault starts in range),
// and a mutation depends only on the random stream it is handed.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "search/mutate.h"

namespace rlsim_test_search_mutate {

using namespace rlsim;

namespace {

SearchSpace small_space() {
  SearchSpace space;
  space.requests = 40;
  space.budget_per_s = 20;
  space.duration_us = 2 * kUsPerS;
  space.instances = 3;
  space.faults = {{0, kUsPerS}};
  space.periods_us = {100 * kUsPerMs, kUsPerS};
  space.first_limit = 10;
  return space;
}

Candidate base_of(const SearchSpace& space) {
  Candidate base;
  base.fault_at_us = {500 * kUsPerMs};
  base.fault_kept = {true};
  base.duration_us = space.duration_us;
  base.instances = space.instances;
  return base;
}

void check_inside(const SearchSpace& space, const Candidate& c) {
  REQUIRE(c.arrivals.size() == space.requests);
  for (std::size_t i = 0; i < c.arrivals.size(); ++i) {
    CHECK(c.arrivals[i].at_us >= 0);
    CHECK(c.arrivals[i].at_us < space.duration_us);
    CHECK(c.arrivals[i].instance < c.instances);
    if (i > 0) CHECK(c.arrivals[i - 1].at_us <= c.arrivals[i].at_us);
  }
  CHECK(c.fault_at_us[0] >= space.faults[0].earliest_us);
  CHECK(c.fault_at_us[0] <= space.faults[0].latest_us);
}

}  // namespace

TEST_CASE("starting points: a burst across each edge, the budget's requests each") {
  const SearchSpace space = small_space();
  const auto starts = starting_points(space, base_of(space));
  std::vector<std::string> names;
  for (const auto& start : starts) {
    check_inside(space, start.candidate);
    names.push_back(start.name);
  }
  CHECK(std::find(names.begin(), names.end(), "burst across the 1s edge") != names.end());
  CHECK(std::find(names.begin(), names.end(), "everything at faults[0]'s start") != names.end());
  // The 1 s edge burst: half the requests just before 1 s, half from 1 s on.
  const auto edge = std::find_if(starts.begin(), starts.end(), [](const auto& s) {
    return s.name == "burst across the 1s edge";
  });
  std::size_t before = 0;
  for (const auto& arrival : edge->candidate.arrivals) before += arrival.at_us < kUsPerS;
  CHECK(before == 20);
  CHECK(edge->candidate.arrivals[19].at_us == kUsPerS - 1);
  CHECK(edge->candidate.arrivals[20].at_us == kUsPerS);
}

TEST_CASE("mutations stay inside the space and depend only on the stream") {
  const SearchSpace space = small_space();
  Rng start_rng(7, "test");
  Candidate c = random_candidate(space, base_of(space), start_rng);
  check_inside(space, c);
  bool changed = false;
  for (int i = 0; i < 500; ++i) {
    Rng a(11, "mutation", static_cast<std::uint64_t>(i)),
        b(11, "mutation", static_cast<std::uint64_t>(i));
    const Candidate child = mutate(space, c, a);
    CHECK(child == mutate(space, c, b));
    check_inside(space, child);
    changed |= !(child == c);
    c = child;
  }
  CHECK(changed);
}

}  // namespace rlsim_test_search_mutate
