// rlsim check's parts on hand-made reports: metric path lookup, expectation evaluation (bounds,
// tolerance, comparisons), baseline comparison and its tolerances, the first divergence of two
// runs, and the JUnit XML (well-formed, escaped, deterministic) and JSON renderings.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/baseline.h"
#include "app/check.h"
#include "engine/commands.h"
#include "engine/expect.h"
#include "scenario/load.h"

namespace rlsim_test_check {

using namespace rlsim;
using Catch::Contains;
using Catch::StartsWith;
using nlohmann::ordered_json;

namespace {

// Two strategies as report_json renders them (only the fields the tests need).
ordered_json sample_report() {
  return ordered_json::parse(R"({
    "scenario": "s", "seed": 1, "duration_s": 60,
    "strategies": [
      {"label": "a", "name": "in_memory", "offered": 1000, "allowed": 500, "errors": 0,
       "overshoot": 5.0, "excess": 400, "redis_commands_per_request": 0.0,
       "limits": [{"name": "per_user", "limit": 100, "overshoot": 5.0, "excess": 400},
                  {"name": "per_ip", "limit": 1000, "overshoot": 0.5, "excess": 0}],
       "latency_us": {"p50": 0, "p99": 0, "max": 0},
       "strategy_metrics": {},
       "series": {"limit": "per_user", "windows": [{"admitted": 500, "max_per_key": 500}]}},
      {"label": "b", "name": "redis_fixed_window", "offered": 1000, "allowed": 100, "errors": 0,
       "overshoot": 1.0, "excess": 0, "redis_commands_per_request": 1.0,
       "limits": [{"name": "per_user", "limit": 100, "overshoot": 1.0, "excess": 0},
                  {"name": "per_ip", "limit": 1000, "overshoot": 0.1, "excess": 0}],
       "latency_us": {"p50": 500, "p99": 2000, "max": 5000},
       "strategy_metrics": {"flag": true},
       "series": {"limit": "per_user", "windows": [{"admitted": 100, "max_per_key": 100}]}}
    ]})");
}

const ordered_json& strategy_a() {
  static const ordered_json report = sample_report();
  return report["strategies"][0];
}

// A scenario whose strategies are labelled a and b, with the given expect list.
Scenario scenario_with(const std::string& expect) {
  return parse_scenario(R"({"name": "s", "duration": "1m",
    "limits": [{"name": "per_user", "limit": 100, "window": "1m"},
               {"name": "per_ip", "key": "ip", "limit": 1000, "window": "1m"}],
    "instances": {"count": 2}, "traffic": [{"name": "g", "rate": "10/s"}],
    "strategies": [{"name": "in_memory", "label": "a"}, {"name": "redis_fixed_window", "label": "b"}],
    "expect": )" + expect + "}",
                        "s.json");
}

ExpectationOutcome evaluate_one(const std::string& expectation) {
  const Scenario scenario = scenario_with("[" + expectation + "]");
  const ordered_json report = sample_report();
  check_metric_paths(scenario, report, "s.json");
  return evaluate(scenario.expectations[0], report);
}

using Status = ExpectationOutcome::Status;

}  // namespace

// ---------------------------------------------------------------------------------------------
// Metric paths
// ---------------------------------------------------------------------------------------------

TEST_CASE("metric paths find fields, nested fields, array entries by index and by name") {
  std::string error;
  CHECK(lookup_metric(strategy_a(), "overshoot", error) == 5.0);
  CHECK(lookup_metric(strategy_a(), "allowed", error) == 500.0);
  CHECK(lookup_metric(strategy_a(), "latency_us.p99", error) == 0.0);
  CHECK(lookup_metric(strategy_a(), "limits[0].excess", error) == 400.0);
  CHECK(lookup_metric(strategy_a(), "limits[1].overshoot", error) == 0.5);
  CHECK(lookup_metric(strategy_a(), "limits.per_ip.overshoot", error) == 0.5);
  CHECK(lookup_metric(strategy_a(), "limits.per_user.excess", error) == 400.0);
  CHECK(lookup_metric(strategy_a(), "series.windows[0].max_per_key", error) == 500.0);
  CHECK(error.empty());
}

TEST_CASE("a metric path that does not resolve says where it stopped") {
  const auto error_for = [](const std::string& path) {
    std::string error;
    CHECK(!lookup_metric(strategy_a(), path, error));
    return error;
  };
  CHECK_THAT(error_for("overshot"),
             StartsWith("the strategy's report has no field \"overshot\" (it has: label, name, "
                        "offered, allowed"));
  CHECK(error_for("limits[2].excess") == "limits has 2 entries, no [2]");
  CHECK(error_for("limits.per_endpoint.excess") ==
        "limits has no entry named \"per_endpoint\" (names: per_user, per_ip)");
  CHECK(error_for("latency_us") == "latency_us is an object, not a number");
  CHECK(error_for("limits") == "limits is an array of 2 entries, not a number");
  CHECK(error_for("name") == "name is a string, not a number");
  CHECK(error_for("overshoot.x") == "overshoot is a number, it has no field \"x\"");
  CHECK(error_for("latency_us[0]") == "latency_us is an object, not an array");
  CHECK(error_for("limits.per_user.nope") ==
        "limits.per_user has no field \"nope\" (it has: name, limit, overshoot, excess)");
  CHECK(error_for("a..b") == "\"a..b\" is not a metric path");
}

TEST_CASE("an unknown metric path is an input error naming the expectation's path") {
  const Scenario scenario = scenario_with(R"([
    {"strategy": "a", "metric": "overshoot", "min": 1},
    {"metric": "limits.per_usr.excess", "less": ["b", "a"]}])");
  REQUIRE_THROWS_AS(check_metric_paths(scenario, sample_report(), "s.json"), ScenarioError);
  REQUIRE_THROWS_WITH(check_metric_paths(scenario, sample_report(), "s.json"),
                      "s.json: expect[1].metric: \"limits.per_usr.excess\" is not a metric in "
                      "the report of strategy \"b\": limits has no entry named \"per_usr\" "
                      "(names: per_user, per_ip)");
  // A strategy missing from the report (not selected) is not checked.
  ordered_json only_a = sample_report();
  only_a["strategies"].erase(1);
  const Scenario only_b = scenario_with(R"([{"strategy": "b", "metric": "nope", "max": 1}])");
  CHECK_NOTHROW(check_metric_paths(only_b, only_a, "s.json"));
}

// ---------------------------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------------------------

TEST_CASE("min and max bounds are inclusive") {
  // a: overshoot 5, b: overshoot 1.
  CHECK(evaluate_one(R"({"strategy": "a", "metric": "overshoot", "min": 5})").status ==
        Status::kPassed);
  CHECK(evaluate_one(R"({"strategy": "a", "metric": "overshoot", "max": 5})").status ==
        Status::kPassed);
  CHECK(
      evaluate_one(R"({"strategy": "a", "metric": "overshoot", "min": 4.9, "max": 5.1})").status ==
      Status::kPassed);
  const auto below = evaluate_one(R"({"strategy": "a", "metric": "overshoot", "min": 5.0001})");
  CHECK(below.status == Status::kFailed);
  CHECK(below.message == "a overshoot is 5, expected >= 5.0001");
  CHECK(below.values == ordered_json{{"a", 5.0}});
  const auto above = evaluate_one(R"({"strategy": "b", "metric": "latency_us.p99", "max": 1999})");
  CHECK(above.status == Status::kFailed);
  CHECK(above.message == "b latency_us.p99 is 2000, expected <= 1999");
  const auto window = evaluate_one(R"({"strategy": "a", "metric": "excess", "min": 1, "max": 10})");
  CHECK(window.status == Status::kFailed);
  CHECK(window.message == "a excess is 400, expected <= 10");
}

TEST_CASE("equals compares within the tolerance, exactly by default") {
  CHECK(evaluate_one(R"({"strategy": "b", "metric": "excess", "equals": 0})").status ==
        Status::kPassed);
  CHECK(evaluate_one(R"({"strategy": "b", "metric": "overshoot", "equals": 1.0})").status ==
        Status::kPassed);
  const auto off = evaluate_one(R"({"strategy": "a", "metric": "allowed", "equals": 499})");
  CHECK(off.status == Status::kFailed);
  CHECK(off.message == "a allowed is 500, expected == 499");
  CHECK(evaluate_one(R"({"strategy": "a", "metric": "allowed", "equals": 499, "tolerance": 1})")
            .status == Status::kPassed);
  CHECK(evaluate_one(R"({"strategy": "a", "metric": "allowed", "equals": 502, "tolerance": 2})")
            .status == Status::kPassed);
  const auto outside =
      evaluate_one(R"({"strategy": "a", "metric": "allowed", "equals": 510, "tolerance": 9.5})");
  CHECK(outside.status == Status::kFailed);
  CHECK(outside.message == "a allowed is 500, expected == 510 +- 9.5");
}

TEST_CASE("comparisons between strategies: less is strict, less_or_equal is not") {
  // excess: a 400, b 0; per_user limit: 100 in both.
  CHECK(evaluate_one(R"({"metric": "excess", "less": ["b", "a"]})").status == Status::kPassed);
  const auto reversed = evaluate_one(R"({"metric": "excess", "less": ["a", "b"]})");
  CHECK(reversed.status == Status::kFailed);
  CHECK(reversed.message == "a excess 400 is not < b excess 0");
  CHECK(reversed.values == ordered_json{{"a", 400.0}, {"b", 0.0}});
  const auto equal = evaluate_one(R"({"metric": "limits.per_user.limit", "less": ["a", "b"]})");
  CHECK(equal.status == Status::kFailed);
  CHECK(equal.message == "a limits.per_user.limit 100 is not < b limits.per_user.limit 100");
  CHECK(
      evaluate_one(R"({"metric": "limits.per_user.limit", "less_or_equal": ["a", "b"]})").status ==
      Status::kPassed);
  CHECK(evaluate_one(R"({"metric": "excess", "less_or_equal": ["a", "b"]})").status ==
        Status::kFailed);
}

TEST_CASE("an expectation naming a strategy that did not run is skipped") {
  const Scenario scenario = scenario_with(R"([{"metric": "excess", "less": ["b", "a"]},
                                              {"strategy": "a", "metric": "excess", "max": 1}])");
  ordered_json only_b = sample_report();
  only_b["strategies"].erase(0);
  const auto skipped = evaluate(scenario.expectations[0], only_b);
  CHECK(skipped.status == Status::kSkipped);
  CHECK(skipped.message == "strategy a was not run (see --strategy)");
  CHECK(evaluate(scenario.expectations[1], only_b).status == Status::kSkipped);
}

TEST_CASE("describe states each kind of expectation in one line") {
  const Scenario s = scenario_with(R"([
    {"strategy": "a", "metric": "overshoot", "min": 9.9},
    {"strategy": "b", "metric": "overshoot", "max": 1},
    {"strategy": "b", "metric": "latency_us.p99", "min": 100, "max": 3000},
    {"strategy": "b", "metric": "excess", "equals": 0},
    {"strategy": "b", "metric": "excess", "equals": 10, "tolerance": 0.5},
    {"metric": "excess", "less": ["b", "a"]},
    {"metric": "excess", "less_or_equal": ["b", "a"]}])");
  CHECK(describe(s.expectations[0]) == "a overshoot >= 9.9");
  CHECK(describe(s.expectations[1]) == "b overshoot <= 1");
  CHECK(describe(s.expectations[2]) == "100 <= b latency_us.p99 <= 3000");
  CHECK(describe(s.expectations[3]) == "b excess == 0");
  CHECK(describe(s.expectations[4]) == "b excess == 10 +- 0.5");
  CHECK(describe(s.expectations[5]) == "excess: b < a");
  CHECK(describe(s.expectations[6]) == "excess: b <= a");
}

// ---------------------------------------------------------------------------------------------
// Baselines
// ---------------------------------------------------------------------------------------------

TEST_CASE("default tolerances: latencies 5%, ratios 0.01, fractions 0.0001, counts 0.5%") {
  const auto check = [](const std::string& path, double absolute, double relative) {
    INFO(path);
    const Tolerance t = default_tolerance(path);
    CHECK(t.absolute == absolute);
    CHECK(t.relative == relative);
  };
  check("latency_us.p99", 0, 0.05);
  check("latency_us.max", 0, 0.05);
  check("strategy_metrics.wait_us", 0, 0.05);
  check("overshoot", 0.01, 0);
  check("rolling_overshoot", 0.01, 0);
  check("limits.per_user.overshoot", 0.01, 0);
  check("redis_commands_per_request", 0.01, 0);
  check("sliding_log_error.error_rate", 0.0001, 0);
  check("limits.per_user.sliding_log_error.error_rate", 0.0001, 0);
  check("allowed", 0, 0.005);
  check("staleness.mean", 0, 0.005);
  check("excess", 0, 0.005);
  check("limits.per_user.false_denials", 0, 0.005);
  CHECK(describe_tolerance({0, 0.05}) == "+-5%");
  CHECK(describe_tolerance({0.01, 0}) == "+-0.01");
  CHECK(describe_tolerance({0, 0.005}) == "+-0.5%");
}

TEST_CASE("a report identical to its baseline passes for every strategy") {
  const auto outcomes = compare_to_baseline(sample_report(), sample_report(), std::nullopt);
  REQUIRE(outcomes.size() == 2);
  CHECK(outcomes[0].label == "a");
  CHECK(outcomes[0].passed);
  CHECK(outcomes[0].changes.empty());
  // a's numeric leaves outside "series": offered, allowed, errors, overshoot, excess,
  // redis_commands_per_request, 2 x (limit, overshoot, excess), latency p50/p99/max = 15.
  CHECK(outcomes[0].summary == "15 metrics within tolerance");
  CHECK(outcomes[1].label == "b");
  CHECK(outcomes[1].passed);
}

TEST_CASE("changes beyond the tolerance are listed with old, new and the tolerance") {
  ordered_json changed = sample_report();
  auto& a = changed["strategies"][0];
  auto& b = changed["strategies"][1];
  a["allowed"] = 502.5;                         // 0.5% of 500 = 2.5: exactly allowed
  a["offered"] = 1006;                          // 0.5% of 1000 = 5: 6 is too much
  a["overshoot"] = 5.01;                        // +0.01: allowed
  a["limits"][0]["overshoot"] = 5.02;           // +0.02: too much
  b["latency_us"]["p99"] = 2100;                // 5% of 2000 = 100: allowed
  b["latency_us"]["max"] = 5251;                // 5% of 5000 = 250: too much
  b["excess"] = 1;                              // 0 -> 1: 0.5% of 0 is 0
  b["series"]["windows"][0]["admitted"] = 999;  // series are not compared
  b["new_metric"] = 7;                          // new fields are ignored
  const auto outcomes = compare_to_baseline(sample_report(), changed, std::nullopt);
  REQUIRE(outcomes.size() == 2);
  CHECK(!outcomes[0].passed);
  CHECK(outcomes[0].changes ==
        std::vector<std::string>{"offered: 1000 -> 1006 (tolerance +-0.5% = +-5)",
                                 "limits.per_user.overshoot: 5 -> 5.02 (tolerance +-0.01)"});
  CHECK(outcomes[0].summary == "2 of 15 metrics changed beyond tolerance");
  CHECK(!outcomes[1].passed);
  CHECK(outcomes[1].changes ==
        std::vector<std::string>{"excess: 0 -> 1 (tolerance +-0.5% = +-0)",
                                 "latency_us.max: 5000 -> 5251 (tolerance +-5% = +-250)"});
}

TEST_CASE("a metric or a name that the new report lost is a change") {
  ordered_json changed = sample_report();
  changed["strategies"][0].erase("excess");
  changed["strategies"][0]["name"] = "other";
  const auto outcomes = compare_to_baseline(sample_report(), changed, std::nullopt);
  REQUIRE(outcomes.size() == 2);
  REQUIRE(outcomes[0].changes.size() == 2);
  CHECK(outcomes[0].changes[0] == "name: \"in_memory\" -> \"other\"");
  CHECK_THAT(outcomes[0].changes[1],
             StartsWith("excess: 400 -> (not in this report: the strategy's report has no field "
                        "\"excess\""));
}

TEST_CASE("missing and extra strategies fail; --strategy limits the comparison") {
  ordered_json renamed = sample_report();
  renamed["strategies"][1]["label"] = "c";
  const auto outcomes = compare_to_baseline(sample_report(), renamed, std::nullopt);
  REQUIRE(outcomes.size() == 3);
  CHECK(outcomes[0].label == "a");
  CHECK(outcomes[0].passed);
  CHECK(outcomes[1].label == "b");
  CHECK(!outcomes[1].passed);
  CHECK(outcomes[1].summary == "in the baseline but not in this run");
  CHECK(outcomes[2].label == "c");
  CHECK(!outcomes[2].passed);
  CHECK(outcomes[2].summary == "in this run but not in the baseline (refresh the baseline)");

  ordered_json only_a = sample_report();
  only_a["strategies"].erase(1);
  const auto selected = compare_to_baseline(sample_report(), only_a, std::set<std::string>{"a"});
  REQUIRE(selected.size() == 1);
  CHECK(selected[0].label == "a");
  CHECK(selected[0].passed);
}

// ---------------------------------------------------------------------------------------------
// Determinism
// ---------------------------------------------------------------------------------------------

namespace {

StrategyResult with_checkpoints(std::vector<StrategyResult::DigestCheckpoint> checkpoints,
                                std::uint64_t digest) {
  StrategyResult result;
  result.label = "x";
  result.name = "in_memory";
  result.digest_checkpoints = std::move(checkpoints);
  result.decision_digest = digest;
  return result;
}

}  // namespace

TEST_CASE("the first divergence names the first checkpoint interval that differs") {
  const Scenario scenario = scenario_with("[]");
  const StrategyResult a = with_checkpoints(
      {{4096, 30'000'000, 11}, {8192, 61'200'000, 12}, {12288, 67'000'000, 13}}, 99);
  CHECK(first_divergence(scenario, a, a).empty());

  const StrategyResult b = with_checkpoints(
      {{4096, 30'000'000, 11}, {8192, 61'200'000, 12}, {12288, 67'000'000, 77}}, 98);
  CHECK(first_divergence(scenario, a, b) ==
        "the decisions first differ in decisions 8192..12287, virtual time 61.2 s .. 67.0 s");

  // Different times at the first checkpoint: both are named.
  const StrategyResult first = with_checkpoints({{4096, 29'000'000, 5}}, 98);
  CHECK(first_divergence(scenario, a, first) ==
        "the decisions first differ in decisions 0..4095, virtual time 0.0 s .. 30.0 s (run 1 "
        "reached it at 30.0 s, run 2 at 29.0 s)");

  // Every checkpoint equal, the final digest not: after the last checkpoint.
  const StrategyResult tail = with_checkpoints(
      {{4096, 30'000'000, 11}, {8192, 61'200'000, 12}, {12288, 67'000'000, 13}}, 100);
  CHECK_THAT(first_divergence(scenario, a, tail),
             StartsWith("the decisions first differ after decision 12288 (virtual time 67.0 s)"));

  // Same decisions, different report.
  StrategyResult report = a;
  report.redis_commands = 5;
  CHECK(first_divergence(scenario, a, report) ==
        "the same decisions, but the reports differ first at redis_commands (run 1: 0, run 2: 5)");
}

// ---------------------------------------------------------------------------------------------
// Renderings
// ---------------------------------------------------------------------------------------------

namespace {

// A small well-formedness checker for the XML that junit_xml writes: balanced, properly nested
// tags, quoted attributes, only the five predefined entities and numeric references, no raw '<'
// or '&' in text, no control characters but tab and newline. Returns "" or the first problem.
std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  std::size_t i = 0;
  // Text between tags or inside an attribute value.
  const auto check_text = [](const std::string& text) -> std::string {
    for (std::size_t k = 0; k < text.size(); ++k) {
      const auto c = static_cast<unsigned char>(text[k]);
      if (c < 0x20 && c != '\n' && c != '\t') return "control character";
      if (c == '<' || c == '>') return "raw angle bracket in text";
      // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are not XML 1.0 characters.
      if (c == 0xEF && k + 2 < text.size() && static_cast<unsigned char>(text[k + 1]) == 0xBF &&
          (static_cast<unsigned char>(text[k + 2]) & 0xFE) == 0xBE)
        return "noncharacter U+FFFE or U+FFFF";
      if (c == '&') {
        const auto semi = text.find(';', k);
        if (semi == std::string::npos) return "unterminated entity";
        const std::string entity = text.substr(k + 1, semi - k - 1);
        if (entity != "amp" && entity != "lt" && entity != "gt" && entity != "quot" &&
            entity != "apos" && !(entity.size() > 1 && entity[0] == '#'))
          return "unknown entity &" + entity + ";";
      }
    }
    return "";
  };
  if (xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0) != 0) return "no declaration";
  i = xml.find('\n') + 1;
  bool seen_root = false;
  while (i < xml.size()) {
    const auto lt = xml.find('<', i);
    if (lt == std::string::npos) {
      if (xml.find_first_not_of(" \n", i) != std::string::npos) return "text after the root";
      break;
    }
    if (open.empty() && xml.find_first_not_of(" \n", i) < lt) return "text outside the root";
    if (const auto problem = check_text(xml.substr(i, lt - i)); !problem.empty()) return problem;
    const auto gt = xml.find('>', lt);
    if (gt == std::string::npos) return "unterminated tag";
    std::string tag = xml.substr(lt + 1, gt - lt - 1);
    if (tag.empty()) return "empty tag";
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1))
        return "mismatched </" + tag.substr(1) + ">";
      open.pop_back();
    } else {
      const bool self_closing = tag.back() == '/';
      if (self_closing) tag.pop_back();
      const auto space = tag.find(' ');
      const std::string name = tag.substr(0, space);
      if (open.empty() && seen_root) return "second root element";
      seen_root = true;
      // Attributes: name="value" pairs, values free of '<' and raw quotes.
      std::size_t k = space == std::string::npos ? tag.size() : space;
      while (k < tag.size()) {
        while (k < tag.size() && tag[k] == ' ') ++k;
        if (k == tag.size()) break;
        const auto eq = tag.find("=\"", k);
        if (eq == std::string::npos) return "attribute without a quoted value in <" + name + ">";
        const auto close = tag.find('"', eq + 2);
        if (close == std::string::npos) return "unterminated attribute in <" + name + ">";
        const std::string value = tag.substr(eq + 2, close - eq - 2);
        if (const auto problem = check_text(value); !problem.empty()) return problem;
        if (value.find_first_of("\n\t") != std::string::npos)
          return "raw newline or tab in an attribute value";
        k = close + 1;
      }
      if (!self_closing) open.push_back(name);
    }
    i = gt + 1;
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  return "";
}

std::vector<CheckSuite> sample_suites() {
  CheckSuite suite;
  suite.file = "dir/a&b <x>.json";
  suite.scenario = "s";
  suite.seeds = {42, 43};
  const auto make_case = [](const char* name, std::uint64_t seed, CheckCase::Status status,
                            const char* message) {
    CheckCase c;
    c.name = name;
    c.kind = "expectation";
    c.seed = seed;
    c.status = status;
    c.message = message;
    return c;
  };
  const CheckCase passed =
      make_case("expect[0] a overshoot >= 9.9", 42, CheckCase::Status::kPassed, "");
  CheckCase failed =
      make_case("expect[1] b overshoot <= 1", 43, CheckCase::Status::kFailed,
                "b overshoot is 1.5, expected <= 1 \"quoted\" & 'apostrophe' \x01 \xEF\xBF\xBE");
  failed.details = {"why: <central> counter", "second\tline"};
  failed.reproduce = "rlsim check 'dir/a&b <x>.json' --seed 43 --strategy b";
  const CheckCase skipped = make_case("expect[2] excess: b < c", 42, CheckCase::Status::kSkipped,
                                      "strategy c was not run (see --strategy)");
  suite.cases = {passed, failed, skipped};
  CheckSuite empty;
  empty.file = "e.json";
  empty.scenario = "e\xff";  // invalid UTF-8 must not reach the XML
  empty.seeds = {1};
  return {suite, empty};
}

}  // namespace

TEST_CASE("the well-formedness checker itself rejects broken XML") {
  const std::string head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  CHECK(xml_problem(head + "<a><b/></a>\n").empty());
  CHECK(!xml_problem(head + "<a><b></a>\n").empty());
  CHECK(!xml_problem(head + "<a>x < y</a>\n").empty());
  CHECK(!xml_problem(head + "<a>x & y</a>\n").empty());
  CHECK(!xml_problem(head + "<a>&nbsp;</a>\n").empty());
  CHECK(!xml_problem(head + "<a v=x/>\n").empty());
  CHECK(!xml_problem(head + "<a/><b/>\n").empty());
  CHECK(!xml_problem(head + "<a>\x01</a>\n").empty());
  CHECK(!xml_problem(head + "<a v=\"x & y\"/>\n").empty());
  CHECK(!xml_problem(head + "<a v=\"x\ny\"/>\n").empty());
  CHECK(!xml_problem(head + "<a>\xEF\xBF\xBE</a>\n").empty());
  CHECK(!xml_problem(head + "<a v=\"\xEF\xBF\xBF\"/>\n").empty());
  CHECK(xml_problem(head + "<a>\xEF\xBF\xBD</a>\n").empty());
}

TEST_CASE("JUnit XML is well-formed, escaped and complete") {
  const std::string xml = junit_xml(sample_suites());
  INFO(xml);
  CHECK(xml_problem(xml).empty());
  CHECK_THAT(xml, Contains("<testsuites name=\"rlsim check\" tests=\"3\" failures=\"1\" "
                           "skipped=\"1\" errors=\"0\">"));
  CHECK_THAT(xml, Contains("<testsuite name=\"s\" tests=\"3\" failures=\"1\" skipped=\"1\" "
                           "errors=\"0\">"));
  CHECK_THAT(xml, Contains("<property name=\"file\" value=\"dir/a&amp;b &lt;x&gt;.json\"/>"));
  CHECK_THAT(xml, Contains("<property name=\"seeds\" value=\"42 43\"/>"));
  CHECK_THAT(xml, Contains("<testcase classname=\"s\" name=\"expect[0] a overshoot &gt;= 9.9 "
                           "(seed 42)\">"));
  CHECK_THAT(xml, Contains("<property name=\"seed\" value=\"43\"/>"));
  CHECK_THAT(xml, Contains("<failure type=\"expectation\" message=\"b overshoot is 1.5, expected "
                           "&lt;= 1 &quot;quoted&quot; &amp; &apos;apostrophe&apos; \xEF\xBF\xBD "
                           "\xEF\xBF\xBD\">"));
  CHECK_THAT(xml, Contains("why: &lt;central&gt; counter\nsecond\tline\nreproduce: rlsim check "
                           "&apos;dir/a&amp;b &lt;x&gt;.json&apos; --seed 43 --strategy b\n"
                           "</failure>"));
  CHECK_THAT(xml, Contains("<skipped message=\"strategy c was not run (see --strategy)\"/>"));
  CHECK_THAT(xml, Contains("<testsuite name=\"e\xEF\xBF\xBD\" tests=\"0\""));
  // Deterministic: no timestamps, the same bytes every time.
  CHECK(junit_xml(sample_suites()) == xml);
  CHECK(xml.find("timestamp") == std::string::npos);
}

TEST_CASE("the text and JSON results list failures with the command that reproduces them") {
  const auto suites = sample_suites();
  const std::string text = check_text(suites);
  CHECK_THAT(text, StartsWith("FAIL s (dir/a&b <x>.json), seeds 42..43: 1 failed, 1 passed, 1 "
                              "skipped\n  FAIL expect[1] b overshoot <= 1 (seed 43): b overshoot "
                              "is 1.5"));
  CHECK_THAT(text, Contains("       why: <central> counter\n"));
  CHECK_THAT(text, Contains("       reproduce: rlsim check 'dir/a&b <x>.json' --seed 43 "
                            "--strategy b\n"));
  CHECK_THAT(text, Contains("ok   e\xff (e.json), seed 1: no expectations\n"));
  CHECK_THAT(text, Contains("rlsim check: 2 scenario(s): 1 failed, 1 passed, 1 skipped\n"));

  const ordered_json j = check_json(suites);
  CHECK(j["result"] == "failed");
  CHECK(j["passed"] == 1);
  CHECK(j["failed"] == 1);
  CHECK(j["skipped"] == 1);
  REQUIRE(j["scenarios"].size() == 2);
  CHECK(j["scenarios"][0]["seeds"] == ordered_json{42, 43});
  const auto& c = j["scenarios"][0]["cases"][1];
  CHECK(c["status"] == "failed");
  CHECK(c["seed"] == 43);
  CHECK(c["reproduce"] == "rlsim check 'dir/a&b <x>.json' --seed 43 --strategy b");
  CHECK(c["details"].size() == 2);
  CHECK(j["scenarios"][0]["cases"][0]["status"] == "passed");
  CHECK(!j["scenarios"][0]["cases"][0].contains("message"));

  std::vector<CheckSuite> all_pass = {suites[0]};
  all_pass[0].cases = {all_pass[0].cases[0]};
  CHECK(check_json(all_pass)["result"] == "passed");
  CHECK_THAT(check_text(all_pass),
             StartsWith("ok   s (dir/a&b <x>.json), seeds 42..43: 1 passed\n"));
}

TEST_CASE("shell_quote leaves safe words alone and quotes the rest") {
  CHECK(shell_quote("scenarios/a-b_c.json") == "scenarios/a-b_c.json");
  CHECK(shell_quote("my file.json") == "'my file.json'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("") == "''");
}

}  // namespace rlsim_test_check
