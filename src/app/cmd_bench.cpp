// `rlsim bench`: its options; the measurement is app/bench.cpp.
#include <memory>

#include "app/bench.h"
#include "app/subcommand.h"

namespace rlsim {

Subcommand bench_subcommand() {
  return {"bench", "Measure simulated requests per wall-clock second and peak memory",
          [](CLI::App& cli) -> CommandRun {
            auto options = std::make_shared<BenchOptions>();
            cli.add_option("--requests", options->requests, "Requests per strategy run")
                ->check(CLI::Range(1000, 100'000'000));
            cli.add_flag("--scale", options->scale,
                         "Simulate 10,000 instances and 1,000,000 users instead of 10 and 1000");
            cli.add_option("--strategy", options->strategies,
                           "Strategy to measure (repeatable; default: all)");
            cli.add_flag("--print-scenario", options->print_scenario,
                         "Print each strategy's workload as a scenario (one JSON per line) instead "
                         "of measuring, to time another build of the engine on it");
            return [options] { return command_bench(*options); };
          }};
}

}  // namespace rlsim
