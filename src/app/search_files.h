#pragma once
// What `rlsim search` (and `rlsim merge` of search shards) writes into its --out folder
// (docs/search.md#shrinking-and-pinning): the shrunk scenario with its request list and the files
// its strategy reads (custom_lua's script), so that the folder reruns on its own, and the report.
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "search/search_report.h"

namespace rlsim {

// Copies each file parameter (ParamType::kPath: custom_lua's `script`) of the written strategy
// entry, document["strategies"][0], from the searched scenario's folder to the same path below
// `dir`, and sets the parameter to that path (relative: a script must lie in the scenario's
// folder). Returns the error message of a file that could not be read or written.
std::optional<std::string> copy_strategy_files(const SearchProblem& problem,
                                               nlohmann::ordered_json& document,
                                               const std::filesystem::path& dir);

// Writes scenario.json (pinned), requests.csv, the strategy's files, search.json, search.md and
// trajectory.svg into `dir`; `reproduce` is the command line the description quotes. Returns an
// exit code (exit_code::kOutputError after printing why, when a file cannot be written).
int write_search_files(const std::filesystem::path& dir, const SearchFindings& findings,
                       const std::string& reproduce);

// Shrinks the search's best, prints the summary (then `timing()`'s line, if any), writes the
// files into `dir` and says where. Returns an exit code (write_search_files').
int shrink_and_write(const SearchProblem& problem, const SearchSettings& settings,
                     const SearchOutcome& outcome, double keep_share, const RunJobs& run_jobs,
                     const std::filesystem::path& dir, const std::string& reproduce,
                     const std::function<std::string()>& timing);

}  // namespace rlsim
