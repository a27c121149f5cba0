// world/replay_source and the replay wiring of a run: log times mapped onto virtual time (origin,
// from, to, speedup), second-resolution times spread by the seeded rule, requests pinned to
// instances (traffic[].instance too), production's verdicts beside a strategy's, and a log with
// too many malformed lines failing the run (exit code 2).
#include <catch2/catch.hpp>
#include <map>
#include <sstream>

#include "engine/run.h"
#include "oracle/observer.h"
#include "test_util.h"

namespace rlsim_test_replay_source {

using namespace rlsim;

namespace {

struct Seen {
  TimeUs at_us;
  std::uint32_t user;
  int instance;
  bool allowed;
};

class Recorder final : public DecisionObserver {
 public:
  void on_decided(const DecidedRequest& decided) override {
    arrivals.push_back({decided.request.arrival_us, decided.request.user, decided.outcome.instance,
                        decided.outcome.allowed});
  }
  std::vector<Seen> arrivals;
};

// A scenario whose traffic is `traffic` (JSON), with logs served from `files` by name.
Scenario replay_scenario(const std::string& traffic, std::map<std::string, std::string> files,
                         const std::string& strategy = "in_memory", int instances = 1,
                         std::uint64_t seed = 1) {
  Scenario scenario = parse_scenario(
      R"({"name": "t", "seed": )" + std::to_string(seed) +
          R"(, "duration": "10s", "limits": [{"name": "l", "key": "user", "limit": 2, "window": "1s"}],
          "instances": {"count": )" +
          std::to_string(instances) + R"(}, "traffic": [)" + traffic + R"(], "strategies": [")" +
          strategy + R"("]})",
      "test.json");
  scenario.open_log = [files](const std::string& name,
                              std::string& error) -> std::unique_ptr<std::istream> {
    const auto it = files.find(name);
    if (it == files.end()) {
      error = "no such file";
      return nullptr;
    }
    return std::make_unique<std::istringstream>(it->second);
  };
  return scenario;
}

std::pair<StrategyResult, std::vector<Seen>> run_recorded(const Scenario& scenario) {
  const auto strategies = resolve_strategies(scenario, "test.json");
  Recorder recorder;
  StrategySession session(scenario, strategies.front(), scenario.seed);
  session.add_observer(recorder);
  StrategyResult result = session.finish();
  return {std::move(result), recorder.arrivals};
}

std::vector<TimeUs> times_of(const std::vector<Seen>& arrivals) {
  std::vector<TimeUs> out;
  for (const auto& a : arrivals) out.push_back(a.at_us);
  return out;
}

const std::string kCsv = "time,key\n10.0,a\n10.5,b\n11.0,a\n12.25,c\n";

}  // namespace

TEST_CASE("replay: the first line is sent at the group's start, the rest at their offsets") {
  const auto [result, arrivals] = run_recorded(replay_scenario(
      R"({"name": "log", "start": "1s", "replay": {"file": "a.csv"}})", {{"a.csv", kCsv}}));
  CHECK(times_of(arrivals) == std::vector<TimeUs>{1'000'000, 1'500'000, 2'000'000, 3'250'000});
  // Users are interned in order of first appearance: a, b, a, c.
  CHECK(arrivals[0].user == arrivals[2].user);
  CHECK(arrivals[1].user == arrivals[0].user + 1);
  REQUIRE(result.replay);
  const ReplayGroupResult& group = result.replay->groups.at(0);
  CHECK(group.lines == 5);
  CHECK(group.requests == 4);
  CHECK(group.ended_by == "end of log");
  CHECK(group.origin_log_us == 10'000'000);
  CHECK_FALSE(result.replay->verdicts);  // no status column
}

TEST_CASE("replay: from, to and speedup choose and scale the window") {
  const auto times = [](const std::string& replay) {
    return times_of(run_recorded(replay_scenario(R"({"name": "log", "replay": {"file": "a.csv", )" +
                                                     replay + "}}",
                                                 {{"a.csv", kCsv}}))
                        .second);
  };
  CHECK(times(R"("speedup": 2)") == std::vector<TimeUs>{0, 250'000, 500'000, 1'125'000});
  // An absolute from keeps the log's own offsets after it; lines before it are not sent.
  CHECK(times(R"("from": 9)") == std::vector<TimeUs>{1'000'000, 1'500'000, 2'000'000, 3'250'000});
  CHECK(times(R"("from": 10.5)") == std::vector<TimeUs>{0, 500'000, 1'750'000});
  // A duration is an offset after the first line, for from and to alike.
  CHECK(times(R"("from": "500ms", "to": "2s")") == std::vector<TimeUs>{0, 500'000});
  CHECK(times(R"("to": "1s")") == std::vector<TimeUs>{0, 500'000});
  const auto [result, arrivals] = run_recorded(replay_scenario(
      R"({"name": "log", "end": "1.5s", "replay": {"file": "a.csv", "from": 10.5}})",
      {{"a.csv", kCsv}}));
  CHECK(arrivals.size() == 2);
  CHECK(result.replay->groups[0].ended_by == "group end");
  CHECK(result.replay->groups[0].before_window == 1);
}

TEST_CASE("replay: lines out of order are sent at the time of the line before them") {
  const auto [result, arrivals] =
      run_recorded(replay_scenario(R"({"name": "log", "replay": {"file": "a.csv"}})",
                                   {{"a.csv", "time,key\n1.0,a\n1.5,b\n1.2,c\n2.0,d\n"}}));
  CHECK(times_of(arrivals) == std::vector<TimeUs>{0, 500'000, 500'000, 1'000'000});
  CHECK(result.replay->groups[0].reordered == 1);
}

TEST_CASE("replay: one second's lines spread over the second by the seeded rule") {
  std::string log;
  for (int i = 0; i < 50; ++i)
    log += "10.0.0.1 - - [06/Dec/2025:05:46:4" + std::to_string(i / 25) +
           " +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n";
  const auto run = [&](std::uint64_t seed) {
    return run_recorded(replay_scenario(R"({"name": "log", "replay": {"file": "n.log",
                                            "format": "nginx"}})",
                                        {{"n.log", log}}, "in_memory", 1, seed));
  };
  const auto [result, arrivals] = run(1);
  REQUIRE(arrivals.size() == 50);
  CHECK(result.replay->groups[0].spread_seconds == 2);
  // The origin is the first line's second; its 25 lines fall inside it, in order, and so do the
  // next second's inside the next.
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    const TimeUs second_us = static_cast<TimeUs>(i / 25) * 1'000'000;
    CHECK(arrivals[i].at_us >= second_us);
    CHECK(arrivals[i].at_us < second_us + 1'000'000);
    if (i > 0) CHECK(arrivals[i].at_us >= arrivals[i - 1].at_us);
  }
  CHECK(times_of(run(1).second) == times_of(arrivals));  // deterministic
  CHECK(times_of(run(2).second) != times_of(arrivals));  // the seed's own stream
}

TEST_CASE("replay: the instance column pins each request to its instance") {
  const auto [result, arrivals] = run_recorded(replay_scenario(
      R"({"name": "log", "replay": {"file": "a.csv"}})",
      {{"a.csv", "time,key,instance\n1,a,2\n2,a,pod-x\n3,a,0\n4,a,pod-x\n5,a,9\n6,a,\n"}},
      "in_memory", 3));
  REQUIRE(arrivals.size() == 6);
  CHECK(arrivals[0].instance == 2);
  CHECK(arrivals[1].instance == 0);  // the first name seen is instance 0
  CHECK(arrivals[2].instance == 0);
  CHECK(arrivals[3].instance == 0);
  // Instance 9 never ran, and the last line names none: the balancer picks (round robin).
  CHECK(arrivals[4].instance == 0);
  CHECK(arrivals[5].instance == 1);
}

TEST_CASE("replay: traffic[].instance sends a synthetic group to one instance") {
  const auto [result, arrivals] = run_recorded(
      replay_scenario(R"({"name": "steady", "rate": "10/s", "arrival": "constant", "instance": 2})",
                      {}, "in_memory", 4));
  REQUIRE(arrivals.size() == 100);
  for (const Seen& a : arrivals) CHECK(a.instance == 2);
}

TEST_CASE("replay: production's verdicts beside the strategy's, request by request") {
  // Limit 2 per second on one instance: in_memory admits a, a, denies the next two in second 1.
  const auto [result, arrivals] = run_recorded(replay_scenario(
      R"({"name": "log", "replay": {"file": "a.csv"}})",
      {{"a.csv", "time,key,status\n1.1,a,200\n1.2,a,429\n1.3,a,429\n1.4,a,200\n1.5,b,\n"}}));
  REQUIRE(result.replay->verdicts);
  const VerdictAgreement& v = *result.replay->verdicts;
  CHECK(v.compared == 4);  // the last line carries no verdict
  CHECK(v.agree_admitted == 1);
  CHECK(v.agree_denied == 1);
  CHECK(v.logged_denied_but_admitted == 1);
  CHECK(v.logged_admitted_but_denied == 1);
}

TEST_CASE("replay: more malformed lines than max_bad_lines fail the run with exit code 2") {
  const Scenario scenario =
      replay_scenario(R"({"name": "log", "replay": {"file": "a.csv", "max_bad_lines": 1}})",
                      {{"a.csv", "time,key\n1,a\nx,a\n2,a\ny,a\n"}});
  const auto strategies = resolve_strategies(scenario, "test.json");
  try {
    run_strategy(scenario, strategies.front(), 1);
    FAIL("the run should have failed");
  } catch (const RunError& error) {
    CHECK(error.kind == RunErrorKind::kBadInput);
    CHECK(std::string(error.what()) ==
          "traffic group log: more than 1 malformed lines (max_bad_lines); the first: line 3: "
          "the time \"x\" is neither seconds nor an ISO 8601 date-time");
  }
}

TEST_CASE("replay: a log the opener cannot open fails the run with its name") {
  const Scenario scenario =
      replay_scenario(R"({"name": "log", "replay": {"file": "gone.csv"}})", {});
  const auto strategies = resolve_strategies(scenario, "test.json");
  CHECK_THROWS_WITH(run_strategy(scenario, strategies.front(), 1),
                    "traffic group log: cannot read the log \"gone.csv\": no such file");
}

}  // namespace rlsim_test_replay_source
