#pragma once
// `rlsim sweep`: runs a scenario over a grid of changed fields (--set PATH=V1,V2,...), every
// (grid point, strategy, seed) as one job on the thread pool, and writes a table, sweep.json,
// sweep.md, sweep.html and one SVG chart per chosen metric against the first swept value
// (docs/cli.md#rlsim-sweep).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rlsim {

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
};

constexpr std::size_t kMaxSweepRuns = 100'000;  // grid points x strategies x seeds

// One --set: a JSON path into the scenario file and the values it takes, in order.
struct SweepParameter {
  std::string path;
  std::vector<nlohmann::ordered_json> values;
};

// Parses "instances.count=2,5,10". Values are JSON where they parse as JSON (numbers, true,
// false, null, "quoted"), else strings ("10ms"). Throws ScenarioError ("--set X: ...").
SweepParameter parse_set(const std::string& text);

// Sets the field at `path` ("instances.count", "strategies[1].batch", "redis.rtt.p50") of the
// scenario document to `value`, creating missing object fields; a strategy given as a bare name
// ("local_budget") becomes {"name": "local_budget"} first. Throws ScenarioError naming the path.
void apply_setting(nlohmann::ordered_json& scenario, const std::string& path,
                   const nlohmann::ordered_json& value);

// The grid points: every combination of the parameters' values, the first parameter varying
// slowest. Each point holds one value index per parameter.
std::vector<std::vector<std::size_t>> sweep_grid(const std::vector<SweepParameter>& parameters);

// The whole command; returns the exit code. Throws ScenarioError (exit 2) and RunError.
int command_sweep(const SweepOptions& options);

}  // namespace rlsim
