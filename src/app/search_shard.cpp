#include "app/search_shard.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <optional>

#include "app/json_file.h"
#include "app/parallel.h"
#include "app/report_files.h"
#include "app/search_files.h"
#include "app/sweep.h"
#include "engine/expect.h"
#include "scenario/error.h"
#include "search/shard.h"

namespace rlsim {

using nlohmann::ordered_json;

namespace {

constexpr int kSearchShardFormat = 1;
// A shard holds one candidate (at most kMaxSearchRequests requests) and the scenario's JSON.
constexpr std::size_t kMaxSearchShardBytes = std::size_t{64} << 20;

ordered_json identity_json(const SearchShardIdentity& id) {
  return {{"scenario_file", id.scenario_file},
          {"scenario_sha1", id.scenario_sha1},
          {"document", id.document},
          {"strategy", id.label},
          {"metric", id.metric},
          {"maximize", id.maximize},
          {"paced", id.paced},
          {"vary", id.vary},
          {"seed", id.seed},
          {"budget_runs", id.budget_runs},
          {"shards", id.shards},
          {"keep", id.keep_share},
          {"reproduce", id.reproduce}};
}

SearchShardIdentity identity_from_json(const ordered_json& json) {
  SearchShardIdentity id;
  id.scenario_file = json.at("scenario_file").get<std::string>();
  id.scenario_sha1 = json.at("scenario_sha1").get<std::string>();
  id.document = json.at("document");
  id.label = json.at("strategy").get<std::string>();
  id.metric = json.at("metric").get<std::string>();
  id.maximize = json.at("maximize").get<bool>();
  id.paced = json.at("paced").get<bool>();
  id.vary = json.at("vary").get<std::vector<std::string>>();
  id.seed = json.at("seed").get<std::uint64_t>();
  id.budget_runs = json.at("budget_runs").get<std::uint64_t>();
  id.shards = json.at("shards").get<std::uint64_t>();
  id.keep_share = json.at("keep").get<double>();
  id.reproduce = json.at("reproduce").get<std::string>();
  if (id.shards < 1 || id.shards > 10'000 || !id.document.is_object())
    throw ScenarioError("shards: expected a whole number from 1 to 10000");
  return id;
}

struct ShardFile {
  std::filesystem::path file;
  std::uint64_t index = 0;
  ordered_json json;
};

// Every shard read, checked to belong to one search, in shard order.
std::vector<ShardFile> read_search_shards(const std::vector<std::string>& inputs,
                                          SearchShardIdentity& identity) {
  std::vector<ShardFile> shards;
  ordered_json first;
  for (const auto& file : shard_files(inputs, "search-shard-")) {
    ShardFile shard{file, 0, read_json_file(file.string(), kMaxSearchShardBytes, "merge")};
    const ordered_json& json = shard.json;
    if (!json.is_object() || json.value("rlsim_search_shard", 0) != kSearchShardFormat)
      throw ScenarioError(
          fmt::format("merge: {} is not a shard file of `rlsim search --shard` (format {})",
                      file.string(), kSearchShardFormat));
    try {
      const SearchShardIdentity id = identity_from_json(json.at("search"));
      shard.index = json.at("shard").get<std::uint64_t>();
      if (first.is_null()) {
        first = json.at("search");
        identity = id;
      } else if (json.at("search") != first) {
        throw ScenarioError(fmt::format(
            "it is a shard of another search (scenario, options or shard count differ from {})",
            shards.front().file.string()));
      }
      if (shard.index < 1 || shard.index > id.shards)
        throw ScenarioError(fmt::format("shard: expected 1 to {}", id.shards));
    } catch (const nlohmann::json::exception& e) {
      throw ScenarioError(fmt::format("merge: {}: {}", file.string(), e.what()));
    } catch (const ScenarioError& e) {
      throw ScenarioError(fmt::format("merge: {}: {}", file.string(), e.what()));
    }
    shards.push_back(std::move(shard));
  }
  std::sort(shards.begin(), shards.end(),
            [](const ShardFile& a, const ShardFile& b) { return a.index < b.index; });
  for (std::size_t i = 0; i < shards.size(); ++i) {
    if (shards[i].index != i + 1)
      throw ScenarioError(fmt::format("merge: shard {} of {} is {}", i + 1, identity.shards,
                                      shards[i].index == i ? "given twice" : "missing"));
  }
  if (shards.size() != identity.shards)
    throw ScenarioError(
        fmt::format("merge: shard {} of {} is missing", shards.size() + 1, identity.shards));
  return shards;
}

// The shard's outcome: its best candidate and value, runs, restarts, trajectory, starts.
SearchOutcome shard_outcome(const ShardFile& shard, const SearchProblem& problem) {
  const std::string where = "merge: " + shard.file.string();
  try {
    const ordered_json& json = shard.json;
    SearchOutcome out;
    out.best = candidate_from_json(json.at("candidate"), problem, where);
    out.best_value = json.at("best_value").get<double>();
    out.best_origin =
        fmt::format("shard {}: {}", shard.index, json.at("best_origin").get<std::string>());
    out.runs = json.at("runs").get<std::uint64_t>();
    out.restarts = json.at("restarts").get<std::uint64_t>();
    out.invalid = json.at("invalid").get<std::uint64_t>();
    out.stopped = json.at("stopped").get<bool>();
    for (const ordered_json& point : json.at("trajectory"))
      out.trajectory.push_back({point.at(0).get<std::uint64_t>(), point.at(1).get<double>()});
    for (const ordered_json& start : json.at("starts"))
      out.starts.emplace_back(start.at(0).get<std::string>(), start.at(1).get<double>());
    return out;
  } catch (const nlohmann::json::exception& e) {
    throw ScenarioError(fmt::format("{}: {}", where, e.what()));
  }
}

}  // namespace

std::string search_shard_name(std::uint64_t index, std::uint64_t shards) {
  return fmt::format("search-shard-{}-of-{}.json", index, shards);
}

std::string search_shard_text(const SearchShardIdentity& identity, std::uint64_t index,
                              std::uint64_t search_seed, const SearchOutcome& outcome) {
  ordered_json trajectory = ordered_json::array();
  for (const TrajectoryPoint& point : outcome.trajectory)
    trajectory.push_back({point.runs, point.best});
  ordered_json starts = ordered_json::array();
  for (const auto& [name, value] : outcome.starts) starts.push_back({name, value});
  const ordered_json json = {{"rlsim_search_shard", kSearchShardFormat},
                             {"shard", index},
                             {"search", identity_json(identity)},
                             {"search_seed", search_seed},
                             {"runs", outcome.runs},
                             {"restarts", outcome.restarts},
                             {"invalid", outcome.invalid},
                             {"stopped", outcome.stopped},
                             {"best_value", outcome.best_value},
                             {"best_origin", outcome.best_origin},
                             {"candidate", candidate_json(outcome.best)},
                             {"trajectory", trajectory},
                             {"starts", starts}};
  return json.dump(1) + "\n";
}

bool names_search_shards(const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(input, ec)) {
      if (std::filesystem::path(input).filename().string().starts_with("search-shard-"))
        return true;
      continue;
    }
    for (const auto& entry : std::filesystem::directory_iterator(input, ec))
      if (entry.path().filename().string().starts_with("search-shard-")) return true;
  }
  return false;
}

int command_merge_search(const std::vector<std::string>& inputs, const std::string& out_dir) {
  SearchShardIdentity id;
  const std::vector<ShardFile> shards = read_search_shards(inputs, id);
  const SearchProblem problem = make_problem(id.document, id.scenario_file, id.label, id.metric,
                                             id.maximize, id.seed, id.paced, id.vary);
  std::optional<SearchOutcome> best;
  SearchOutcome merged;
  for (const ShardFile& shard : shards) {
    SearchOutcome outcome = shard_outcome(shard, problem);
    std::cout << fmt::format("shard {}/{}: {} {} after {} runs\n", shard.index, id.shards,
                             problem.metric, format_number(outcome.best_value), outcome.runs);
    merged.runs += outcome.runs;
    merged.restarts += outcome.restarts;
    merged.invalid += outcome.invalid;
    merged.stopped |= outcome.stopped;
    if (shard.index == 1) merged.starts = outcome.starts;
    // The lowest shard wins a tie: shards are in order and only a strictly better one replaces.
    if (!best || better(problem, outcome.best_value, best->best_value)) best = std::move(outcome);
  }
  merged.best = best->best;
  merged.best_value = best->best_value;
  merged.best_origin = best->best_origin;
  merged.trajectory = best->trajectory;  // the winning shard's own runs
  SearchSettings settings;
  settings.budget_runs = id.budget_runs * id.shards;
  settings.seed = id.seed;
  const RunJobs run_jobs = [](std::size_t count, const std::function<void(std::size_t)>& job) {
    run_parallel(count, default_jobs(), job);
  };
  const std::string reproduce =
      id.reproduce +
      fmt::format(" --shard K/{} (K = 1..{}), then rlsim merge", id.shards, id.shards);
  return shrink_and_write(problem, settings, merged, id.keep_share, run_jobs,
                          report_dir(out_dir, problem.scenario.name, "-search"), reproduce, {});
}

}  // namespace rlsim
