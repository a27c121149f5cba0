#pragma once
// A candidate of the search as an ordinary scenario: the searched scenario's document with its
// traffic replaced by one request-list group (traffic[].replay, CSV, docs/replay.md) reading the
// candidate's requests, its faults moved, only the searched strategy kept. The search runs it in
// memory (the request list handed to the replay through the scenario's LogOpener); the shrunk
// result is written as the same document and CSV, so `rlsim check` reruns exactly what was found.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/run.h"
#include "search/space.h"

namespace rlsim {

// What one search looks for: the scenario (as its JSON document and parsed), the strategy, the
// metric (an `expect` metric path into the strategy's report) and its direction.
struct SearchProblem {
  nlohmann::ordered_json document;  // the scenario file's JSON, --set applied
  std::string file;                 // the scenario's path, for messages
  Scenario scenario;                // the parsed document
  ResolvedStrategy strategy;
  std::string metric;
  bool maximize = true;
  std::uint64_t seed = 1;  // every candidate runs with this seed
  SearchSpace space;
};

// Builds the problem for the strategy labelled `label` of `document` (at `file`); `paced`: the
// budget as a steady rate (SearchSpace::min_gap_us). Throws
// ScenarioError for an unknown label, an unsearchable scenario (default_space) or a metric path
// that does not resolve to a number in the strategy's report of a first candidate.
// `vary`: --vary's PATH=SPEC texts (search/dimension.h), added to the scenario's `search.vary`
// block (a path in both: --vary's spec); the block's `paced` counts as `paced`.
SearchProblem make_problem(const nlohmann::ordered_json& document, const std::string& file,
                           const std::string& label, const std::string& metric, bool maximize,
                           std::uint64_t seed, bool paced = false,
                           const std::vector<std::string>& vary = {});

// The problem as it stands at `candidate`: its scenario parsed from the candidate's document
// (declared fields set, instances and faults as the candidate has them) and the strategy
// resolved from it, so that bounds read the parameters the candidate runs with.
SearchProblem problem_at(const SearchProblem& problem, const Candidate& candidate);

// The request list's name beside the written scenario.
inline constexpr const char* kSearchRequestsFile = "requests.csv";

// The candidate's requests as CSV (time,key,instance), times in seconds to the microsecond;
// without the instance column when the requests are not pinned (the balancer routes them).
std::string requests_csv(const Candidate& candidate, bool pinned = true);

// The scenario document of `candidate` (no `expect` list).
nlohmann::ordered_json candidate_document(const SearchProblem& problem, const Candidate& candidate);

// The candidate as a parsed scenario whose request list is read from memory.
Scenario candidate_scenario(const SearchProblem& problem, const Candidate& candidate);

// A run the front end's stop request (engine/stop.h, Ctrl-C) cut short: its value is not the
// candidate's, and the search leaves it out.
struct RunCut : std::runtime_error {
  RunCut() : std::runtime_error("the run was stopped early") {}
};

// A candidate whose document is not a valid scenario (declared dimensions that do not go
// together, such as schedule steps out of order): the search counts the run and leaves it out.
struct CandidateInvalid : std::runtime_error {
  explicit CandidateInvalid(const std::string& why) : std::runtime_error(why) {}
};

// One run of the candidate: the metric's value. Throws RunCut when a stop request cut the run,
// RunError like run_strategy, ScenarioError when the metric does not resolve (make_problem
// checked it on a first candidate).
double evaluate(const SearchProblem& problem, const Candidate& candidate);

// evaluate() for each of `candidates` through `run_jobs`; a cut run's value is nullopt, and so is
// an invalid candidate's (counted in `*invalid` when given).
std::vector<std::optional<double>> evaluate_all(
    const SearchProblem& problem, const std::vector<const Candidate*>& candidates,
    const std::function<void(std::size_t, const std::function<void(std::size_t)>&)>& run_jobs,
    std::size_t* invalid = nullptr);

// candidate_document with an `expect` entry pinning the metric to `value` (equals, tolerance 0)
// and a description saying where it came from.
nlohmann::ordered_json pinned_document(const SearchProblem& problem, const Candidate& candidate,
                                       double value, const std::string& description);

}  // namespace rlsim
