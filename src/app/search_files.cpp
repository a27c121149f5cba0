#include "app/search_files.h"

#include <fmt/format.h>

#include <iostream>
#include <utility>

#include "app/exit_codes.h"
#include "app/report_files.h"
#include "core/file_text.h"
#include "report/svg_chart.h"
#include "strategy/params.h"

namespace rlsim {

namespace {

// The largest strategy file copied (custom_lua reads scripts of at most 1 MiB).
constexpr std::size_t kMaxCopiedStrategyFileBytes = 1 << 20;

std::filesystem::path scenario_folder(const std::string& file) {
  const std::filesystem::path parent = std::filesystem::path(file).parent_path();
  return parent.empty() ? std::filesystem::path(".") : parent;
}

}  // namespace

std::optional<std::string> copy_strategy_files(const SearchProblem& problem,
                                               nlohmann::ordered_json& document,
                                               const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  nlohmann::ordered_json& entry = document["strategies"][0];
  if (!entry.is_object()) return std::nullopt;
  const fs::path folder = scenario_folder(problem.file);
  for (const ParamSpec& spec : problem.strategy.info->params) {
    if (spec.type != ParamType::kPath || !entry.contains(spec.name) ||
        !entry[spec.name].is_string())
      continue;
    const fs::path given = entry[spec.name].get<std::string>();
    const fs::path source = given.is_absolute() ? given : folder / given;
    std::error_code ec;
    // The loader checked that the file lies in the scenario's folder: its path relative to it.
    const fs::path relative =
        fs::weakly_canonical(source, ec).lexically_relative(fs::weakly_canonical(folder, ec));
    const fs::path target = dir / relative;
    entry[spec.name] = relative.generic_string();
    if (fs::equivalent(source, target, ec)) continue;  // --out is the scenario's own folder
    const FileText text = read_regular_file(source.string(), kMaxCopiedStrategyFileBytes);
    if (!text.error.empty())
      return fmt::format("cannot copy {} beside the scenario: {}", source.string(), text.error);
    fs::create_directories(target.parent_path(), ec);
    if (auto failed = write_file(target, text.text)) return failed;
  }
  return std::nullopt;
}

int write_search_files(const std::filesystem::path& dir, const SearchFindings& findings,
                       const std::string& reproduce) {
  const SearchProblem& problem = *findings.problem;
  const ShrinkOutcome& shrunk = *findings.shrunk;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  const std::string description = fmt::format(
      "The worst case `{}` found for {} of {}, shrunk: {} requests pinned with `expect`. Found by: "
      "{}",
      problem.strategy.label, problem.metric, problem.scenario.name,
      shrunk.candidate.arrivals.size(), reproduce);
  auto document = pinned_document(problem, shrunk.candidate, shrunk.value, description);
  document["name"] = problem.scenario.name + "-search";
  document["description"] = description;
  if (const auto failed = copy_strategy_files(problem, document, dir)) {
    std::cerr << "rlsim: " << *failed << "\n";
    return exit_code::kOutputError;
  }
  const std::pair<const char*, std::string> files[] = {
      {"scenario.json", document.dump(2) + "\n"},
      {kSearchRequestsFile, requests_csv(shrunk.candidate, problem.space.pinned)},
      {"search.json", search_json(findings).dump(2) + "\n"},
      {"search.md", search_markdown(findings)},
      {"trajectory.svg", render_svg(trajectory_chart(findings))}};
  for (const auto& [name, text] : files) {
    if (const auto failed = write_file(dir / name, text)) {
      std::cerr << "rlsim: " << *failed << "\n";
      return exit_code::kOutputError;
    }
  }
  return exit_code::kOk;
}

int shrink_and_write(const SearchProblem& problem, const SearchSettings& settings,
                     const SearchOutcome& outcome, double keep_share, const RunJobs& run_jobs,
                     const std::filesystem::path& dir, const std::string& reproduce,
                     const std::function<std::string()>& timing) {
  ShrinkSettings shrink_settings;
  shrink_settings.keep_share = keep_share;
  const ShrinkOutcome shrunk =
      shrink(problem, outcome.best, outcome.best_value, shrink_settings, run_jobs);
  // The bound for the parameters and instances the worst case runs with (declared dimensions
  // may have changed them).
  const SearchProblem found_at = problem_at(problem, outcome.best);
  const SearchFindings findings{&problem, &settings, &outcome, &shrunk,
                                analytic_bound(found_at, outcome.best.instances)};
  std::cout << search_summary(findings) << (timing ? timing() : "");
  if (const int code = write_search_files(dir, findings, reproduce); code != 0) return code;
  std::cout << "wrote " << (dir / "scenario.json").string() << " (rlsim check reruns it) and "
            << (dir / "search.md").string() << "\n";
  return exit_code::kOk;
}

}  // namespace rlsim
