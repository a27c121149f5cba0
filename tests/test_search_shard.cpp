// search/shard.h: a shard's search seed (shard 1 is the one-process search) and its best
// candidate as JSON and back, checked against the space.
#include <catch2/catch.hpp>

#include "search/shard.h"

namespace rlsim_test_search_shard {

using namespace rlsim;
using Catch::Contains;
using nlohmann::ordered_json;

namespace {

SearchProblem sharded() {
  const ordered_json doc = {
      {"name", "s"},
      {"duration", "2s"},
      {"limits", {{{"name", "per_user"}, {"key", "user"}, {"limit", 5}, {"window", "1s"}}}},
      {"instances", {{"count", 3}}},
      {"traffic", {{{"name", "a"}, {"users", 1}, {"rate", "20/s"}}}},
      {"faults", {{{"type", "redis_down"}, {"at", "500ms"}, {"for", "100ms"}}}},
      {"strategies", {"redis_fixed_window"}}};
  return make_problem(doc, "s.json", "redis_fixed_window", "overshoot", true, 1, false,
                      {"instances.count=2..6", "load_balancer.policy=round_robin|random"});
}

}  // namespace

TEST_CASE("shard 1 searches from the search's seed, the others from their own") {
  CHECK(shard_search_seed(7, 1) == 7);
  CHECK(shard_search_seed(7, 2) != 7);
  CHECK(shard_search_seed(7, 2) != shard_search_seed(7, 3));
  CHECK(shard_search_seed(7, 2) == shard_search_seed(7, 2));
}

TEST_CASE("a candidate goes to JSON and back unchanged") {
  const SearchProblem p = sharded();
  Candidate c = empty_candidate(p.scenario, p.space);
  c.instances = 5;
  c.arrivals = {{10, 0}, {20, 4}};
  c.fault_at_us = {700'000};
  c.params = {1};
  CHECK(candidate_from_json(candidate_json(c), p, "shard") == c);
}

TEST_CASE("a damaged candidate is refused with its field") {
  const SearchProblem p = sharded();
  Candidate c = empty_candidate(p.scenario, p.space);
  c.arrivals = {{10, 0}};
  ordered_json json = candidate_json(c);
  json["instances"] = 7;  // above the declared range
  CHECK_THROWS_WITH(candidate_from_json(json, p, "f.json"),
                    Contains("f.json: candidate.instances: expected a whole number from 1 to 6"));
  json = candidate_json(c);
  json["arrivals"] = ordered_json::array({ordered_json::array({5'000'000, 0})});
  CHECK_THROWS_WITH(candidate_from_json(json, p, "f.json"), Contains("inside the run"));
  json = candidate_json(c);
  json["params"] = {2};  // two choices: 0 or 1
  CHECK_THROWS_WITH(candidate_from_json(json, p, "f.json"), Contains("candidate.params"));
}

}  // namespace rlsim_test_search_shard
