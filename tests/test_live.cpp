// Live mode and stepped runs: advancing a StrategySession in steps of virtual time gives exactly
// the ordinary run; the dashboard shows the current window; `run --live` writes the same report
// files as `run`, with plain progress lines when stdout is not a terminal.
#include <catch2/catch.hpp>
#include <filesystem>

#include "app/live.h"
#include "app/live_view.h"
#include "cli_dir.h"
#include "core/terminal_text.h"
#include "engine/commands.h"
#include "test_util.h"

namespace rlsim_test_live {

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

namespace {

// Every line of `screen` fits `columns` (code points) and there are at most `rows` of them.
void check_fits(const std::string& screen, std::size_t columns, std::size_t rows) {
  std::size_t lines = 0;
  std::size_t start = 0;
  while (start <= screen.size()) {
    const std::size_t end = std::min(screen.find('\n', start), screen.size());
    const std::string line = screen.substr(start, end - start);
    INFO(line);
    CHECK(text_columns(line) <= columns);
    ++lines;
    start = end + 1;
  }
  CHECK(lines <= rows);
}

// A session with its window watch, advanced to `at_us`.
struct Watched {
  std::unique_ptr<LiveWindowWatch> watch;
  std::unique_ptr<StrategySession> session;
  Watched(const Scenario& scenario, const ResolvedStrategy& strategy, TimeUs at_us) {
    session = std::make_unique<StrategySession>(scenario, strategy, scenario.seed);
    watch = std::make_unique<LiveWindowWatch>(scenario, *session);
    session->add_observer(*watch);
    session->advance_to(at_us);
  }
  // A session left mid-run still has requests in flight (coroutine frames waiting on Redis):
  // stopping it decides them, as the live view does on `q`, so nothing is leaked.
  ~Watched() {
    if (session) session->stop();
  }
  Watched(Watched&&) = default;
  Watched& operator=(Watched&&) = default;
  Watched(const Watched&) = delete;
  Watched& operator=(const Watched&) = delete;
};

std::string screen_at(const Scenario& scenario, TimeUs at_us, const LiveScreen& screen,
                      std::vector<Watched>& runs) {
  runs.clear();
  for (const auto& strategy : resolve_strategies(scenario, scenario.file))
    runs.emplace_back(scenario, strategy, at_us);
  std::vector<const LiveWindowWatch*> watches;
  for (const auto& run : runs) watches.push_back(run.watch.get());
  return live_dashboard(scenario, watches, screen);
}

}  // namespace

TEST_CASE("the live dashboard shows time, the window, a fixed bar and the key per instance") {
  const Scenario scenario = parse_scenario(kScenario, "s.json");
  std::vector<Watched> runs;
  LiveScreen screen;
  screen.speed = 4;
  screen.paused = true;
  const std::string text = screen_at(scenario, 900'000, screen, runs);
  CHECK_THAT(text, Contains("rlsim live: livey   0.9s of 3.0s (30%)   speed 4x   PAUSED"));
  CHECK_THAT(text, Contains("window #1, 0.0s to 1.0s; bars: most admitted for one user, scale 0 "
                            "to 200; limit per_user: 10 per 1s per user"));
  // 1 user at 100/s: 110 a window at most, rounded up to 200, whatever the run admits.
  CHECK(live_bar_scale(scenario) == 200);
  CHECK_THAT(text, Contains("4 instances"));
  // The in-memory limit admits 10 for the user on each instance: 40, and that user by instance.
  CHECK_THAT(text, Contains("    40 / 10  4.00x"));
  CHECK_THAT(text, Contains("user 0 by instance: #0:10 #1:10 #2:10 #3:10"));
  CHECK_THAT(text, Contains("    10 / 10  1.00x"));  // the central counter holds 10
  CHECK_THAT(text, Contains("\n    errors 0  timeouts 0  fallbacks 0  p99 +"));
  CHECK_THAT(text, Contains("keys: p pause/resume   s to the end of this window   h hide"));
  CHECK(text.find("\033[") == std::string::npos);  // no colour asked for
  check_fits(text, 120, 35);
  screen.hidden = true;
  const std::string hidden = screen_at(scenario, 900'000, screen, runs);
  CHECK_THAT(hidden, Contains("figures hidden: predict, then press h to reveal"));
  CHECK_THAT(hidden, Contains("     ? / 10      ?"));
  CHECK(hidden.find("40 / 10") == std::string::npos);
  CHECK(hidden.find("#3:10") == std::string::npos);
  std::vector<Watched> progress_runs;
  screen_at(scenario, 900'000, screen, progress_runs);
  const std::string line = live_progress_line(
      scenario, {progress_runs[0].session.get(), progress_runs[1].session.get()});
  CHECK_THAT(line, Contains("virtual 0.9s of 3.0s:\n  in_memory admitted"));
}

TEST_CASE("the live view shows redis-outage's outage: banner, errors, fallbacks, latency") {
  const Scenario scenario =
      load_scenario(std::string(RLSIM_SOURCE_DIR) + "/scenarios/redis-outage.json");
  CHECK(live_banner(scenario, 179'999'999).empty());
  CHECK(live_banner(scenario, 200'000'000).empty());
  const auto banner = live_banner(scenario, 190'000'000);
  REQUIRE(banner.size() == 1);
  CHECK(banner[0] ==
        "!! REDIS DOWN from 3m0.0s to 3m20.0s, 10.0s left: no reply, every call waits the 100ms "
        "timeout");
  std::vector<Watched> runs;
  const std::string text = screen_at(scenario, 190'000'000, LiveScreen{}, runs);
  INFO(text);
  check_fits(text, 120, 35);
  CHECK_THAT(text, Contains(banner[0]));
  CHECK_THAT(text, Contains("window #4, 3m0.0s to 4m0.0s"));
  CHECK_THAT(text, Contains("p99 +100."));  // every call waited the timeout
  CHECK_THAT(text, Contains("so far: fallback decisions"));
  CHECK_THAT(text, Contains("breakers open "));
  // 80 x 24: rows dropped, nothing wrapped; the banner, the bars and the keys stay.
  LiveScreen small;
  small.columns = 80;
  small.rows = 24;
  const std::string narrow = screen_at(scenario, 190'000'000, small, runs);
  INFO(narrow);
  check_fits(narrow, 80, 24);
  CHECK_THAT(narrow, Contains("!! REDIS DOWN"));
  CHECK_THAT(narrow, Contains("circuit_breaker"));
  CHECK_THAT(narrow, Contains("keys: p pause"));
}

TEST_CASE("the live view names a failover and its phases") {
  const Scenario scenario =
      load_scenario(std::string(RLSIM_SOURCE_DIR) + "/scenarios/redis-failover.json");
  // The failover starts at 1:10: down after 5 s, promoted 1 s later, clients back 1 s after that.
  CHECK(live_banner(scenario, 69'999'999).empty());
  const auto banner = live_banner(scenario, 72'000'000);
  REQUIRE(banner.size() == 1);
  CHECK(banner[0] ==
        "!! REDIS FAILOVER from 1m10.0s to 1m17.0s, 5.0s left: primary lost with 500ms of "
        "writes; detected at +5s, promoted at +6s, clients back at +7s");
  CHECK(live_banner(scenario, 77'000'000).empty());
}

TEST_CASE("24 instances fit 80 columns, and the autoscaler's choice is shown") {
  Scenario scenario =
      load_scenario(std::string(RLSIM_SOURCE_DIR) + "/scenarios/overshoot-10x.json");
  scenario.instances.count = 24;
  std::vector<Watched> runs;
  for (const auto& [columns, rows] : {std::pair{120, 35}, std::pair{80, 24}}) {
    LiveScreen screen;
    screen.columns = columns;
    screen.rows = rows;
    const std::string text = screen_at(scenario, 30'000'000, screen, runs);
    INFO(text);
    check_fits(text, static_cast<std::size_t>(columns), static_cast<std::size_t>(rows));
    CHECK_THAT(text, Contains("by instance:"));
  }
  const Scenario hpa =
      load_scenario(std::string(RLSIM_SOURCE_DIR) + "/scenarios/autoscale-dos.json");
  const std::string text = screen_at(hpa, hpa.duration_us / 2, LiveScreen{}, runs);
  INFO(text);
  CHECK_THAT(text, Contains("    HPA at "));
  CHECK_THAT(text, Contains(" per pod vs target "));
  runs.clear();  // stopped while `hpa`, declared after them, still lives
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
  CHECK_THAT(out, Contains("virtual 3.0s of 3.0s:\n  in_memory admitted"));
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

}  // namespace rlsim_test_live
