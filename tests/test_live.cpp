// Live mode and stepped runs: advancing a StrategySession in steps of virtual time gives exactly
// the ordinary run; the dashboard shows the current window; `run --live` writes the same report
// files as `run`, with plain progress lines when stdout is not a terminal.
#include <catch2/catch.hpp>
#include <filesystem>

#include "app/live.h"
#include "cli_dir.h"
#include "engine/commands.h"
#include "test_util.h"

namespace fs = std::filesystem;
using Catch::Contains;
using namespace rlsim;

namespace {

const char* const kScenario = R"({
  "name": "livey",
  "seed": 11,
  "duration": "3s",
  "limits": [{"name": "per_user", "key": "user", "limit": 10, "window": "1s"}],
  "instances": {"count": 4, "schedule": [{"at": "1500ms", "count": 2}]},
  "load_balancer": {"policy": "random"},
  "traffic": [{"name": "g", "users": 1, "rate": "100/s"}],
  "redis": {"rtt": {"p50": "0.5ms", "p99": "2ms"}, "timeout": "20ms"},
  "strategies": ["in_memory", "redis_fixed_window"]
})";

}  // namespace

TEST_CASE("a session advanced in uneven steps makes the same decisions as one run") {
  const Scenario scenario = parse_scenario(kScenario, "s.json");
  for (const auto& strategy : resolve_strategies(scenario, "s.json")) {
    const StrategyResult whole = run_strategy(scenario, strategy, 11);
    StrategySession session(scenario, strategy, 11);
    for (TimeUs t : {TimeUs{1}, TimeUs{999'999}, TimeUs{1'000'000}, TimeUs{1'700'123}}) {
      session.advance_to(t);
      CHECK(session.now_us() == t);
    }
    CHECK(session.totals().offered > 0);
    CHECK(session.active_instances() == 2);
    session.advance_to(TimeUs{1} << 50);  // capped at the scenario's end
    CHECK(session.now_us() == scenario.duration_us);
    const StrategyResult stepped = session.finish();
    CHECK(stepped.decision_digest == whole.decision_digest);
    CHECK(strategy_report(scenario, 11, stepped).dump() ==
          strategy_report(scenario, 11, whole).dump());
  }
}

TEST_CASE("the live dashboard shows time, the window, the bar against the limit and instances") {
  const Scenario scenario = parse_scenario(kScenario, "s.json");
  const auto strategies = resolve_strategies(scenario, "s.json");
  StrategySession memory(scenario, strategies[0], 11);
  StrategySession redis(scenario, strategies[1], 11);
  memory.advance_to(900'000);
  redis.advance_to(900'000);
  const std::string text = live_dashboard(scenario, {&memory, &redis}, 4, true, false);
  CHECK_THAT(text, Contains("rlsim live: livey"));
  CHECK_THAT(text, Contains("virtual 0.9s of 3.0s (30%)"));
  CHECK_THAT(text, Contains("speed 4x   PAUSED"));
  CHECK_THAT(text, Contains("current 1s window #1 of limit per_user"));
  CHECK_THAT(text, Contains("in_memory  4 instances"));
  CHECK_THAT(text, Contains("#3:"));
  CHECK_THAT(text, Contains(" / 10 (1.00x)"));     // the central counter holds 10
  CHECK(text.find("\033[") == std::string::npos);  // no colour asked for
  const std::string line = live_progress_line(scenario, {&memory, &redis});
  CHECK_THAT(line, Contains("virtual 0.9s of 3.0s: in_memory admitted"));
}

TEST_CASE("rlsim run --live writes the same report files, with plain lines off a terminal") {
  const testing::CliDir cli("live", kScenario);
  const fs::path& dir = cli.path;
  const auto rlsim = [&](const std::string& args) { return cli.rlsim(args); };
  REQUIRE(rlsim("run s.json --out plain") == 0);
  CHECK(testing::read_text_file(dir / ".err")
            .empty());  // no progress line when stderr is not a terminal
  REQUIRE(rlsim("run s.json --live --speed 20 --out live") == 0);
  const std::string out = testing::read_text_file(dir / ".out");
  CHECK_THAT(out, Contains("virtual 3.0s of 3.0s: in_memory admitted"));
  CHECK_THAT(out, Contains("rlsim: livey"));  // then the normal table
  CHECK(out.find("\033[") == std::string::npos);
  for (const auto& entry : fs::directory_iterator(dir / "plain")) {
    const fs::path other = dir / "live" / entry.path().filename();
    INFO(entry.path().filename().string());
    CHECK(testing::read_text_file(entry.path()) == testing::read_text_file(other));
  }
  CHECK(rlsim("run s.json --speed 2") == 2);  // --speed needs --live
  CHECK(rlsim("run s.json --live --seeds 3") == 2);
  CHECK(rlsim("run s.json --live --speed 0") == 2);
}

TEST_CASE("an ordinary run on a terminal shows a progress line, then the same report") {
  if (std::system("command -v script >/dev/null 2>&1") != 0) {
    WARN("script(1) not found: the terminal case is not checked");
    return;
  }
  const testing::CliDir cli("progress", kScenario);
  REQUIRE(cli.rlsim("run s.json --out plain") == 0);
  // script(1) gives rlsim a pseudo-terminal for stdout and stderr.
  REQUIRE(cli.shell("script -qec \"env -u NO_COLOR '" RLSIM_BINARY
                    "' run s.json --out tty\" /dev/null") == 0);
  const std::string out = cli.out();
  CHECK_THAT(out, Contains("[1/2] in_memory: virtual 0.0s of 3.0s (1%)"));
  CHECK_THAT(out, Contains("[2/2] redis_fixed_window: virtual 3.0s of 3.0s (100%)"));
  CHECK(testing::read_text_file(cli.path / "plain" / "report.json") ==
        testing::read_text_file(cli.path / "tty" / "report.json"));
}
