#include "search/candidate.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <sstream>

#include "engine/commands.h"
#include "engine/expect.h"
#include "scenario/error.h"
#include "scenario/load.h"
#include "scenario/load_search.h"
#include "scenario/setting_path.h"

namespace rlsim {

using nlohmann::ordered_json;

namespace {

// The index of the strategy entry labelled `label` in the scenario's list.
std::size_t strategy_index(const Scenario& scenario, const std::string& label) {
  for (std::size_t i = 0; i < scenario.strategies.size(); ++i)
    if (scenario.strategies[i].label == label) return i;
  std::string labels;
  for (const StrategySpec& spec : scenario.strategies)
    labels += (labels.empty() ? "" : ", ") + spec.label;
  throw ScenarioError(
      fmt::format("{}: --strategy {}: the scenario has no strategy with this label "
                  "(it has: {})",
                  scenario.file, label, labels));
}

// The block's dimensions, then --vary's: a path given in both takes --vary's spec; one given
// twice in one source is an error.
std::vector<SearchDimension> problem_dimensions(const Scenario& scenario,
                                                const std::vector<std::string>& vary) {
  std::vector<SearchDimension> out;
  for (const std::string& text : scenario.search.vary)
    out.push_back(parse_dimension("search.vary", text));
  const std::size_t from_block = out.size();
  for (const std::string& text : vary) {
    SearchDimension d = parse_dimension("--vary", text);
    const auto same = std::find_if(out.begin(), out.end(), [&](const SearchDimension& e) {
      return e.range.path == d.range.path;
    });
    if (same == out.end()) {
      out.push_back(std::move(d));
    } else if (static_cast<std::size_t>(same - out.begin()) >= from_block) {
      throw ScenarioError(fmt::format("--vary {}: {} is varied twice", text, d.range.path));
    } else {
      *same = std::move(d);
    }
  }
  if (out.size() > kMaxSearchDimensions)
    throw ScenarioError(
        fmt::format("--vary: at most {} dimensions, got {}", kMaxSearchDimensions, out.size()));
  return out;
}

}  // namespace

SearchProblem make_problem(const ordered_json& document, const std::string& file,
                           const std::string& label, const std::string& metric, bool maximize,
                           std::uint64_t seed, bool paced, const std::vector<std::string>& vary) {
  SearchProblem problem;
  problem.document = document;
  problem.file = file;
  problem.scenario = parse_scenario(document.dump(), file);
  problem.scenario.file = file;
  const std::size_t index = strategy_index(problem.scenario, label);
  problem.strategy = resolve_strategies(problem.scenario, file)[index];
  problem.strategy.partner.clear();  // the candidate keeps this entry only
  problem.metric = metric;
  problem.maximize = maximize;
  problem.seed = seed;
  problem.space = default_space(problem.scenario, paced || problem.scenario.search.paced);
  declare_dimensions(document, problem.scenario, problem_dimensions(problem.scenario, vary),
                     problem.space);
  // The metric must name a number in the report: check it on one request.
  Candidate first = empty_candidate(problem.scenario, problem.space);
  first.arrivals.push_back({0, 0});
  const StrategyResult result =
      run_strategy(candidate_scenario(problem, first), problem.strategy, seed);
  std::string error;
  if (!lookup_metric(strategy_report(problem.scenario, seed, result), metric, error))
    throw ScenarioError(fmt::format("--maximize/--minimize {}: {}", metric, error));
  return problem;
}

std::string requests_csv(const Candidate& candidate, bool pinned) {
  std::string out = pinned ? "time,key,instance\n" : "time,key\n";
  for (const SearchArrival& arrival : candidate.arrivals) {
    out += fmt::format("{}.{:06},attacker", arrival.at_us / kUsPerS, arrival.at_us % kUsPerS);
    out += pinned ? fmt::format(",{}\n", arrival.instance) : "\n";
  }
  return out;
}

ordered_json candidate_document(const SearchProblem& problem, const Candidate& candidate) {
  ordered_json doc = problem.document;
  // Declared fields first, while every fault is still at its index.
  for (std::size_t i = 0; i < problem.space.fields.size(); ++i)
    apply_setting(doc, problem.space.fields[i].range.path,
                  dimension_value(problem.space.fields[i], candidate.params[i]));
  doc.erase("search");
  doc["seed"] = problem.seed;
  doc["duration"] = format_duration(candidate.duration_us);
  doc["instances"]["count"] = candidate.instances;
  ordered_json group = ordered_json::object();
  group["name"] = "search";
  group["replay"] = {{"file", kSearchRequestsFile}, {"format", "csv"}, {"from", 0}};
  doc["traffic"] = ordered_json::array();
  doc["traffic"].push_back(std::move(group));
  if (doc.contains("faults")) {
    ordered_json faults = ordered_json::array();
    for (std::size_t i = 0; i < candidate.fault_kept.size(); ++i) {
      if (!candidate.fault_kept[i]) continue;
      ordered_json fault = doc["faults"][i];
      fault["at"] = format_duration(candidate.fault_at_us[i]);
      faults.push_back(std::move(fault));
    }
    doc["faults"] = std::move(faults);
  }
  const std::size_t index = strategy_index(problem.scenario, problem.strategy.label);
  ordered_json entry = doc["strategies"][index];
  doc["strategies"] = ordered_json::array();
  doc["strategies"].push_back(std::move(entry));
  doc.erase("expect");
  return doc;
}

Scenario candidate_scenario(const SearchProblem& problem, const Candidate& candidate) {
  Scenario scenario;
  try {
    scenario = parse_scenario(candidate_document(problem, candidate).dump(),
                              problem.file + " (a search candidate)");
  } catch (const ScenarioError& e) {
    throw CandidateInvalid(e.what());
  }
  scenario.file = problem.file;  // scripts resolve from the searched scenario's folder
  auto csv = std::make_shared<const std::string>(requests_csv(candidate, problem.space.pinned));
  scenario.open_log = [csv](const std::string& name,
                            std::string& error) -> std::unique_ptr<std::istream> {
    if (name != kSearchRequestsFile) {
      error = "not the search's request list";
      return nullptr;
    }
    return std::make_unique<std::istringstream>(*csv);
  };
  return scenario;
}

namespace {

// Whether a declared field is a strategy parameter: each candidate then resolves its own strategy.
bool varies_strategy(const SearchProblem& problem) {
  return std::any_of(
      problem.space.fields.begin(), problem.space.fields.end(),
      [](const SearchDimension& d) { return d.range.path.starts_with("strategies"); });
}

}  // namespace

double evaluate(const SearchProblem& problem, const Candidate& candidate) {
  const Scenario scenario = candidate_scenario(problem, candidate);
  ResolvedStrategy strategy = problem.strategy;
  if (varies_strategy(problem)) {
    strategy = resolve_strategies(scenario, problem.file).front();
    strategy.partner.clear();
  }
  const StrategyResult result = run_strategy(scenario, strategy, problem.seed);
  if (result.stopped_at_us) throw RunCut();
  std::string error;
  const auto value =
      lookup_metric(strategy_report(scenario, problem.seed, result), problem.metric, error);
  if (!value) throw ScenarioError(fmt::format("{}: {}", problem.metric, error));
  return *value;
}

std::vector<std::optional<double>> evaluate_all(
    const SearchProblem& problem, const std::vector<const Candidate*>& candidates,
    const std::function<void(std::size_t, const std::function<void(std::size_t)>&)>& run_jobs,
    std::size_t* invalid) {
  std::vector<std::optional<double>> values(candidates.size());
  std::vector<char> was_invalid(candidates.size(), 0);
  run_jobs(candidates.size(), [&](std::size_t i) {
    try {
      values[i] = evaluate(problem, *candidates[i]);
    } catch (const RunCut&) {
      values[i].reset();
    } catch (const CandidateInvalid&) {
      was_invalid[i] = 1;
    }
  });
  if (invalid != nullptr)
    *invalid = static_cast<std::size_t>(std::count(was_invalid.begin(), was_invalid.end(), 1));
  return values;
}

SearchProblem problem_at(const SearchProblem& problem, const Candidate& candidate) {
  SearchProblem at = problem;
  at.scenario = candidate_scenario(problem, candidate);
  // The candidate keeps the searched strategy only: its first entry.
  at.strategy = resolve_strategies(at.scenario, problem.file).front();
  at.strategy.partner.clear();
  return at;
}

ordered_json pinned_document(const SearchProblem& problem, const Candidate& candidate, double value,
                             const std::string& description) {
  ordered_json doc = candidate_document(problem, candidate);
  ordered_json expectation = ordered_json::object();
  expectation["strategy"] = problem.strategy.label;
  expectation["metric"] = problem.metric;
  expectation["equals"] = value;
  expectation["tolerance"] = 0;
  expectation["description"] = description;
  doc["expect"] = ordered_json::array();
  doc["expect"].push_back(std::move(expectation));
  return doc;
}

}  // namespace rlsim
