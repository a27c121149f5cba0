// The JSON report contract: these names are promised to users and later versions only add fields.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "report/report.h"
#include "report/rounding.h"
#include "test_util.h"

namespace rlsim_test_report {

using namespace rlsim;

namespace {
const char* kScenario = R"({"name": "contract", "seed": 3, "duration": "2m",
  "limits": [{"name": "per_user", "key": "user", "limit": 10, "window": "1m"},
             {"name": "per_ip", "key": "ip", "limit": 50, "window": "1m"}],
  "instances": {"count": 2, "schedule": [{"at": "1m", "count": 3}]},
  "traffic": [{"name": "g", "users": 3, "rate": "30/m"}],
  "strategies": ["in_memory", {"name": "redis_fixed_window", "label": "central"}]})";
}  // namespace

TEST_CASE("the report carries every contracted field") {
  const Scenario s = parse_scenario(kScenario, "t.json");
  const auto result = rlsim::testing::run_text(s);
  const auto json = report_json(result);
  CHECK(json["scenario"] == "contract");
  CHECK(json["seed"] == 3);
  CHECK(json["duration_s"] == 120.0);
  REQUIRE(json["strategies"].size() == 2);
  const auto& central = json["strategies"][1];
  CHECK(central["label"] == "central");
  CHECK(central["name"] == "redis_fixed_window");
  for (const char* field :
       {"offered", "allowed", "denied", "errors", "overshoot", "rolling_overshoot", "excess",
        "false_denials", "limits", "redis_commands", "redis_round_trips", "latency_us", "series"}) {
    INFO(field);
    CHECK(central.contains(field));
  }
  CHECK(central["offered"].get<std::int64_t>() ==
        central["allowed"].get<std::int64_t>() + central["denied"].get<std::int64_t>());
  REQUIRE(central["limits"].size() == 2);
  CHECK(central["limits"][1]["name"] == "per_ip");
  for (const char* q : {"p50", "p99", "max"}) CHECK(central["latency_us"].contains(q));
  CHECK(central["series"]["windows"].size() == 2);
  CHECK(central["series"]["instances"].size() == 2);
  CHECK(central["series"]["instances"][1]["count"] == 3);
  CHECK(central["series"]["windows"][1]["instances"] == 3);
  // Added by the strategy catalog: the ideal algorithm, the sliding-log error, per-window counts.
  CHECK(central["ideal"] == "fixed_window");
  for (const char* field : {"wrongly_allowed", "wrongly_denied", "error_rate"}) {
    INFO(field);
    CHECK(central["sliding_log_error"].contains(field));
    CHECK(central["limits"][0]["sliding_log_error"].contains(field));
  }
  CHECK_FALSE(central.contains("staleness"));  // redis_fixed_window reads no count
  CHECK(central.contains("strategy_metrics"));
  for (const auto& window : central["series"]["windows"]) {
    CHECK(window["offered"].get<std::int64_t>() ==
          window["admitted"].get<std::int64_t>() + window["denied"].get<std::int64_t>());
  }
}

namespace {
// A run built by hand: one limit of 2 per 10 s and the decisions of the sliding-log example in
// docs/metrics.md, with strategy metrics and counts read, as a local budget or a sharded counter
// would report them.
struct HandRun {
  Scenario scenario;
  RunResult result;
  HandRun() {
    scenario.name = "hand";
    scenario.duration_us = 20 * kUsPerS;
    scenario.limits = {{"per_user", LimitKey::kUser, 2, 10 * kUsPerS}};
    Oracle oracle(scenario.limits, Algorithm::kSlidingCounter);
    // Allowed at 1, 2, 3 (3 is wrongly allowed), denied at 4, allowed at 11.5 (wrongly), denied at
    // 12.5, denied at 13.5 (wrongly): 3 errors in 7. The counts read: 0 at 1 s (true 0), 1 at 4 s
    // (true 3).
    const std::vector<std::tuple<double, bool, std::int64_t>> decisions{
        {1, true, 0},     {2, true, -1},     {3, true, -1},    {4, false, 1},
        {11.5, true, -1}, {12.5, false, -1}, {13.5, false, -1}};
    for (const auto& [t, allowed, observed] : decisions) {
      Request r;
      r.arrival_us = static_cast<TimeUs>(t * kUsPerS);
      oracle.on_decision(r, Outcome{allowed, allowed ? -1 : 0, false, observed}, false,
                         r.arrival_us, 1);
    }
    StrategyResult strategy;
    strategy.label = "budget";
    strategy.name = "local_budget";
    strategy.totals = oracle.totals();
    strategy.strategy_metrics["tokens_claimed"] = 1000;
    strategy.strategy_metrics["tokens_wasted"] = 20;
    strategy.strategy_metrics["mode"] = "reset";
    result.scenario = &scenario;
    result.seed = 1;
    result.strategies.push_back(strategy);
  }
};
}  // namespace

TEST_CASE("the report shows the sliding-log error, staleness and the strategy's own metrics") {
  const HandRun run;
  const auto json = report_json(run.result);
  const auto& budget = json["strategies"][0];
  CHECK(budget["ideal"] == "sliding_counter");
  CHECK(budget["sliding_log_error"]["wrongly_allowed"] == 2);
  CHECK(budget["sliding_log_error"]["wrongly_denied"] == 1);
  CHECK(budget["sliding_log_error"]["error_rate"] == 0.42857143);  // 3 / 7, 8 decimals
  CHECK(budget["staleness"]["samples"] == 2);
  CHECK(budget["staleness"]["mean"] == 1.0);  // |0 - 0| and |3 - 1|
  CHECK(budget["staleness"]["max"] == 2);
  CHECK(budget["strategy_metrics"]["tokens_wasted"] == 20);
  const std::string table = report_table(run.result, false);
  INFO(table);
  CHECK(table.find("slog_err") != std::string::npos);
  CHECK(table.find("  42.857% ") != std::string::npos);
  CHECK(table.find("\nbudget: tokens_claimed=1000, tokens_wasted=20, mode=reset\n") !=
        std::string::npos);
  CHECK(table.find("\nbudget: staleness of the count it read: mean=1.00, max=2, samples=2\n") !=
        std::string::npos);
  CHECK(report_table(run.result, false) == table);  // byte-stable
}

TEST_CASE("the table names every strategy and colours only on request") {
  const Scenario s = parse_scenario(kScenario, "t.json");
  const auto result = rlsim::testing::run_text(s);
  const std::string plain = report_table(result, false);
  CHECK(plain.find("in_memory") != std::string::npos);
  CHECK(plain.find("central") != std::string::npos);
  CHECK(plain.find('\033') == std::string::npos);
  CHECK(report_table(result, true).find('\033') != std::string::npos);
}

TEST_CASE("a label longer than the strategy column widens it and keeps the columns aligned") {
  const std::string long_label = "a_label_of_thirty_two_characters";
  const Scenario s =
      parse_scenario(std::string(kScenario).replace(std::string(kScenario).find("\"central\""), 9,
                                                    "\"" + long_label + "\""),
                     "t.json");
  const std::string table = report_table(rlsim::testing::run_text(s), false);
  // Each line of the table and of the verdicts: where its second column starts.
  const auto second_column = [&table](const std::string& first) {
    const auto line = table.find("\n" + first + " ");
    REQUIRE(line != std::string::npos);
    return table.find_first_not_of(' ', line + 1 + first.size()) - line - 1;
  };
  CHECK(second_column("strategy") == long_label.size() + 1 + 8 - std::string("offered").size());
  CHECK(second_column("in_memory") == second_column(long_label));
  // The verdict lines: the label column as wide, then the sparkline.
  const auto verdicts = table.find("and verdicts\n");
  REQUIRE(verdicts != std::string::npos);
  CHECK(table.substr(verdicts + 13, long_label.size() + 1) ==
        std::string("in_memory") + std::string(long_label.size() + 1 - 9, ' '));
}

namespace {

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// The line of `text` after `after` that starts with "<label> ".
std::string line_of(const std::string& text, const std::string& after, const std::string& label) {
  const auto from = text.find(after);
  REQUIRE(from != std::string::npos);
  const auto at = text.find("\n" + label + " ", from);
  REQUIRE(at != std::string::npos);
  return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

// Every figure the table and the verdict lines print for each strategy against report.json.
void check_one_figure_each(const std::string& file) {
  const Scenario scenario = load_scenario(std::string(RLSIM_SOURCE_DIR "/scenarios/") + file);
  const RunResult result = rlsim::testing::run_text(scenario);
  const std::string table = report_table(result, false);
  const auto report = report_json(result);
  INFO(table);
  for (const auto& j : report["strategies"]) {
    const std::string label = j["label"].get<std::string>();
    INFO(label);
    // strategy offered allowed errors overshoot rolling excess false_dn slog_err cmd/req rt/req
    // p99_us
    const auto row = words_of(line_of(table, "strategy ", label));
    REQUIRE(row.size() == 12);
    CHECK(row[1] == j["offered"].dump());
    CHECK(row[2] == j["allowed"].dump());
    CHECK(row[3] == j["errors"].dump());
    CHECK(row[4] == format_ratio(j["overshoot"].get<double>()));
    CHECK(row[5] == format_ratio(j["rolling_overshoot"].get<double>()));
    CHECK(row[6] == j["excess"].dump());
    CHECK(row[7] == j["false_denials"].dump());
    CHECK(row[8] ==
          fmt::format("{:.3f}%", j["sliding_log_error"]["error_rate"].get<double>() * 100));
    CHECK(row[9] == format_per_request(j["redis_commands_per_request"].get<double>()));
    CHECK(row[10] == format_per_request(j["redis_round_trips_per_request"].get<double>()));
    CHECK(row[11] == j["latency_us"]["p99"].dump());
    // The verdict: the same ratio, and the worst limit's most admitted in one window.
    const std::string verdict_line = line_of(table, "and verdicts\n", label);
    const double overshoot = j["overshoot"].get<double>();
    CHECK_THAT(verdict_line,
               Catch::Contains(overshoot <= 1.0001 ? std::string("holds the limit (")
                                                   : format_ratio(overshoot) + " the limit ("));
    std::int64_t worst_admitted = -1;
    for (const auto& limit : j["limits"])
      if (limit["overshoot"] == j["overshoot"] && worst_admitted < 0)
        worst_admitted = limit["max_admitted_per_window"].get<std::int64_t>();
    CHECK_THAT(verdict_line, Catch::Contains(fmt::format("({} for one ", worst_admitted)));
    // The clock attribution line: its two figures are the report's clock fields.
    if (j.contains("clock")) {
      // Summed over the limits, and added up from the per-limit figures.
      std::string per_limit;
      std::int64_t sum = 0;
      for (const auto& limit : j["limits"]) {
        per_limit += (per_limit.empty() ? " (" : " + ") + limit["name"].get<std::string>() + " " +
                     limit["excess"].dump();
        sum += limit["excess"].get<std::int64_t>();
      }
      CHECK(j["clock"]["excess"] == sum);
      REQUIRE(j["limits"].size() == 2);  // clock-skew's per_second and per_minute
      CHECK_THAT(table, Catch::Contains(fmt::format(
                            "\n{}: a clock off by > 10ms at {} of the {} admissions beyond a "
                            "limit{})\n",
                            label, j["clock"]["excess_while_off"].dump(), sum, per_limit)));
    }
  }
}

}  // namespace

TEST_CASE("the table, the verdict lines and report.json show one figure each: clock-skew") {
  check_one_figure_each("clock-skew.json");
}

TEST_CASE("the table, the verdict lines and report.json show one figure each: local-budget") {
  check_one_figure_each("local-budget.json");
}

}  // namespace rlsim_test_report
