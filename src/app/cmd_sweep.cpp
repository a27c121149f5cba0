// `rlsim sweep`: its options; the grid and its report are app/sweep.cpp.
#include <cstdint>
#include <memory>
#include <string>

#include "app/check.h"
#include "app/subcommand.h"
#include "app/sweep.h"

namespace rlsim {

Subcommand sweep_subcommand() {
  return {"sweep", "Run a scenario over a grid of changed fields and chart metrics against them",
          [](CLI::App& cli) -> CommandRun {
            auto options = std::make_shared<SweepOptions>();
            cli.add_option("scenario", options->scenario_path, "Scenario file (JSON)")->required();
            cli.add_option(
                   "--set", options->sets,
                   "PATH=V1,V2,...: a JSON path into the scenario and its values (repeatable; "
                   "the grid is every combination)")
                ->required()
                ->allow_extra_args(false);
            cli.add_option("--metric", options->metrics,
                           "Report metric to tabulate and chart (repeatable; default: overshoot, "
                           "redis_round_trips_per_request, latency_us.p99)")
                ->allow_extra_args(false);
            cli.add_option("--strategy", options->labels,
                           "Run only the strategy with this label (repeatable)")
                ->allow_extra_args(false);
            add_seed_options(
                cli, options->seed, options->seeds, "First seed (default: the scenario's seed)",
                "Seeds per grid point: mean, p5 and p95 over SEED .. SEED+N-1 (default 1)");
            cli.add_option("--jobs", options->jobs, "Worker threads (default: one per core)")
                ->check(CLI::Range(1u, 256u));
            cli.add_option(
                "--out", options->out_dir,
                "Directory for sweep.json, sweep.md, sweep.html and the chart SVGs (default: "
                "reports/<scenario name>-sweep)");
            cli.add_flag("--json", options->json, "Print only sweep.json on stdout");
            auto shard_text = std::make_shared<std::string>();
            cli.add_option("--shard", *shard_text,
                           "K/N: run only the K-th of N slices of the runs and write "
                           "sweep-shard-K-of-N.json into --out; `rlsim merge` joins the N shards")
                ->type_name("K/N");
            CommandRun run = run_watching_sigint(options, command_sweep);
            return [options, shard_text, run] {
              if (!shard_text->empty()) options->shard = parse_shard(*shard_text);
              return run();
            };
          }};
}

}  // namespace rlsim
