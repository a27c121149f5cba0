// The terminal table's lines for the Redis faults and resilience metrics (report/fault_report.cpp):
// every metric issue 4 asks for in "the JSON report and the terminal table" is printed, with the
// figures of small hand-computed runs (one user at 10/s, arrivals every 100 ms, 1 ms round trip).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "report/report.h"
#include "report/result_json.h"
#include "test_util.h"

namespace rlsim_test_fault_report {

using namespace rlsim;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

std::string scenario_text(const std::string& faults, const std::string& strategies) {
  return fmt::format(
      R"({{"name": "t", "duration": "4s",
          "limits": [{{"name": "per_user", "key": "user", "limit": 1000, "window": "1m"}}],
          "instances": {{"count": 1}},
          "traffic": [{{"name": "u", "users": 1, "rate": "10/s", "arrival": "constant"}}],
          "redis": {{"rtt": "1ms", "service_time": "0us", "timeout": "50ms"}},
          "faults": [{}],
          "strategies": [{}]}})",
      faults, strategies);
}

// The lines under the table for `label` (each "label: ..." line, in order), in full.
std::string lines_of(const std::string& table, const std::string& label) {
  std::string out;
  std::size_t at = 0;
  while (at < table.size()) {
    const std::size_t end = std::min(table.find('\n', at), table.size());
    const std::string line = table.substr(at, end - at);
    if (line.rfind(label + ": ", 0) == 0) out += line + "\n";
    at = end + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("fault table: errors by kind, waits for a full timeout, ops/s, commands, hot keys") {
  const Scenario s =
      parse_scenario(scenario_text(R"({"type": "redis_down", "mode": "blackhole", "at": "1s",
                                       "for": "1s"})",
                                   R"({"name": "redis_fixed_window", "label": "closed",
                                       "on_error": "fail_closed"})"),
                     "t.json");
  const std::string lines = lines_of(detail_notes(rlsim::testing::run_text(s)), "closed");
  INFO(lines);
  // 40 calls, the 10 of [1 s, 2 s) lost in the black hole: each waits the 50 ms timeout, so the
  // rate check's p99 is 50 ms, past the lesson's 5 ms alert.
  CHECK_THAT(lines,
             Contains("rate-check p50/p99 1000/50000 us (ALERT: p99 above the lesson's 5 ms)"));
  CHECK_THAT(lines,
             Contains("errors: timeouts 10, refused 0, lost 10, error replies 0; pool waits 0"));
  CHECK_THAT(lines, Contains("closed: requests that waited a full Redis timeout (50 ms): 10\n"));
  // Commands by type as INFO commandstats counts them: the lost calls never ran.
  CHECK_THAT(lines, Contains("commands: INCR 30, EXPIRE 1; hot keys: rl:user:0:29167200 (31 ops)"));
  // 10 commands a second but nothing during the outage's second (and one EXPIRE in the first).
  CHECK_THAT(lines, Contains("redis ops/s \u2588\u2581\u2587\u2587 (peak 11, 1 s buckets)"));
  CHECK_THAT(lines, Contains("on_error fail_closed: fallback decisions 10 (25.00%), denied by the "
                             "policy 10\n"));
  CHECK_THAT(lines, Contains("redis_down at 1s for 1s: during: allowed 0/10, excess 0, false "
                             "denials 10, waited a full timeout 10; next window: excess 0, false "
                             "denials 0; back within the limit 0.00s after"));
}

TEST_CASE("fault table: the breaker's transitions and its timeline") {
  // As in test_faults: opens at 1.15 s, half-open at 1.6 s, re-opens at 1.65 s, half-open at
  // 2.1 s, closed by the probe at 2.101 s.
  const Scenario s = parse_scenario(
      scenario_text(R"({"type": "redis_down", "mode": "blackhole", "at": "1s", "for": "1s"})",
                    R"({"name": "redis_fixed_window", "label": "cb", "on_error": "fail_open",
          "breaker": {"failures": 2, "window": "10s", "cooldown": "450ms", "probes": 1}})"),
      "t.json");
  const std::string lines = lines_of(detail_notes(rlsim::testing::run_text(s)), "cb");
  INFO(lines);
  CHECK_THAT(lines, Contains("fallback decisions 11 (27.50%), denied by the policy 0; breaker "
                             "transitions 5 (opened 2x), short-circuited 8, instance-seconds "
                             "closed/open/half-open 3.0/0.9/0.1"));
  // 40 slices of 100 ms: the breaker is not closed from 1.15 s to 2.101 s (slices 11 to 21).
  std::string spark;
  for (int i = 0; i < 40; ++i) spark += i >= 11 && i <= 21 ? "\u2588" : "\u2581";
  CHECK_THAT(lines, Contains("cb: breaker timeline: instances not closed " + spark +
                             " (peak 1); first transition 1.15s closed->open, last 2.10s "
                             "half_open->closed\n"));
  CHECK_THAT(lines, Contains("cb: requests that waited a full Redis timeout (50 ms): 3\n"));
}

TEST_CASE("fault table: the 5 ms alert flags only a rate-check p99 above 5 ms") {
  const auto table_for = [](const std::string& added) {
    const Scenario s = parse_scenario(
        scenario_text(
            fmt::format(R"({{"type": "redis_latency", "at": "0s", "for": "4s", "added": "{}"}})",
                        added),
            R"("redis_fixed_window")"),
        "t.json");
    return detail_notes(rlsim::testing::run_text(s));
  };
  const std::string at_limit = table_for("4ms");  // 1 ms + 4 ms = 5 ms: not above
  CHECK_THAT(at_limit, Contains("rate-check p50/p99 5000/5000 us, errors"));
  const std::string above = table_for("4100us");
  CHECK_THAT(above,
             Contains("rate-check p50/p99 5100/5100 us (ALERT: p99 above the lesson's 5 ms)"));
}

TEST_CASE("fault table: a hot key that may be counted high says what is certain") {
  // 40 users at 10/s each, one key each: more keys than the 16 counters, so keys take over
  // counters and their counts overstate; none is hot, and the table says so.
  json j = json::parse(scenario_text("", R"("redis_fixed_window")"));
  j["traffic"][0]["users"] = 40;
  const Scenario s = parse_scenario(j.dump(), "t.json");
  const RunResult result = rlsim::testing::run_text(s);
  const auto extra =
      nlohmann::json::parse(redis_side_json(result.strategies[0].redis_side.value()).dump());
  const auto& top = extra["redis_node"]["hot_keys"][0];
  REQUIRE(top["ops_min"].get<int>() < top["ops"].get<int>());
  CHECK_THAT(
      detail_notes(result),
      Contains(fmt::format("hot keys: {} ({} ops, at least {})", top["key"].get<std::string>(),
                           top["ops"].get<int>(), top["ops_min"].get<int>())));
}

}  // namespace rlsim_test_fault_report
