// search/bounds.h: the analytic bound of each strategy the search knows one for.
#include <catch2/catch.hpp>

#include "search/bounds.h"

namespace rlsim_test_search_bounds {

using namespace rlsim;
using Catch::Contains;
using nlohmann::ordered_json;

namespace {

SearchProblem problem(const std::string& strategy, const std::string& metric) {
  const ordered_json doc = {
      {"name", "b"},
      {"duration", "2s"},
      {"limits", {{{"name", "per_user"}, {"key", "user"}, {"limit", 10}, {"window", "1s"}}}},
      {"instances", {{"count", 4}}},
      {"traffic", {{{"name", "a"}, {"users", 1}, {"rate", "40/s"}}}},
      {"strategies", ordered_json::array({ordered_json::parse(strategy)})}};
  const std::string label = ordered_json::parse(strategy).is_string()
                                ? ordered_json::parse(strategy).get<std::string>()
                                : ordered_json::parse(strategy)["label"].get<std::string>();
  return make_problem(doc, "b.json", label, metric, true, 1);
}

}  // namespace

TEST_CASE("fixed window 2L, sliding log L plus its timing share, N x L per process") {
  CHECK(analytic_bound(problem(R"("redis_fixed_window")", "rolling_overshoot"), 4)->value == 2);
  CHECK(analytic_bound(problem(R"("redis_sliding_log")", "rolling_overshoot"), 4)->value == 2);
  CHECK(analytic_bound(problem(R"("in_memory")", "overshoot"), 4)->value == 4);
  CHECK(analytic_bound(problem(R"("in_memory")", "rolling_overshoot"), 4)->value == 8);
  CHECK_FALSE(analytic_bound(problem(R"("in_memory")", "excess"), 4));
}

TEST_CASE("a token bucket's bound follows its capacity and refill rate") {
  const auto bucket = analytic_bound(problem(R"("redis_token_bucket")", "rolling_overshoot"), 4);
  CHECK(bucket->value == 2);  // C = L, r = L / W
  CHECK_THAT(bucket->formula, Contains("C + r x W"));
  const auto bigger = analytic_bound(
      problem(R"({"name": "redis_token_bucket", "label": "tb", "capacity": 20})", "overshoot"), 4);
  CHECK(bigger->value == 3);  // (20 + 10 x 1) / 10
}

TEST_CASE("Kong's redis policy without sync_rate: 2L; with sync_rate or local: no stated bound") {
  const SearchProblem redis =
      problem(R"({"name": "kong", "label": "k", "policy": "redis"})", "rolling_overshoot");
  REQUIRE(analytic_bound(redis, 4));
  CHECK(analytic_bound(redis, 4)->value == 2);
  const SearchProblem synced = problem(
      R"({"name": "kong", "label": "k", "policy": "redis", "sync_rate": "500ms"})", "overshoot");
  CHECK_FALSE(analytic_bound(synced, 4));
  CHECK_THAT(no_bound_reason(synced), Contains("while a sync is on the wire"));
  const SearchProblem local = problem(R"({"name": "kong", "label": "k"})", "overshoot");
  CHECK_FALSE(analytic_bound(local, 4));
  CHECK_THAT(no_bound_reason(local), Contains("Kong#2629"));
  CHECK_THAT(no_bound_reason(problem("\"limitador_cached\"", "overshoot")),
             Contains("steady traffic"));
}

TEST_CASE("an offset instance clock: no stated bound, with the reason") {
  SearchProblem p = problem("\"redis_fixed_window\"", "overshoot");
  p.scenario.instances.clock_offsets = {0, 50'000};
  CHECK_FALSE(analytic_bound(p, 4));
  CHECK_THAT(no_bound_reason(p), Contains("instance clocks are offset"));
}

}  // namespace rlsim_test_search_bounds
