#pragma once
// `rlsim sweep`: runs a scenario over a grid of changed fields (--set PATH=V1,V2,...), every
// (grid point, strategy, seed) as one job on the thread pool, and writes a table, sweep.json,
// sweep.md, sweep.html and one SVG chart per chosen metric against the first swept value
// (docs/cli.md#rlsim-sweep).
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/scenario_settings.h"

namespace rlsim {

// --shard K/N: this process runs the K-th of N slices of the sweep's runs (1 <= K <= N).
struct SweepShard {
  std::uint64_t index = 1;  // K
  std::uint64_t count = 1;  // N
};

struct SweepOptions {
  std::string scenario_path;
  std::vector<std::string> sets;     // "PATH=V1,V2,..."
  std::vector<std::string> metrics;  // metric paths; empty: kDefaultSweepMetrics
  std::vector<std::string> labels;   // --strategy
  std::optional<std::uint64_t> seed;
  std::uint64_t seeds = 1;
  std::string out_dir;
  unsigned jobs = 0;  // worker threads; 0: default_jobs()
  bool json = false;
  std::optional<SweepShard> shard;  // set: run one slice, write sweep-shard-K-of-N.json
};

// `rlsim merge`: shard files (or folders holding them) combined into the sweep's report.
struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out_dir;  // empty: reports/<scenario name>-sweep
  bool json = false;
};

constexpr std::size_t kMaxSweepRuns = 100'000;  // grid points x strategies x seeds

// The grid points: every combination of the parameters' values, the first parameter varying
// slowest. Each point holds one value index per parameter.
std::vector<std::vector<std::size_t>> sweep_grid(const std::vector<SweepParameter>& parameters);

constexpr std::uint64_t kMaxSweepShards = 10'000;
// Parses "K/N" (1 <= K <= N <= kMaxSweepShards). Throws ScenarioError ("--shard ...").
SweepShard parse_shard(const std::string& text);

// The whole command; returns the exit code. Throws ScenarioError (exit 2) and RunError.
int command_sweep(const SweepOptions& options);

// The shard files named by `inputs`: files as they are, folders by their files named
// PREFIX*.json ("sweep-shard-", "search-shard-"), sorted. Throws ScenarioError for a folder
// holding none.
std::vector<std::filesystem::path> shard_files(const std::vector<std::string>& inputs,
                                               const std::string& prefix);

// `rlsim merge`: reads every shard of one sweep and writes the files, table and charts that the
// sweep run in one process writes, byte for byte. Throws ScenarioError (exit 2) when a shard is
// missing, given twice, unreadable or from another sweep.
int command_merge(const MergeOptions& options);

}  // namespace rlsim
