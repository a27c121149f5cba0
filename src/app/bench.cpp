#include "app/bench.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "app/exit_codes.h"
#include "app/run.h"

namespace rlsim {
namespace {

// The demo at scale: 10 instances, 1000 users, per-user limit 100/min, Poisson arrivals.
std::string bench_scenario(std::int64_t requests, const std::string& strategy) {
  const double duration_s = 600;
  const double per_user_per_min = static_cast<double>(requests) / 1000.0 / (duration_s / 60.0);
  return fmt::format(R"({{"name": "bench", "seed": 7, "duration": "10m",
    "limits": [{{"name": "per_user", "key": "user", "limit": 100, "window": "1m"}}],
    "instances": {{"count": 10}}, "load_balancer": {{"policy": "round_robin"}},
    "traffic": [{{"name": "users", "users": 1000, "rate": "{}/m", "arrival": "poisson"}}],
    "redis": {{"rtt": {{"p50": "0.5ms", "p99": "2ms"}}, "service_time": "1us", "timeout": "50ms"}},
    "strategies": ["{}"]}})",
                     per_user_per_min, strategy);
}

}  // namespace

int command_bench(const BenchOptions& options) {
  std::vector<std::string> names = options.strategies;
  if (names.empty()) {
    for (const auto& info : strategy_registry()) names.push_back(info.name);
  }
  for (const auto& name : names) {
    if (find_strategy(name) == nullptr) {
      std::cerr << fmt::format("rlsim: unknown strategy \"{}\"\n", name);
      return exit_code::kBadInput;
    }
  }
  std::cout << fmt::format("{:<20} {:>10} {:>10} {:>14} {:>12}\n", "strategy", "requests", "wall_s",
                           "sim_req_per_s", "peak_rss_mb");
  for (const auto& name : names) {
    // Each run in its own process, so that peak memory is this strategy's alone.
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) return exit_code::kInternal;
    std::fflush(stdout);
    const pid_t child = ::fork();
    if (child == 0) {
      ::close(pipe_fds[0]);
      const Scenario scenario = parse_scenario(bench_scenario(options.requests, name), "<bench>");
      const auto strategies = resolve_strategies(scenario, "<bench>");
      const auto started = std::chrono::steady_clock::now();
      const StrategyResult result = run_strategy(scenario, strategies.front(), scenario.seed);
      const double wall_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const std::string line = fmt::format("{} {}", result.totals.offered, wall_s);
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
    long long offered = 0;
    double wall_s = 0;
    if (got <= 0 || std::sscanf(buffer, "%lld %lf", &offered, &wall_s) != 2 || !WIFEXITED(status)) {
      std::cerr << fmt::format("rlsim: bench run of {} failed\n", name);
      return exit_code::kInternal;
    }
    std::cout << fmt::format("{:<20} {:>10} {:>10.3f} {:>14.0f} {:>12.1f}\n", name, offered, wall_s,
                             static_cast<double>(offered) / wall_s,
                             static_cast<double>(usage.ru_maxrss) / 1024.0);
  }
  return exit_code::kOk;
}

}  // namespace rlsim
