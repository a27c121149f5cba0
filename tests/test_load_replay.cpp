// scenario/load_replay: a traffic group's `replay` and `instance` as the loader reads them, every
// mistake named by its JSON path; the bundled scenarios/replay-nginx.json and its headline numbers.
#include <catch2/catch.hpp>

#include "scenario/load.h"
#include "test_util.h"

namespace rlsim_test_load_replay {

using namespace rlsim;

namespace {

std::string with_traffic(const std::string& traffic) {
  return R"({"name": "t", "duration": "10s",
    "limits": [{"name": "l", "key": "user", "limit": 2, "window": "1s"}],
    "instances": {"count": 2}, "traffic": [)" +
         traffic + R"(], "strategies": ["in_memory"]})";
}

std::string error_of(const std::string& traffic) {
  try {
    parse_scenario(with_traffic(traffic), "s.json");
    return "(accepted)";
  } catch (const ScenarioError& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("load_replay: the fields, with each format's defaults") {
  const Scenario csv = parse_scenario(
      with_traffic(R"({"name": "log", "replay": {"file": "a.csv", "from": "2s", "to": 1765000000,
                      "speedup": 4, "denied": [429, "503"], "max_bad_lines": -1}})"),
      "s.json");
  const ReplaySpec& spec = *csv.traffic[0].replay;
  CHECK(spec.file == "a.csv");
  CHECK(spec.log.format == LogFormat::kCsv);
  CHECK(spec.log.time_field == "time");
  CHECK(spec.log.fields[0] == "key");
  CHECK(spec.log.required[0]);
  CHECK_FALSE(spec.log.required[1]);
  CHECK(spec.from_offset_us == 2'000'000);
  CHECK_FALSE(spec.from_log_us);
  CHECK(spec.to_log_us == 1'765'000'000'000'000);
  CHECK(spec.speedup == 4);
  CHECK(spec.denied == std::vector<std::string>{"429", "503"});
  CHECK(spec.max_bad_lines == -1);
  CHECK(csv.traffic[0].users == ScenarioBounds::kMaxUsersPerGroup);  // ids for interned users

  const Scenario nginx =
      parse_scenario(with_traffic(R"({"name": "log", "replay": {"file": "a.log", "format": "nginx",
                      "fields": {"user": "$remote_user", "ip": ""},
                      "from": "2025-12-06T05:46:40Z"}})"),
                     "s.json");
  const ReplaySpec& n = *nginx.traffic[0].replay;
  CHECK(n.log.log_format.rfind("$remote_addr - $remote_user [$time_local]", 0) == 0);
  CHECK(n.log.fields[0] == "remote_user");
  CHECK(n.log.required[0]);
  CHECK(n.log.fields[1].empty());
  CHECK(n.from_log_us == 1'765'000'000'000'000);
  CHECK(n.denied == std::vector<std::string>{"429"});

  const Scenario envoy = parse_scenario(
      with_traffic(R"({"name": "log", "replay": {"file": "a.json", "format": "envoy"}})"),
      "s.json");
  CHECK(envoy.traffic[0].replay->log.time_field == "start_time");
  CHECK(envoy.traffic[0].replay->denied == std::vector<std::string>{"RL"});

  const Scenario pinned =
      parse_scenario(with_traffic(R"({"name": "steady", "rate": "1/s", "instance": 1})"), "s.json");
  CHECK(pinned.traffic[0].instance == 1u);
  CHECK_FALSE(pinned.traffic[0].replay);
}

TEST_CASE("load_replay: mistakes are named by their path") {
  CHECK(error_of(R"({"name": "log", "rate": "1/s", "replay": {"file": "a.csv"}})") ==
        "s.json: traffic[0].rate: not allowed with \"replay\" (the log gives the requests; pin "
        "them to instances with replay.fields.instance)");
  CHECK(error_of(R"({"name": "log", "replay": {}})") ==
        "s.json: traffic[0].replay.file: required field is missing");
  CHECK(error_of(R"({"name": "log", "replay": {"file": "a", "format": "apache"}})") ==
        "s.json: traffic[0].replay.format: expected one of \"csv\", \"jsonl\", \"nginx\", "
        "\"envoy\", \"haproxy\", got \"apache\"");
  CHECK(error_of(R"({"name": "log", "replay": {"file": "a", "format": "nginx",
                     "log_format": "$remote_addr $status"}})") ==
        "s.json: traffic[0].replay.log_format: it has no time variable ($msec, $time_local or "
        "$time_iso8601)");
  CHECK(error_of(R"({"name": "log", "replay": {"file": "a", "log_format": "combined"}})") ==
        "s.json: traffic[0].replay.log_format: only for \"format\": \"nginx\"");
  CHECK(error_of(R"({"name": "log", "replay": {"file": "a", "fields": {"key": "k"}}})")
            .rfind("s.json: traffic[0].replay.fields.key: unknown field (expected one of: user, "
                   "ip, endpoint, instance, verdict)",
                   0) == 0);
  CHECK(error_of(R"({"name": "log", "replay": {"file": "a", "from": "noon"}})")
            .rfind("s.json: traffic[0].replay.from: expected log time in seconds", 0) == 0);
  CHECK(error_of(R"({"name": "log", "replay": {"file": "a", "from": 20, "to": 10}})") ==
        "s.json: traffic[0].replay.to: expected \"to\" after \"from\"");
  CHECK(error_of(R"({"name": "log", "replay": {"file": "a", "speedup": 0}})") ==
        "s.json: traffic[0].replay.speedup: expected a number above 0 and at most 1000000, got 0");
  CHECK(error_of(R"({"name": "log", "replay": {"file": "a", "loop": true}})")
            .rfind("s.json: traffic[0].replay.loop: unknown field", 0) == 0);
  CHECK(error_of(R"({"name": "steady", "rate": "1/s", "instance": 10000})") ==
        "s.json: traffic[0].instance: expected an integer from 0 to 9999, got 10000");
}

TEST_CASE("replay-nginx.json: production's verdicts reproduced by its own limiter") {
  const Scenario scenario = load_scenario(RLSIM_SOURCE_DIR "/scenarios/replay-nginx.json");
  const RunResult result = rlsim::testing::run_text(scenario);
  const StrategyResult& in_memory = rlsim::testing::by_label(result, "in_memory");
  const StrategyResult& central = rlsim::testing::by_label(result, "redis_fixed_window");
  REQUIRE(in_memory.replay);
  const ReplayGroupResult& group = in_memory.replay->groups.at(0);
  // The sample's generator: 2873 lines, two cut short (lines 701 and 1701), 341 logged 429s.
  CHECK(group.lines == 2873);
  CHECK(group.requests == 2871);
  CHECK(group.bad_lines == 2);
  CHECK(group.bad_examples.at(0).line_number == 701);
  CHECK(group.bad_examples.at(1).line_number == 1701);
  const VerdictAgreement& same = *in_memory.replay->verdicts;
  CHECK(same.compared == 2871);
  CHECK(same.agree_denied == 341);
  CHECK(same.agree_admitted == 2871 - 341);
  // A central counter denies everything production denied, and what production admitted beyond
  // the limit: the excess the oracle measures on production's own decisions.
  const VerdictAgreement& other = *central.replay->verdicts;
  CHECK(other.logged_denied_but_admitted == 0);
  CHECK(other.logged_admitted_but_denied == in_memory.totals.limits.at(0).excess);
}

}  // namespace rlsim_test_load_replay
