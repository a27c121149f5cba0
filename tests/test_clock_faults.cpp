// Clock faults as entries of the `faults` list (and the deprecated `clock_faults` alias), NTP slew
// against hand-computed readings, Redis faults on one region's Redis, and the headline numbers of
// scenarios/region-outage.json (docs/clocks.md, docs/faults.md, docs/regions.md).
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/faults.h"
#include "report/report.h"
#include "report/result_json.h"
#include "scenario/load.h"
#include "test_util.h"
#include "world/clock.h"

namespace rlsim_test_clock_faults {

using namespace rlsim;
using rlsim::testing::by_label;
using rlsim::testing::run_text;

namespace {

const std::string kScenarios = std::string(RLSIM_SOURCE_DIR) + "/scenarios/";

// A two-instance scenario with `faults` (JSON array text) and `instances.clock` (object text).
std::string scenario_with(const std::string& faults, const std::string& clock = "",
                          const std::string& extra = "") {
  return R"({"name": "t", "duration": "2m", "limits": [{"name": "l", "limit": 10, "window": "1s"}],
    "instances": {"count": 2)" +
         (clock.empty() ? "" : ", \"clock\": " + clock) + R"(},
    "traffic": [{"name": "u", "users": 1, "rate": "1/s"}], "strategies": ["redis_sliding_log"],
    "faults": )" +
         faults + extra + "}";
}

std::string error_of(const std::string& text) {
  try {
    parse_scenario(text, "t.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

// Two regions (eu home, us), two instances each, and `faults`.
std::string regions_with(const std::string& faults) {
  return R"({"name": "r", "duration": "1m", "limits": [{"name": "l", "limit": 10, "window": "1s"}],
    "instances": {"count": 4},
    "regions": {"list": [{"name": "eu", "instances": 2}, {"name": "us", "instances": 2}],
                "rtt": [["0ms", "80ms"], ["80ms", "0ms"]]},
    "traffic": [{"name": "u", "users": 1, "rate": "1/s"}], "strategies": ["region_local"],
    "faults": )" +
         faults + "}";
}

NtpSpec slew_ntp(DurationUs interval_us, double ppm) {
  NtpSpec ntp;
  ntp.interval_us = interval_us;
  ntp.max_error_us = kUsPerMs;
  ntp.mode = NtpMode::kSlew;
  ntp.max_slew_ppm = ppm;
  return ntp;
}

ClockFault change(TimeUs at_us, ClockFaultType type, DurationUs amount_us, double ppm = 0) {
  ClockFault f;
  f.at_us = at_us;
  f.type = type;
  f.amount_us = amount_us;
  f.drift_ppm = ppm;
  return f;
}

// Every microsecond of [from, to) and then every `step` up to `end`: the reading never decreases.
bool non_decreasing(const ClockModel& clock, TimeUs from_us, TimeUs to_us) {
  for (TimeUs t = from_us; t + 1 < to_us; ++t)
    if (clock.unix_us(t + 1) < clock.unix_us(t)) return false;
  return true;
}

}  // namespace

TEST_CASE("clock faults: entries of the faults list, in time order, with their report windows") {
  const Scenario s = parse_scenario(
      scenario_with(R"([{"type": "redis_latency", "at": "5s", "for": "1s", "added": "1ms"},
                        {"type": "clock_jump", "at": "30s", "instances": [1], "amount": "-4s"},
                        {"type": "clock_drift", "at": "10s", "instances": "all", "amount": 50},
                        {"type": "clock_offset", "at": "20s", "nodes": "all", "amount": "3ms"}])"),
      "t.json");
  REQUIRE(s.faults.size() == 4);
  CHECK(s.faults[1].type == FaultType::kClockJump);
  CHECK(std::string(to_string(s.faults[1].type)) == "clock_jump");
  CHECK(s.faults[1].at_us == 30 * kUsPerS);
  CHECK(s.faults[1].for_us == 90 * kUsPerS);  // a clock change lasts to the end of the run
  CHECK(s.faults[2].all_instances);
  CHECK_FALSE(s.faults[3].all_instances);
  const ClockSpec& clock = s.instances.clock;
  CHECK(clock.configured);
  REQUIRE(clock.faults.size() == 3);
  CHECK(clock.faults[0].type == ClockFaultType::kDrift);  // sorted by time
  CHECK(clock.faults[0].drift_ppm == 50);
  CHECK(clock.faults[1].redis);  // nodes: "all" is the Redis node's clock
  CHECK(clock.faults[1].amount_us == 3000);
  CHECK(clock.faults[2].instances == std::vector<std::uint32_t>{1});
  // The server's conditions ignore clock faults.
  const std::vector<const FaultSpec*> active{&s.faults[1], &s.faults[2]};
  const RedisConditions none = compose_conditions(active);
  CHECK(none.down == DownMode::kUp);
  CHECK(none.added_rtt_us == 0);
}

TEST_CASE("clock faults: mistakes name the path and what was expected") {
  CHECK_THAT(error_of(scenario_with(R"([{"type": "clock_warp", "at": "1s", "amount": "1s"}])")),
             Catch::Contains("t.json: faults[0].type: expected one of \"redis_down\"") &&
                 Catch::Contains("\"clock_offset\", \"clock_drift\", \"clock_jump\", got "
                                 "\"clock_warp\""));
  CHECK_THAT(error_of(scenario_with(
                 R"([{"type": "clock_jump", "at": "1m", "for": "2m", "amount": "1s"}])")),
             Catch::Contains("faults[0].for: expected a duration from 1us to 1m"));
  CHECK_THAT(error_of(scenario_with(R"([{"type": "clock_drift", "at": "1s", "amount": "5"}])")),
             Catch::Contains("faults[0].amount: expected a drift in parts per million"));
  CHECK_THAT(error_of(scenario_with(R"([{"type": "clock_jump", "at": "1s", "amount": 5}])")),
             Catch::Contains("faults[0].amount: expected a duration"));
  CHECK_THAT(error_of(scenario_with(
                 R"([{"type": "clock_jump", "at": "1s", "nodes": "x", "amount": "1s"}])")),
             Catch::Contains("faults[0].nodes: expected \"all\""));
  // A node index names a node of an embedded cluster (tests/test_clock_nodes.cpp).
  CHECK_THAT(error_of(scenario_with(
                 R"([{"type": "clock_jump", "at": "1s", "nodes": 2, "amount": "1s"}])")),
             Catch::Contains("faults[0].nodes: a node index needs \"redis.cluster\""));
  CHECK_THAT(error_of(scenario_with(R"([{"type": "clock_jump", "at": "1s", "nodes": "all",
                                          "instances": [0], "amount": "1s"}])")),
             Catch::Contains("faults[0].instances: a fault on the Redis node"));
  CHECK_THAT(error_of(scenario_with(R"([{"type": "clock_jump", "at": "1s", "amount": "1s",
                                          "instances": []}])")),
             Catch::Contains("faults[0].instances: expected \"all\" or a non-empty array"));
  CHECK_THAT(error_of(scenario_with(R"([{"type": "clock_jump", "at": "1s"}])")),
             Catch::Contains("faults[0].amount: required field is missing"));
  // The deprecated list keeps its own paths.
  CHECK_THAT(
      error_of(scenario_with(
          "[]", "", R"(, "clock_faults": [{"type": "clock_jump", "at": "9m", "amount": "1s"}])")),
      Catch::Contains("clock_faults[0].at: expected a duration from"));
}

TEST_CASE("clock faults: with `for` a change is undone at its end, by hand") {
  const Scenario s = parse_scenario(
      scenario_with(R"([{"type": "clock_jump", "at": "5s", "for": "20s", "amount": "2ms"},
                        {"type": "clock_drift", "at": "10s", "for": "10s", "amount": 100},
                        {"type": "clock_offset", "at": "30s", "for": "5s", "amount": "-5ms"}])"),
      "t.json");
  CHECK(s.faults[0].for_us == 20 * kUsPerS);  // the report's window is [at, at + for)
  CHECK(s.instances.clock.faults[2].for_us == 5 * kUsPerS);
  const ClockModel clock(0, s.instances.clock, 0);
  CHECK(clock.error_us(5 * kUsPerS - 1) == 0);
  CHECK(clock.error_us(5 * kUsPerS) == 2000);
  CHECK(clock.error_us(15 * kUsPerS) == 2500);  // + 100 ppm x 5 s
  CHECK(clock.error_us(20 * kUsPerS) == 3000);  // the drift ends: back to 0 ppm
  CHECK(clock.error_us(25 * kUsPerS - 1) == 3000);
  CHECK(clock.error_us(25 * kUsPerS) == 1000);   // the jump undone; what drifted stays
  CHECK(clock.error_us(30 * kUsPerS) == -5000);  // the offset: a step of -6 ms
  CHECK(clock.error_us(35 * kUsPerS) == 1000);   // undone: +6 ms
  CHECK(clock.monotonic_us(60 * kUsPerS) == 60 * kUsPerS + 1000);  // only the drift
  // A drift inside a drift: the inner one's end restores the rate before it (200 ppm).
  ClockSpec nested;
  ClockFault outer = change(0, ClockFaultType::kDrift, 0, 200);
  ClockFault inner = change(10 * kUsPerS, ClockFaultType::kDrift, 0, -100);
  inner.for_us = 10 * kUsPerS;
  nested.faults = {outer, inner};
  const ClockModel drifting(0, nested, 0);
  CHECK(drifting.error_us(20 * kUsPerS) == 2000 - 1000);
  CHECK(drifting.error_us(30 * kUsPerS) == 1000 + 2000);
}

TEST_CASE("clock faults: the deprecated clock_faults spelling gives a byte-identical report") {
  std::ifstream in(kScenarios + "vm-resume.json");
  nlohmann::ordered_json file = nlohmann::ordered_json::parse(in);
  REQUIRE(file.contains("faults"));
  REQUIRE(file["faults"][0]["type"] == "clock_jump");
  nlohmann::ordered_json old_spelling = file;
  old_spelling["clock_faults"] = old_spelling["faults"];
  old_spelling.erase("faults");
  const auto report_of = [](const nlohmann::ordered_json& text) {
    Scenario scenario = parse_scenario(text.dump(), "vm-resume.json");
    scenario.strategies.resize(2);  // sliding log: local and redis_time
    RunResult result = run_text(scenario);
    return report_json(result).dump();
  };
  const std::string with_faults = report_of(file);
  CHECK(with_faults == report_of(old_spelling));
  // The jump is in each strategy's fault list: from 65 s to the end of the 3 min run.
  const auto report = nlohmann::json::parse(with_faults);
  const auto& fault = report["strategies"][0]["faults"][0];
  CHECK(fault["type"] == "clock_jump");
  CHECK(fault["at_s"] == 65.0);
  CHECK(fault["for_s"] == 115.0);
  // vm-resume's headline: the local sliding log's excess all comes after the jump.
  CHECK(fault["during"]["excess"].get<std::int64_t>() ==
        report["strategies"][0]["excess"].get<std::int64_t>());
  CHECK(fault["during"]["excess"].get<std::int64_t>() >= 300);
  CHECK(report["strategies"][1]["faults"][0]["during"]["excess"] == 0);
}

TEST_CASE("ntp: mode, max_slew_ppm and step_threshold are read and checked") {
  const auto clock_of = [](const std::string& ntp) {
    return parse_scenario(scenario_with("[]", R"({"ntp": )" + ntp + "}"), "t.json")
        .instances.clock.ntp;
  };
  const NtpSpec step = clock_of(R"({"interval": "16s", "max_error": "2ms"})");
  CHECK(step.mode == NtpMode::kStep);  // the default: older scenarios keep their numbers
  const NtpSpec slew = clock_of(R"({"interval": "16s", "max_error": "2ms", "mode": "slew"})");
  CHECK(slew.mode == NtpMode::kSlew);
  CHECK(slew.max_slew_ppm == 500);
  CHECK(slew.step_threshold_us == 128 * kUsPerMs);
  const NtpSpec own = clock_of(R"({"interval": "16s", "max_error": "2ms", "mode": "slew",
                                   "max_slew_ppm": 100, "step_threshold": "1s"})");
  CHECK(own.max_slew_ppm == 100);
  CHECK(own.step_threshold_us == kUsPerS);

  const auto ntp_error = [](const std::string& ntp) {
    return error_of(scenario_with("[]", R"({"ntp": )" + ntp + "}"));
  };
  CHECK_THAT(ntp_error(R"({"interval": "16s", "max_error": "2ms", "mode": "smear"})"),
             Catch::Contains("instances.clock.ntp.mode: expected one of \"step\", \"slew\", got "
                             "\"smear\""));
  CHECK_THAT(ntp_error(R"({"interval": "16s", "max_error": "2ms", "max_slew_ppm": 500})"),
             Catch::Contains("instances.clock.ntp.max_slew_ppm: only with \"mode\": \"slew\""));
  CHECK_THAT(
      ntp_error(R"({"interval": "16s", "max_error": "2ms", "mode": "slew", "max_slew_ppm": 0})"),
      Catch::Contains("instances.clock.ntp.max_slew_ppm: expected a rate in parts per million, a "
                      "number from 1 to 100000, got 0"));
  CHECK_THAT(ntp_error(R"({"interval": "16s", "max_error": "2ms", "mode": "slew",
                           "step_threshold": "-1s"})"),
             Catch::Contains("instances.clock.ntp.step_threshold: expected a duration"));
}

TEST_CASE("ntp slew: hand-computed readings, the bound, and a reading that never steps back") {
  // 100 ppm of drift from 0, a +4 ms jump at 5 s; NTP every 10 s, max_error 1 ms, slew 500 ppm.
  ClockSpec spec;
  spec.ntp = slew_ntp(10 * kUsPerS, 500);
  spec.faults = {change(0, ClockFaultType::kDrift, 0, 100),
                 change(5 * kUsPerS, ClockFaultType::kJump, 4 * kUsPerMs)};
  const ClockModel clock(0, spec, 0);
  // Before the first sync: drift only, then the jump (500 us of drift at 5 s, + 4 ms).
  CHECK(clock.error_us(5 * kUsPerS - 1) == 499);
  CHECK(clock.error_us(5 * kUsPerS) == 4500);
  // Sync at 10 s: error 5000 > 1 ms, within the 128 ms step threshold: slew -5000 us at 500 ppm
  // (0.5 ms per second) while the drift adds 0.1 ms per second.
  CHECK(clock.error_us(10 * kUsPerS) == 5000);
  CHECK(clock.error_us(12 * kUsPerS) == 4500 + 700 - 1000);  // 4200
  CHECK(clock.error_us(20 * kUsPerS - 1) == 1000);  // 4500 - 5000 + floor(1499.9999 - 4999.9995)
  CHECK(clock.error_us(20 * kUsPerS) == 1000);      // the full 5000 slewed
  // Sync at 20 s: 1000 is within the bound, nothing more. Sync at 30 s: 2000, slew -2000 (4 s).
  CHECK(clock.error_us(30 * kUsPerS) == 2000);
  CHECK(clock.error_us(34 * kUsPerS) == 4500 - 5000 + (2900 - 2000));  // 400
  CHECK(clock.error_us(40 * kUsPerS - 1) == 999);
  CHECK(clock.error_us(40 * kUsPerS) == 1000);
  // From then on the error stays within max_error + drift x interval (1 ms + 1 ms).
  for (TimeUs t = 20 * kUsPerS; t < 300 * kUsPerS; t += 250 * kUsPerMs)
    CHECK(std::abs(clock.error_us(t)) <= 2000);
  // Under the slew the reading never goes backwards: every microsecond around the syncs, where
  // the carried correction is rounded.
  CHECK(non_decreasing(clock, 10 * kUsPerS - 2000, 10 * kUsPerS + 2000));
  CHECK(non_decreasing(clock, 12 * kUsPerS, 12 * kUsPerS + 50'000));
  CHECK(non_decreasing(clock, 20 * kUsPerS - 2000, 20 * kUsPerS + 2000));
  CHECK(non_decreasing(clock, 34 * kUsPerS - 2000, 34 * kUsPerS + 2000));
  bool monotonic = true;
  for (TimeUs t = 5 * kUsPerS; t < 120 * kUsPerS; t += 997)
    monotonic = monotonic && clock.unix_us(t + 997) >= clock.unix_us(t);
  CHECK(monotonic);
  // The same clock in step mode steps back to the bound at the sync instead.
  spec.ntp.mode = NtpMode::kStep;
  const ClockModel stepped(0, spec, 0);
  CHECK(stepped.error_us(10 * kUsPerS) == 1000);
  CHECK(stepped.unix_us(10 * kUsPerS) < stepped.unix_us(10 * kUsPerS - 1));
}

TEST_CASE("ntp slew: a clock behind is sped up; the carried slew is rounded up at each sync") {
  // A -3 ms jump at 0.5 s, no drift; NTP every 1.5 s slewing at 333 ppm: 499.5 us per interval.
  ClockSpec spec;
  spec.ntp = slew_ntp(1500 * kUsPerMs, 333);
  spec.faults = {change(500 * kUsPerMs, ClockFaultType::kJump, -3 * kUsPerMs)};
  const ClockModel clock(0, spec, 0);
  CHECK(clock.error_us(1500 * kUsPerMs) == -3000);
  CHECK(clock.error_us(3000 * kUsPerMs - 1) == -3000 + 499);  // floor(499.4997)
  CHECK(clock.error_us(3000 * kUsPerMs) == -3000 + 500);      // ceil(499.5) carried
  CHECK(non_decreasing(clock, 3000 * kUsPerMs - 100, 3000 * kUsPerMs + 100));
  // 500 carried at each sync: -2000 at 4.5 s, -1500 at 6 s (still beyond the bound: slew on),
  // -1000 at 7.5 s (within it: left alone from then on, there is no drift).
  CHECK(clock.error_us(4500 * kUsPerMs) == -2000);
  CHECK(clock.error_us(6 * kUsPerS) == -1500);
  CHECK(clock.error_us(7500 * kUsPerMs) == -1000);
  CHECK(clock.error_us(60 * kUsPerS) == -1000);
  // Beyond step_threshold the sync steps to 0 at once, as ntpd does above 128 ms.
  spec.faults = {change(500 * kUsPerMs, ClockFaultType::kJump, 5 * kUsPerS)};
  const ClockModel far(0, spec, 0);
  CHECK(far.error_us(1500 * kUsPerMs - 1) == 5 * kUsPerS);
  CHECK(far.error_us(1500 * kUsPerMs) == 0);
  spec.ntp.step_threshold_us = kUsPerHour;  // never step: 5 s at 333 ppm takes hours
  const ClockModel slewing(0, spec, 0);
  // Syncs 2 to 100 each carry ceil(-499.5) = -499: 5 s - 99 x 499 at 150 s.
  CHECK(slewing.error_us(150 * kUsPerS) == 5 * kUsPerS - 99 * 499);
}

TEST_CASE("region faults: a Redis fault on one region's Redis, checked against the regions") {
  const Scenario s =
      parse_scenario(regions_with(R"([{"type": "redis_down", "at": "10s", "for": "5s",
                                        "region": "us"},
                                       {"type": "redis_slow", "at": "10s", "for": "5s",
                                        "multiplier": 4}])"),
                     "r.json");
  REQUIRE(s.faults.size() == 2);
  CHECK(s.faults[0].region == 1);
  CHECK(s.faults[1].region == -1);  // no region: every region's Redis
  const std::vector<const FaultSpec*> active{&s.faults[0], &s.faults[1]};
  CHECK(compose_conditions(active, 0).down == DownMode::kUp);
  CHECK(compose_conditions(active, 1).down == DownMode::kRefuse);
  // The slow-down reaches both regions' Redis, as the run sets it (FaultSchedule::start).
  for (const std::int32_t region : {0, 1}) {
    const auto periods = slow_periods(
        s.faults, [region](const FaultSpec& f) { return f.region < 0 || f.region == region; });
    REQUIRE(periods.size() == 1);
    CHECK(periods[0].from_us == 10 * kUsPerS);
    CHECK(periods[0].until_us == 15 * kUsPerS);
    CHECK(periods[0].multiplier == 4.0);
  }

  CHECK_THAT(error_of(regions_with(
                 R"([{"type": "redis_down", "at": "1s", "for": "1s", "region": "ap"}])")),
             Catch::Contains("t.json: faults[0].region: expected one of the regions (\"eu\", "
                             "\"us\"), got \"ap\""));
  CHECK_THAT(error_of(regions_with(
                 R"([{"type": "partition", "at": "1s", "for": "1s", "instances": [0]}])")),
             Catch::Contains("faults[0].type: \"partition\" is not supported together with "
                             "\"regions\" yet"));
  CHECK_THAT(error_of(scenario_with(
                 R"([{"type": "redis_down", "at": "1s", "for": "1s", "region": "eu"}])")),
             Catch::Contains("t.json: faults[0].region: needs \"regions\""));
  CHECK_THAT(
      error_of(regions_with(R"([{"type": "redis_down", "at": "1s", "for": "1s", "region": 3}])")),
      Catch::Contains("faults[0].region: expected a string"));
  // Clock faults are allowed with regions (instances by id).
  CHECK_NOTHROW(parse_scenario(
      regions_with(R"([{"type": "clock_jump", "at": "1s", "instances": [3], "amount": "1s"}])"),
      "r.json"));
}

TEST_CASE("region faults: a bad one exits 2 from the command line with the message") {
  const std::string path =
      (std::filesystem::temp_directory_path() / "rlsim-test-region-fault.json").string();
  {
    std::ofstream out(path);
    out << regions_with(R"([{"type": "redis_down", "at": "1s", "for": "1s", "region": "mars"}])");
  }
  FILE* pipe = ::popen((std::string(RLSIM_BINARY) + " run '" + path + "' 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  const int status = ::pclose(pipe);
  std::filesystem::remove(path);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  CHECK_THAT(output, Catch::Contains("faults[0].region: expected one of the regions"));
}

TEST_CASE("region-outage.json: eu's Redis down; region_local vs global_redis vs crdt_counter") {
  Scenario s = load_scenario(kScenarios + "region-outage.json");
  const RunResult result = run_text(s);
  const auto during = [&](const std::string& label, const char* field) {
    return nlohmann::json::parse(redis_side_json(by_label(result, label).redis_side.value())
                                     .dump())["faults"][0]["during"][field]
        .get<std::int64_t>();
  };
  // region_local: only eu users lose their counter (10 users x 200 over the limit).
  CHECK(during("local_fail_open", "excess") >= 1800);
  CHECK(during("local_fail_open", "excess") <= 2200);
  CHECK(by_label(result, "local_fail_open").regions.value().at(1).overshoot <= 1.0);
  CHECK(during("local_fail_closed", "false_denials") >= 900);
  CHECK(during("local_fallback", "excess") <= 50);
  CHECK(during("local_fallback", "allowed") >= 1900);
  // global_redis: the home region's outage is every region's.
  CHECK(during("global_fail_open", "excess") >= 2 * during("local_fail_open", "excess") - 200);
  CHECK(during("global_fail_closed", "allowed") == 0);
  CHECK(during("global_fail_closed", "false_denials") >= 1800);
  // crdt_counter has no Redis to lose.
  CHECK(during("crdt_1s", "excess") <= 50);
  CHECK(by_label(result, "crdt_1s").totals.errors == 0);

  // The same outage on every region's Redis (no "region"): region_local loses us's counter too.
  s.faults[0].region = -1;
  s.strategies.resize(1);
  const RunResult everywhere = run_text(s);
  const auto excess_everywhere =
      nlohmann::json::parse(redis_side_json(everywhere.strategies[0].redis_side.value())
                                .dump())["faults"][0]["during"]["excess"]
          .get<std::int64_t>();
  CHECK(excess_everywhere >= 2 * during("local_fail_open", "excess") - 200);
}

TEST_CASE("ntp slew in a run: a 100 ms jump slewed at 500 ppm stays off far longer than stepped") {
  // vm-resume.json with a 100 ms jump (below the 128 ms step threshold): step mode puts it back
  // at the next sync (90 s); slewing 100 ms at 500 ppm takes 200 s, past the end of the run.
  std::ifstream in(kScenarios + "vm-resume.json");
  nlohmann::json file = nlohmann::json::parse(in);
  file["faults"][0]["amount"] = "100ms";
  file["strategies"] = nlohmann::json::array({file["strategies"][0]});
  file["expect"] = nlohmann::json::array();
  const auto run_with = [&](const std::string& mode) {
    file["instances"]["clock"]["ntp"]["mode"] = mode;
    const Scenario scenario = parse_scenario(file.dump(), "vm-resume.json");
    return run_text(scenario).strategies.at(0);
  };
  const StrategyResult stepped = run_with("step");
  const StrategyResult slewed = run_with("slew");
  // 100 ms ahead on one of three instances: its log forgets admissions 100 ms early, which the
  // 10 s window barely notices (no excess either way), but it also counts the others' recent
  // admissions as still in its window for longer: false denials while the clock is off.
  CHECK(stepped.totals.limits[0].excess == 0);
  CHECK(slewed.totals.limits[0].excess == 0);
  CHECK(slewed.totals.limits[0].false_denials > 2 * stepped.totals.limits[0].false_denials);
  // The clock series (one point every 1.8 s): at the end of the run, instance 1 is back within
  // 1 ms when stepped, still 100 ms - 500 ppm x 90 s = 55 ms ahead when slewed.
  const auto last_error = [](const StrategyResult& result) {
    return result.clock.value().instances.at(1).errors.error_us.back();
  };
  CHECK(std::abs(last_error(stepped)) <= 1000);
  CHECK(last_error(slewed) == 100'000 - 45'000);
}

}  // namespace rlsim_test_clock_faults
