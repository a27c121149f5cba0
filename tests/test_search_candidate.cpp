// search/candidate.h: a candidate as an ordinary scenario (its request list in memory), and the
// written scenario + CSV reproducing exactly the value the in-memory run measured.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "engine/commands.h"
#include "engine/expect.h"
#include "scenario/load.h"
#include "search/candidate.h"

namespace rlsim_test_search_candidate {

using namespace rlsim;
using Catch::Contains;
using nlohmann::ordered_json;

namespace {

const char* const kScenario = R"({
  "name": "cand", "seed": 4, "duration": "2s",
  "limits": [{"name": "per_user", "key": "user", "limit": 5, "window": "1s"}],
  "instances": {"count": 3},
  "traffic": [{"name": "a", "users": 1, "rate": "20/s"}],
  "redis": {"rtt": {"p50": "0.5ms", "p99": "2ms"}},
  "faults": [{"type": "redis_latency", "at": "1s", "for": "100ms", "added": "5ms"}],
  "strategies": ["in_memory", "redis_fixed_window"],
  "expect": [{"strategy": "in_memory", "metric": "overshoot", "min": 1}]
})";

SearchProblem problem(const std::string& label, const std::string& metric) {
  return make_problem(ordered_json::parse(kScenario), "cand.json", label, metric, true, 4);
}

Candidate burst(const SearchProblem& p) {
  Candidate c = empty_candidate(p.scenario, p.space);
  for (std::uint32_t i = 0; i < 12; ++i) c.arrivals.push_back({100'000 + i * 2000, i % 3});
  c.fault_at_us[0] = 400'000;
  normalize(c);
  return c;
}

}  // namespace

TEST_CASE("the request list is CSV to the microsecond") {
  Candidate c;
  c.arrivals = {{0, 0}, {1'234'567, 2}};
  CHECK(requests_csv(c) == "time,key,instance\n0.000000,attacker,0\n1.234567,attacker,2\n");
}

TEST_CASE("a candidate's document: one replay group, its faults moved, one strategy") {
  const SearchProblem p = problem("redis_fixed_window", "rolling_overshoot");
  const ordered_json doc = candidate_document(p, burst(p));
  CHECK(doc["traffic"].size() == 1);
  CHECK(doc["traffic"][0]["replay"]["file"] == kSearchRequestsFile);
  CHECK(doc["faults"][0]["at"] == "400ms");
  CHECK(doc["strategies"] == ordered_json::array({"redis_fixed_window"}));
  CHECK_FALSE(doc.contains("expect"));
  CHECK(doc["seed"] == 4);
}

TEST_CASE("a metric that does not resolve is refused before searching") {
  CHECK_THROWS_WITH(problem("in_memory", "no_such_metric"), Contains("no_such_metric"));
  CHECK_THROWS_WITH(problem("nope", "overshoot"), Contains("no strategy with this label"));
}

TEST_CASE("the written scenario reruns to exactly the value found in memory") {
  const SearchProblem p = problem("in_memory", "overshoot");
  const Candidate c = burst(p);
  const double value = evaluate(p, c);
  CHECK(value == 12.0 / 5);  // three instances, 5 each, 12 requests in one window
  const auto dir =
      std::filesystem::temp_directory_path() / ("rlsim-search-cand-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "scenario.json") << pinned_document(p, c, value, "test").dump(2);
  std::ofstream(dir / kSearchRequestsFile) << requests_csv(c);
  const Scenario written = load_scenario((dir / "scenario.json").string());
  const auto strategy = resolve_strategies(written, "scenario.json").at(0);
  const auto report =
      strategy_report(written, written.seed, run_strategy(written, strategy, written.seed));
  ordered_json whole = {{"strategies", ordered_json::array({report})}};
  CHECK(evaluate(written.expectations.at(0), whole).status == ExpectationOutcome::Status::kPassed);
  std::filesystem::remove_all(dir);
}

}  // namespace rlsim_test_search_candidate
