// search/search.h on the bundled search scenario (scenarios/search/attack.json): each headline
// worst case of docs/search.md found with a small run budget, and the result independent of how
// the batches are run.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "search/bounds.h"
#include "search/search.h"

namespace rlsim_test_search_search {

using namespace rlsim;
using nlohmann::ordered_json;

namespace {

const std::string kAttackPath = std::string(RLSIM_SOURCE_DIR) + "/scenarios/search/attack.json";

ordered_json attack_document() {
  std::ifstream in(kAttackPath);
  std::stringstream text;
  text << in.rdbuf();
  return ordered_json::parse(text.str(), nullptr, true, true);
}

SearchProblem attack(const std::string& label, const std::string& metric) {
  return make_problem(attack_document(), kAttackPath, label, metric, true, 1);
}

SearchOutcome search(const SearchProblem& problem, std::uint64_t runs) {
  SearchSettings settings;
  settings.budget_runs = runs;
  return run_search(problem, settings, run_jobs_in_order);
}

}  // namespace

TEST_CASE("the fixed window's boundary burst: 2L in a window-long interval") {
  const SearchProblem p = attack("redis_fixed_window", "rolling_overshoot");
  const SearchOutcome out = search(p, 60);
  CHECK(out.best_value >= 1.9);
  CHECK(out.best_value <= analytic_bound(p, 10)->value);
  CHECK(out.runs == 60);
  CHECK(out.trajectory.back().runs == 60);
}

TEST_CASE("in_memory on 10 instances: N x L") {
  const SearchOutcome out = search(attack("in_memory", "overshoot"), 40);
  CHECK(out.best_value >= 9.5);
}

TEST_CASE("a token bucket: C + r x W") {
  const SearchProblem p = attack("redis_token_bucket", "rolling_overshoot");
  const SearchOutcome out = search(p, 200);
  CHECK(out.best_value >= 0.95 * analytic_bound(p, 10)->value);
}

TEST_CASE("the result does not depend on the order the batches' runs are done in") {
  const SearchProblem p = attack("redis_sliding_log", "rolling_overshoot");
  SearchSettings settings;
  settings.budget_runs = 50;
  const SearchOutcome in_order = run_search(p, settings, run_jobs_in_order);
  const RunJobs backwards = [](std::size_t count, const std::function<void(std::size_t)>& job) {
    for (std::size_t i = count; i > 0; --i) job(i - 1);
  };
  const SearchOutcome reversed = run_search(p, settings, backwards);
  CHECK(in_order.best == reversed.best);
  CHECK(in_order.best_value == reversed.best_value);
  CHECK(in_order.trajectory.size() == reversed.trajectory.size());
}

TEST_CASE("a stop request ends the search after the current batch") {
  SearchSettings settings;
  settings.budget_runs = 1000;
  settings.stop = [](const SearchProgress& progress) { return progress.runs >= 20; };
  const SearchOutcome out =
      run_search(attack("in_memory", "overshoot"), settings, run_jobs_in_order);
  CHECK(out.stopped);
  CHECK(out.runs >= 20);
  CHECK(out.runs < 1000);
}

TEST_CASE("a declared instance count: in_memory's N x L at the largest N") {
  const auto document = attack_document();
  const std::string& path = kAttackPath;
  const SearchProblem p =
      make_problem(document, path, "in_memory", "overshoot", true, 1, false,
                   {"instances.count=2..16", "load_balancer.policy=round_robin|random"});
  CHECK_FALSE(p.space.pinned);
  const SearchOutcome out = search(p, 60);
  CHECK(out.best.instances == 16);
  CHECK(out.best_value >= 15);
  CHECK(out.best_value <= analytic_bound(problem_at(p, out.best), out.best.instances)->value);
  // The same problem twice: the same result.
  CHECK(search(p, 60).best == out.best);
}

TEST_CASE("a declared strategy parameter is the candidate's: each runs with its own value") {
  const auto document = attack_document();
  const std::string& path = kAttackPath;
  const SearchProblem p = make_problem(document, path, "kong_sync", "overshoot", true, 1, true,
                                       {"strategies[5].sync_rate=20ms..1s"});
  Candidate c = empty_candidate(p.scenario, p.space);
  for (std::uint32_t i = 0; i < 60; ++i)
    c.arrivals.push_back({static_cast<TimeUs>(i) * 16'667, i % 10});
  c.params = {20'000};
  const double fast = evaluate(p, c);
  c.params = {1'000'000};
  CHECK(evaluate(p, c) > fast);  // a slower sync lets the nodes admit more
}

}  // namespace rlsim_test_search_search
