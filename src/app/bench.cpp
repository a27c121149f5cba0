#include "app/bench.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <queue>
#include <stdexcept>
#include <unordered_map>

#include "app/exit_codes.h"
#include "core/rng.h"
#include "engine/run.h"

namespace rlsim {
namespace {

// custom_lua has no default script: the bench runs the production-style fixed-window script of
// scenarios/scripts/fixed_window.lua (INCR, PEXPIRE on the first hit, compare with ARGV[1]),
// written to a temporary file for the run.
constexpr const char* kCustomLuaBenchScript = R"lua(local current = redis.call('INCR', KEYS[1])
if current == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if current > tonumber(ARGV[1]) then
  return 0
end
return 1
)lua";

// The strategy entry of the bench scenario; `script_path` is custom_lua's script.
std::string strategy_entry(const std::string& strategy, const std::string& script_path) {
  if (strategy != "custom_lua") return fmt::format("\"{}\"", strategy);
  return fmt::format(
      R"({{"name": "custom_lua", "script": "{}", "keys": ["${{prefix}}${{key}}:${{window}}"],
      "args": ["${{limit}}", "${{window_ms}}"], "allow_if": "reply == 1"}})",
      script_path);
}

// The demo at scale: 10 instances, 1000 users, per-user limit 100/min, Poisson arrivals.
std::string bench_scenario(std::int64_t requests, const std::string& strategy, bool scale,
                           const std::string& script_path) {
  // --scale: the largest deployment the scenario bounds allow, 10,000 instances and 1M users.
  const int instances = scale ? 10'000 : 10;
  const std::int64_t users = scale ? 1'000'000 : 1000;
  const double duration_s = 600;
  const double per_user_per_min =
      static_cast<double>(requests) / static_cast<double>(users) / (duration_s / 60.0);
  return fmt::format(R"({{"name": "bench", "seed": 7, "duration": "10m",
    "limits": [{{"name": "per_user", "key": "user", "limit": 100, "window": "1m"}}],
    "instances": {{"count": {}}}, "load_balancer": {{"policy": "round_robin"}},
    "traffic": [{{"name": "users", "users": {}, "rate": "{}/m", "arrival": "poisson"}}],
    "redis": {{"rtt": {{"p50": "0.5ms", "p99": "2ms"}}, "service_time": "1us", "timeout": "50ms"}},
    "strategies": [{}]}})",
                     instances, users, per_user_per_min, strategy_entry(strategy, script_path));
}

// The floor the simulator is measured against: a bare heap-and-hash-map event loop over the same
// traffic shape (1000 users, Poisson arrivals, a per-user fixed-window count of 100 per minute),
// with no instances, strategy, Redis or oracle. Returns the number of requests simulated.
std::int64_t bare_event_loop(std::int64_t requests) {
  struct Arrival {
    std::int64_t time_us;
    std::uint64_t seq;
    std::uint32_t user;
    bool operator>(const Arrival& other) const {
      return time_us != other.time_us ? time_us > other.time_us : seq > other.seq;
    }
  };
  constexpr std::uint32_t kUsers = 1000;
  constexpr std::int64_t kDurationUs = 600 * kUsPerS;
  const double mean_gap_us =
      static_cast<double>(kDurationUs) * kUsers / static_cast<double>(requests);
  Rng rng(7, "bare-loop");
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> heap;
  std::uint64_t seq = 0;
  for (std::uint32_t user = 0; user < kUsers; ++user)
    heap.push({static_cast<std::int64_t>(rng.exponential(mean_gap_us)), seq++, user});
  std::unordered_map<std::uint64_t, std::int64_t> counts;  // (user, window) -> admitted
  std::int64_t simulated = 0, admitted = 0;
  while (!heap.empty()) {
    const Arrival arrival = heap.top();
    heap.pop();
    if (arrival.time_us >= kDurationUs) continue;
    ++simulated;
    const auto window = static_cast<std::uint64_t>(arrival.time_us / kUsPerMin);
    std::int64_t& count = counts[(window << 32) | arrival.user];
    if (count < 100) ++count, ++admitted;
    heap.push({arrival.time_us + static_cast<std::int64_t>(rng.exponential(mean_gap_us)), seq++,
               arrival.user});
  }
  return admitted >= 0 ? simulated : 0;
}

constexpr const char* kBareLoop = "(bare event loop)";

// Writes kCustomLuaBenchScript into a fresh temporary directory and returns the file's path
// (the caller removes the directory after the run).
std::string write_bench_script() {
  std::string dir = (std::filesystem::temp_directory_path() / "rlsim-bench-XXXXXX").string();
  if (::mkdtemp(dir.data()) == nullptr) throw std::runtime_error("bench: cannot create a temp dir");
  std::string path = dir + "/fixed_window.lua";
  std::ofstream(path) << kCustomLuaBenchScript;
  return path;
}

// A strategy with a required parameter (custom_lua's script) has no default to bench, except
// custom_lua, which the bench gives a script of its own (kCustomLuaBenchScript).
bool needs_parameters(const StrategyInfo& info) {
  return info.name != "custom_lua" && std::any_of(info.params.begin(), info.params.end(),
                                                  [](const ParamSpec& p) { return p.required; });
}

// What one measured run did: requests offered and the wall time it took.
struct BenchFigures {
  long long offered = 0;
  double wall_s = 0;
};

// Runs `name` (or the bare event loop) in this process; called in the forked child.
BenchFigures measure_in_child(const BenchOptions& options, const std::string& name) {
  BenchFigures figures;
  if (name == kBareLoop) {
    const auto started = std::chrono::steady_clock::now();
    figures.offered = bare_event_loop(options.requests);
    figures.wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return figures;
  }
  const std::string script_path = name == "custom_lua" ? write_bench_script() : "";
  // custom_lua reads its script from the scenario's folder only: the scenario "lives" beside it.
  const std::string scenario_file =
      script_path.empty()
          ? "<bench>"
          : (std::filesystem::path(script_path).parent_path() / "bench.json").string();
  Scenario scenario = parse_scenario(
      bench_scenario(options.requests, name, options.scale, script_path), scenario_file);
  if (!script_path.empty()) scenario.file = scenario_file;
  const auto strategies = resolve_strategies(scenario, "<bench>");
  const auto started = std::chrono::steady_clock::now();
  const StrategyResult result = run_strategy(scenario, strategies.front(), scenario.seed);
  figures.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  figures.offered = result.totals.offered;
  std::error_code ignored;
  if (!script_path.empty())
    std::filesystem::remove_all(std::filesystem::path(script_path).parent_path(), ignored);
  return figures;
}

// Each run in its own process, so that peak memory is this strategy's alone. Returns false when
// the child failed; `peak_rss_kb` is the child's maximum resident set.
bool measure_in_process(const BenchOptions& options, const std::string& name, BenchFigures& figures,
                        long& peak_rss_kb) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return false;
  std::fflush(stdout);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    const BenchFigures measured = measure_in_child(options, name);
    const std::string line = fmt::format("{} {}", measured.offered, measured.wall_s);
    (void)!::write(pipe_fds[1], line.data(), line.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  char buffer[128] = {};
  const ssize_t got = ::read(pipe_fds[0], buffer, sizeof(buffer) - 1);
  ::close(pipe_fds[0]);
  int status = 0;
  rusage usage{};
  ::wait4(child, &status, 0, &usage);
  peak_rss_kb = usage.ru_maxrss;
  return got > 0 && std::sscanf(buffer, "%lld %lf", &figures.offered, &figures.wall_s) == 2 &&
         WIFEXITED(status);
}

// The strategies to bench: those named, or every one that needs no scenario-given parameter.
// Prints the error and returns false for an unknown or unbenchable name.
bool bench_names(const BenchOptions& options, std::vector<std::string>& names) {
  names = options.strategies;
  if (names.empty()) {
    for (const auto& info : strategy_registry()) {
      if (!needs_parameters(info)) names.push_back(info.name);
    }
  }
  for (const auto& name : names) {
    const StrategyInfo* info = find_strategy(name);
    if (info == nullptr) {
      std::cerr << fmt::format("rlsim: unknown strategy \"{}\" (expected one of: {})\n", name,
                               strategy_names());
      return false;
    }
    if (needs_parameters(*info)) {
      std::cerr << fmt::format(
          "rlsim: bench: {} needs parameters only a scenario can give (see rlsim explain {}); "
          "measure it with rlsim run on a scenario\n",
          name, name);
      return false;
    }
  }
  return true;
}

}  // namespace

int command_bench(const BenchOptions& options) {
  std::vector<std::string> names;
  if (!bench_names(options, names)) return exit_code::kBadInput;
  if (options.print_scenario) {
    for (const auto& name : names) {
      if (name == "custom_lua") continue;  // its script is a file of this process's
      std::cout
          << nlohmann::json::parse(bench_scenario(options.requests, name, options.scale, "")).dump()
          << "\n";
    }
    return exit_code::kOk;
  }
  // The baseline first, measured in the same run, so that ratios between rows are meaningful on a
  // shared, noisy machine.
  names.insert(names.begin(), kBareLoop);
  std::cout << fmt::format("{:<24} {:>10} {:>10} {:>14} {:>12} {:>9}\n", "strategy", "requests",
                           "wall_s", "sim_req_per_s", "peak_rss_mb", "vs_bare");
  double bare_rate = 0;
  for (const auto& name : names) {
    BenchFigures figures;
    long peak_rss_kb = 0;
    if (!measure_in_process(options, name, figures, peak_rss_kb)) {
      std::cerr << fmt::format("rlsim: bench run of {} failed\n", name);
      return exit_code::kInternal;
    }
    const double rate = static_cast<double>(figures.offered) / figures.wall_s;
    if (name == kBareLoop) bare_rate = rate;
    std::cout << fmt::format("{:<24} {:>10} {:>10.3f} {:>14.0f} {:>12.1f} {:>8.2f}x\n", name,
                             figures.offered, figures.wall_s, rate,
                             static_cast<double>(peak_rss_kb) / 1024.0, rate / bare_rate);
  }
  return exit_code::kOk;
}

}  // namespace rlsim
