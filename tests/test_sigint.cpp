// Ctrl-C during a long run (app/interrupt.h, docs/cli.md#interrupting-a-run): the rlsim binary is
// started on a long scenario, sent SIGINT after a moment of wall time, and must exit 130 with a
// readable report marked partial; a stopped session's numbers must equal those of the same
// scenario cut at the time it stopped.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "app/interrupt.h"
#include "cli_dir.h"
#include "engine/run.h"
#include "scenario/load.h"
#include "signal_run.h"

namespace rlsim_test_sigint {

using Catch::Contains;
using rlsim::testing::CliDir;
using rlsim::testing::Exit;
using rlsim::testing::interrupt_rlsim;
using rlsim::testing::long_scenario;
using rlsim::testing::read_text_file;

TEST_CASE("SIGINT stops rlsim run: exit 130 and a readable report marked partial") {
  const CliDir dir("sigint", long_scenario("24h"));
  const Exit exit =
      interrupt_rlsim(dir, {"run", "s.json", "--out", "r"}, std::chrono::milliseconds(1500), 1);
  INFO(dir.err());
  REQUIRE(exit.exited);
  CHECK(exit.code == 130);
  CHECK(exit.wall_s < 10);
  CHECK_THAT(dir.err(), Contains("interrupted (SIGINT)"));
  // The terminal summary opens with the notice, and expectations are not given as held.
  CHECK_THAT(dir.out(), Contains("PARTIAL REPORT: stopped by SIGINT at virtual time"));
  CHECK_THAT(dir.out(), Contains("expectations: not evaluated (partial report)"));
  CHECK_THAT(dir.out(), !Contains("hold,"));

  const auto report = nlohmann::json::parse(read_text_file(dir.path / "r" / "report.json"));
  REQUIRE(report.contains("partial"));
  const auto& partial = report["partial"];
  CHECK(partial["reason"] == "SIGINT");
  CHECK(partial["strategy"] == "redis_fixed_window");
  CHECK(partial["not_run"] == nlohmann::json::array({"in_memory"}));
  const double stopped_s = partial["stopped_at_s"].get<double>();
  CHECK(stopped_s > 0);
  CHECK(stopped_s < 86400);
  REQUIRE(report["strategies"].size() == 1);
  const auto& strategy = report["strategies"][0];
  const auto offered = strategy["offered"].get<std::int64_t>();
  // 150 requests/s on average, up to the stop: every request sent was decided (none left out).
  CHECK(offered > 0);
  CHECK(offered ==
        strategy["allowed"].get<std::int64_t>() + strategy["denied"].get<std::int64_t>());
  CHECK(static_cast<double>(offered) < 150 * stopped_s * 1.2 + 100);
  CHECK(static_cast<double>(offered) > 150 * stopped_s * 0.8 - 100);
  CHECK_THAT(read_text_file(dir.path / "r" / "report.html"), Contains("PARTIAL REPORT"));
  CHECK_THAT(read_text_file(dir.path / "r" / "report.md"), Contains("**PARTIAL REPORT"));
}

TEST_CASE("SIGINT stops rlsim check with exit 130 and no verdict") {
  const CliDir dir("sigint-check", long_scenario("24h"));
  const Exit exit = interrupt_rlsim(dir, {"check", "s.json"}, std::chrono::milliseconds(1500), 1);
  REQUIRE(exit.exited);
  CHECK(exit.code == 130);
  CHECK_THAT(dir.err(), Contains("no verdict"));
  CHECK_THAT(dir.out(), !Contains("passed"));
}

TEST_CASE("a run without SIGINT is unchanged and exits 0") {
  const CliDir dir("sigint-none", long_scenario("2m"));
  REQUIRE(dir.rlsim("run s.json --out r") == 0);
  const auto report = nlohmann::json::parse(read_text_file(dir.path / "r" / "report.json"));
  CHECK_FALSE(report.contains("partial"));
  CHECK_THAT(dir.out(), !Contains("PARTIAL"));
}

TEST_CASE("a session stopped early equals the same scenario cut at that time") {
  using namespace rlsim;
  const auto with_strategies = [](std::string text) {
    const std::string from = R"("strategies": ["redis_fixed_window", "in_memory"])";
    text.replace(text.find(from), from.size(),
                 R"("strategies": ["redis_fixed_window", "in_memory", "redis_sliding_log"])");
    return text;
  };
  const Scenario full = parse_scenario(with_strategies(long_scenario("10m")), "full.json");
  const Scenario cut = parse_scenario(with_strategies(long_scenario("123456790us")), "cut.json");
  for (const ResolvedStrategy& strategy : resolve_strategies(full, "full.json")) {
    INFO(strategy.label);
    StrategySession session(full, strategy, 7);
    session.advance_to(123'456'789);  // 123.456789 s
    const StrategyResult stopped = session.stop();
    REQUIRE(stopped.stopped_at_us == 123'456'789);

    // Arrivals at the stop time itself were sent: the cut scenario ends one microsecond later.
    const StrategyResult whole = run_strategy(cut, strategy, 7);
    CHECK(stopped.totals.offered == whole.totals.offered);
    CHECK(stopped.totals.allowed == whole.totals.allowed);
    CHECK(stopped.totals.denied == whole.totals.denied);
    CHECK(stopped.totals.errors == whole.totals.errors);
    CHECK(stopped.decision_digest == whole.decision_digest);
    CHECK(stopped.redis_commands == whole.redis_commands);
    CHECK(stopped.redis_keys_at_end == whole.redis_keys_at_end);
    CHECK_FALSE(whole.stopped_at_us);
  }
}

TEST_CASE("finish_interruptible without a watch runs to the end even if a stop was requested") {
  using namespace rlsim;
  const Scenario scenario = parse_scenario(long_scenario("1m"), "s.json");
  const auto strategies = resolve_strategies(scenario, "s.json");
  const StrategyResult plain = run_strategy(scenario, strategies[0], 7);
  {
    const InterruptWatch watch;  // a new watch clears the flag; request_stop() sets it
    request_stop();
    StrategySession session(scenario, strategies[0], 7);
    const StrategyResult stopped = finish_interruptible(session, scenario.duration_us);
    CHECK(stopped.stopped_at_us == 0);
    CHECK(stopped.totals.offered == 0);
  }
  StrategySession session(scenario, strategies[0], 7);
  const StrategyResult again = finish_interruptible(session, scenario.duration_us);
  CHECK_FALSE(again.stopped_at_us);
  CHECK(again.decision_digest == plain.decision_digest);
}

}  // namespace rlsim_test_sigint
