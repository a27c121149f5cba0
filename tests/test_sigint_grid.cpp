// Ctrl-C during `rlsim sweep`, `rlsim run --seeds N` and `rlsim run --live`
// (docs/cli.md#interrupting-a-run): the binary is started on day-long runs, sent SIGINT after a
// moment of wall time, and must exit 130 having written what was complete, marked partial. The
// runs cut short and those not started are left out of the sweep's and the seeds' figures.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "app/interrupt.h"
#include "app/seeds.h"
#include "cli_dir.h"
#include "engine/commands.h"
#include "engine/run.h"
#include "report/partial.h"
#include "scenario/load.h"
#include "signal_run.h"

namespace rlsim_test_sigint_grid {

using Catch::Contains;
using nlohmann::json;
using rlsim::testing::CliDir;
using rlsim::testing::Exit;
using rlsim::testing::interrupt_rlsim;
using rlsim::testing::long_scenario;
using rlsim::testing::read_text_file;

namespace {

json read_json(const std::filesystem::path& path) { return json::parse(read_text_file(path)); }

constexpr std::chrono::milliseconds kSigintDelay{1500};

// `rlsim ARGS` in `dir` sent one SIGINT after 1.5 s: it must stop within seconds, with 130.
Exit interrupt_once(const CliDir& dir, const std::vector<std::string>& args) {
  const Exit exit = interrupt_rlsim(dir, args, kSigintDelay, 1);
  INFO(dir.err());
  REQUIRE(exit.exited);
  CHECK(exit.code == 130);
  CHECK(exit.wall_s < 10);
  CHECK_THAT(dir.err(), Contains("interrupted (SIGINT)"));
  return exit;
}

}  // namespace

TEST_CASE("SIGINT stops rlsim sweep: the complete grid points, marked partial, exit 130") {
  const CliDir dir("sigint-sweep", long_scenario("24h"));
  // One thread: the 1-minute point completes, the first day-long one is cut, the last not started.
  interrupt_once(dir, {"sweep", "s.json", "--set", "duration=1m,24h,24h", "--strategy",
                       "redis_fixed_window", "--jobs", "1", "--out", "r"});
  CHECK_THAT(dir.out(), Contains("PARTIAL: stopped by SIGINT: 1 of 3 runs complete, 1 cut short "
                                 "and 1 not started are left out"));

  const json sweep = read_json(dir.path / "r" / "sweep.json");
  REQUIRE(sweep.contains("partial"));
  CHECK(sweep["partial"] ==
        json({{"reason", "SIGINT"}, {"runs", 3}, {"complete", 1}, {"cut", 1}, {"not_run", 1}}));
  const auto& points = sweep["points"];
  REQUIRE(points.size() == 3);
  // The complete point has its figures (over its one run); the others have none.
  const auto& first = points[0]["strategies"][0]["metrics"];
  CHECK(first["overshoot"]["runs"] == 1);
  CHECK(first["overshoot"]["mean"].get<double>() <= 1.0);
  CHECK(points[1]["strategies"][0]["metrics"].empty());
  CHECK(points[2]["strategies"][0]["metrics"].empty());
  CHECK_THAT(read_text_file(dir.path / "r" / "sweep.md"), Contains("PARTIAL: stopped by SIGINT"));
  CHECK_THAT(read_text_file(dir.path / "r" / "sweep.html"), Contains("PARTIAL: stopped by SIGINT"));
}

TEST_CASE("SIGINT stops rlsim run --seeds: report.json and seeds.json marked partial, exit 130") {
  const CliDir dir("sigint-seeds", long_scenario("24h"));
  interrupt_once(dir, {"run", "s.json", "--seeds", "3", "--jobs", "1", "--out", "r"});
  CHECK_THAT(dir.out(), Contains("PARTIAL REPORT: stopped by SIGINT at virtual time"));
  CHECK_THAT(dir.out(), Contains("expectations: not evaluated (partial report)"));
  CHECK_THAT(dir.out(), Contains("PARTIAL: stopped by SIGINT: 0 of 6 runs complete"));

  // The first seed of the first strategy was cut; nothing else started.
  const json report = read_json(dir.path / "r" / "report.json");
  REQUIRE(report.contains("partial"));
  CHECK(report["partial"]["strategy"] == "redis_fixed_window");
  CHECK(report["partial"]["not_run"] == json::array({"in_memory"}));
  REQUIRE(report["strategies"].size() == 1);
  const json seeds = read_json(dir.path / "r" / "seeds.json");
  CHECK(seeds["partial"] ==
        json({{"reason", "SIGINT"}, {"runs", 6}, {"complete", 0}, {"cut", 1}, {"not_run", 5}}));
  for (const auto& strategy : seeds["strategies"]) CHECK(strategy["metrics"].empty());
  CHECK_THAT(read_text_file(dir.path / "r" / "seeds.md"), Contains("**PARTIAL: stopped by SIGINT"));
}

TEST_CASE("SIGINT stops rlsim run --live: every strategy cut at the same time, exit 130") {
  const CliDir dir("sigint-live", long_scenario("24h"));
  const Exit exit =
      interrupt_once(dir, {"run", "s.json", "--live", "--speed", "1000", "--out", "r"});
  CHECK_THAT(dir.out(), Contains("PARTIAL REPORT: stopped by SIGINT at virtual time"));
  CHECK_THAT(dir.out(), Contains("during redis_fixed_window, in_memory"));

  const json report = read_json(dir.path / "r" / "report.json");
  REQUIRE(report.contains("partial"));
  const auto& partial = report["partial"];
  CHECK(partial["strategies"] == json::array({"redis_fixed_window", "in_memory"}));
  CHECK(partial["not_run"].empty());
  CHECK_FALSE(partial.contains("strategy"));
  const double stopped_s = partial["stopped_at_s"].get<double>();
  // Paced at 1000x: never ahead of the wall time the process had (1.5 s before SIGINT, wall_s
  // after), and well short of the day. No lower bound beyond "it ran": on a loaded machine the
  // process may spend most of the 1.5 s starting (CI once stopped at 98.6 s).
  CHECK(stopped_s > 0);
  CHECK(stopped_s <= 1000 * (std::chrono::duration<double>(kSigintDelay).count() + exit.wall_s));
  CHECK(stopped_s < 20'000);
  REQUIRE(report["strategies"].size() == 2);
  // The same traffic up to the same virtual time, every request decided.
  const auto& a = report["strategies"][0];
  const auto& b = report["strategies"][1];
  CHECK(a["offered"] == b["offered"]);
  CHECK(a["offered"].get<std::int64_t>() ==
        a["allowed"].get<std::int64_t>() + a["denied"].get<std::int64_t>());
}

TEST_CASE("run_grid after a stop request: nothing runs, and the summary says so") {
  using namespace rlsim;
  const Scenario scenario = parse_scenario(long_scenario("1m"), "s.json");
  const auto strategies = resolve_strategies(scenario, "s.json");
  std::vector<GridJob> jobs;
  for (const auto& strategy : strategies) jobs.push_back({&scenario, &strategy, 7, true});
  {
    const InterruptWatch watch;
    request_stop();
    const auto outcomes = run_grid(jobs, 2, false);
    for (const auto& outcome : outcomes) {
      CHECK(outcome.state == GridOutcome::State::kNotRun);
      CHECK_FALSE(outcome.result);
    }
    REQUIRE(grid_partial(outcomes));
    CHECK(grid_partial(outcomes)->not_run == 2);
    CHECK(grid_partial(outcomes)->complete == 0);
  }
  // Without a watch the flag is cleared by the next one; a plain grid is complete.
  const InterruptWatch fresh;
  const auto outcomes = run_grid(jobs, 2, false);
  for (const auto& outcome : outcomes) CHECK(outcome.state == GridOutcome::State::kComplete);
  CHECK_FALSE(grid_partial(outcomes));
  CHECK(grid_partial_notice(grid_partial(outcomes)).empty());
}

TEST_CASE("mark_partial: strategies not started, none cut: a notice without a time") {
  using namespace rlsim;
  const Scenario scenario = parse_scenario(long_scenario("1m"), "s.json");
  const auto strategies = resolve_strategies(scenario, "s.json");
  RunResult result;
  result.scenario = &scenario;
  result.strategies.push_back(run_strategy(scenario, strategies[0], 7));
  mark_partial(result, strategies);
  REQUIRE(result.partial);
  CHECK_FALSE(result.partial->stopped_at_s);
  CHECK(result.partial->not_run == std::vector<std::string>{"in_memory"});
  CHECK(partial_notice(result) ==
        "PARTIAL REPORT: stopped by SIGINT; not run: in_memory; the figures cover the traffic up "
        "to that time, expectations were not evaluated");
  // Every strategy complete: not partial.
  result.partial.reset();
  result.strategies.push_back(run_strategy(scenario, strategies[1], 7));
  mark_partial(result, strategies);
  CHECK_FALSE(result.partial);
}

}  // namespace rlsim_test_sigint_grid
