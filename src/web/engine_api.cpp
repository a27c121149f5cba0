// The page's entry into the engine (docs/web.md): one call runs a scenario given as text and
// answers with one JSON text, so that the Web Worker (src/web/page/worker.js) and the tests need no
// C++ types. The work is the CLI's `rlsim run` without files, terminal or signals: the same
// scenario parser, strategies, seed and report renderers, so the same scenario and seed give the
// same decisions (the decision digests are compared by tests/web/).
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/commands.h"
#include "engine/expect.h"
#include "engine/run.h"
#include "engine/run_error.h"
#include "report/html_report.h"
#include "report/report.h"
#include "report/svg_chart.h"
#include "scenario/error.h"
#include "scenario/load.h"

namespace rlsim {
namespace {

// The file name errors quote: the page's scenarios come from its presets or its editor.
constexpr const char* kPageFile = "scenario.json";

struct PageOptions {
  std::optional<std::uint64_t> seed;
  std::vector<std::string> labels;  // empty: every strategy
  bool charts = true;
};

PageOptions read_options(const std::string& text) {
  PageOptions options;
  if (text.empty()) return options;
  const nlohmann::json json = nlohmann::json::parse(text);
  if (json.contains("seed")) options.seed = json.at("seed").get<std::uint64_t>();
  if (json.contains("strategies"))
    options.labels = json.at("strategies").get<std::vector<std::string>>();
  if (json.contains("charts")) options.charts = json.at("charts").get<bool>();
  return options;
}

const char* kind_name(RunErrorKind kind) {
  switch (kind) {
    case RunErrorKind::kBadInput:
      return "bad_input";
    case RunErrorKind::kOutput:
      return "output";
    case RunErrorKind::kScript:
      return "script";
    case RunErrorKind::kRedisUnavailable:
      return "redis_unavailable";
  }
  return "internal";
}

nlohmann::ordered_json error_json(const std::string& kind, const std::string& message) {
  nlohmann::ordered_json out;
  out["error"] = {{"kind", kind}, {"message", message}};
  return out;
}

// The scenario's `expect` list on `report`: each claim's description, status and measured values.
nlohmann::ordered_json expectations_json(const Scenario& scenario,
                                         const nlohmann::ordered_json& report) {
  check_metric_paths(scenario, report, kPageFile);
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Expectation& expectation : scenario.expectations) {
    const ExpectationOutcome outcome = evaluate(expectation, report);
    const char* status = outcome.status == ExpectationOutcome::Status::kPassed   ? "passed"
                         : outcome.status == ExpectationOutcome::Status::kFailed ? "failed"
                                                                                 : "skipped";
    out.push_back({{"description", describe(expectation)},
                   {"status", status},
                   {"message", outcome.message},
                   {"values", outcome.values}});
  }
  return out;
}

// What the page shows of one run: the JSON report (as report.json), each strategy's decision
// digest, the expectations, the terminal's table and the report's charts as SVG.
nlohmann::ordered_json run_text(const std::string& scenario_text, const PageOptions& options) {
  const Scenario scenario = parse_scenario(scenario_text, kPageFile);
  const std::vector<ResolvedStrategy> strategies =
      select_strategies(resolve_strategies(scenario, kPageFile), options.labels, kPageFile);
  RunResult result;
  result.scenario = &scenario;
  result.seed = options.seed.value_or(scenario.seed);
  for (const ResolvedStrategy& strategy : strategies) {
    std::string divergence;
    result.strategies.push_back(
        run_strategy_checked(scenario, strategy, result.seed, false, divergence));
  }
  nlohmann::ordered_json out;
  out["report"] = report_json(result);
  nlohmann::ordered_json digests = nlohmann::ordered_json::object();
  for (const StrategyResult& strategy : result.strategies)
    digests[strategy.label] = fmt::format("{:016x}", strategy.decision_digest);
  out["digests"] = digests;
  out["expectations"] = expectations_json(scenario, out["report"]);
  out["table"] = report_table(result, false);
  nlohmann::ordered_json charts = nlohmann::ordered_json::array();
  if (options.charts)
    for (const Chart& chart : report_charts(result))
      charts.push_back({{"id", chart.id}, {"title", chart.title}, {"svg", render_svg(chart)}});
  out["charts"] = charts;
  return out;
}

char* copy_out(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

}  // namespace
}  // namespace rlsim

extern "C" {

// Runs the scenario `scenario_text` (a scenario file's JSON) with `options_text` ({"seed": N,
// "strategies": [labels], "charts": bool}, each optional; "" for none) and returns a JSON text
// the caller frees with free(): the run's output (run_text), or {"error": {"kind", "message"}}
// for a scenario or run the user got wrong ("scenario", "bad_input", "script", ...).
char* rlsim_run(const char* scenario_text, const char* options_text) {
  using namespace rlsim;
  nlohmann::ordered_json out;
  try {
    out = run_text(scenario_text, read_options(options_text));
  } catch (const ScenarioError& e) {
    out = error_json("scenario", e.what());
  } catch (const RunError& e) {
    out = error_json(kind_name(e.kind), e.what());
  } catch (const nlohmann::json::exception& e) {
    out = error_json("options", e.what());
  }
  return copy_out(out.dump());
}

// The engine's version, as `rlsim --version` prints it.
const char* rlsim_version() { return RLSIM_VERSION; }
}
