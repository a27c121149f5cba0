// search/shrink.h: the shrinking moves (fewer requests, earlier, fewer instances) and a shrink
// that keeps at least 95% of the value found with fewer requests.
#include <catch2/catch.hpp>

#include "search/shrink.h"

namespace rlsim_test_search_shrink {

using namespace rlsim;
using nlohmann::ordered_json;

namespace {

const char* const kScenario = R"({
  "name": "shrinky", "seed": 2, "duration": "3s",
  "limits": [{"name": "per_user", "key": "user", "limit": 4, "window": "1s"}],
  "instances": {"count": 4},
  "traffic": [{"name": "a", "users": 1, "rate": "20/s"}],
  "redis": {"rtt": {"p50": "0.5ms", "p99": "0.5ms"}},
  "strategies": ["in_memory"]
})";

}  // namespace

TEST_CASE("shrinking moves: remove a range, move earlier by whole periods, compact instances") {
  Candidate c;
  c.duration_us = 3 * kUsPerS;
  c.instances = 5;
  c.arrivals = {{2'100'000, 4}, {2'200'000, 2}, {2'300'000, 4}};
  c.fault_at_us = {2'050'000, 10};
  c.fault_kept = {true, false};
  CHECK(without_arrivals(c, 0, 2).arrivals == std::vector<SearchArrival>{{2'300'000, 4}});
  const Candidate earlier = moved_earlier(c, kUsPerS);
  CHECK(earlier.arrivals.front().at_us == 100'000);
  CHECK(earlier.fault_at_us == std::vector<TimeUs>{50'000, 10});  // a dropped fault stays
  const Candidate compact = compacted_instances(c);
  CHECK(compact.instances == 2);
  CHECK(compact.arrivals ==
        std::vector<SearchArrival>{{2'100'000, 0}, {2'200'000, 1}, {2'300'000, 0}});
}

TEST_CASE("a shrunk case keeps 95% of the value with fewer requests and instances") {
  const SearchProblem p = make_problem(ordered_json::parse(kScenario), "shrinky.json", "in_memory",
                                       "overshoot", true, 2);
  // 4 instances x 4 = 16 admitted in the second window, among 60 requests spread over the run.
  Candidate found = empty_candidate(p.scenario, p.space);
  for (std::uint32_t i = 0; i < 60; ++i) found.arrivals.push_back({i * 50'000, i % 4});
  normalize(found);
  const double value = evaluate(p, found);
  REQUIRE(value == 4.0);
  ShrinkSettings settings;
  const ShrinkOutcome out = shrink(p, found, value, settings, run_jobs_in_order);
  CHECK(out.value >= 0.95 * value);
  CHECK(out.value == evaluate(p, out.candidate));
  CHECK(out.candidate.arrivals.size() == 16);  // exactly the admissions that make 4x
  CHECK(out.candidate.duration_us < found.duration_us);
  CHECK(out.runs <= settings.budget_runs);
  CHECK_FALSE(keeps(p, 3.7, 4.0, 0.95));
  CHECK(keeps(p, 3.8, 4.0, 0.95));
}

}  // namespace rlsim_test_search_shrink
