// `rlsim check`: its options; the checks and their verdict are app/check.cpp.
#include <cstdint>
#include <memory>

#include "app/check.h"
#include "app/output_paths.h"
#include "app/subcommand.h"

namespace rlsim {

Subcommand check_subcommand() {
  return {
      "check", "Run scenarios and check their expectations, for CI (docs/ci.md)",
      [](CLI::App& cli) -> CommandRun {
        auto options = std::make_shared<CheckOptions>();
        cli.add_option("scenario", options->scenario_paths, "Scenario files (JSON)")->required();
        add_set_option(cli, options->sets);
        cli.add_option("--strategy", options->labels,
                       "Run only the strategy with this label (repeatable); expectations naming "
                       "others are skipped")
            ->allow_extra_args(false);
        add_seed_options(cli, options->seed, options->seeds,
                         "First seed (default: each scenario's seed)",
                         "Check seeds SEED, SEED+1, ..., SEED+N-1 (default 1)");
        cli.add_flag("--json", options->json, "Print only a JSON result on stdout");
        cli.add_option("--junit", options->junit_path, "Also write JUnit XML to this file")
            ->check(CLI::Validator(non_empty_file_name, "FILE"));
        cli.add_flag("--check-determinism", options->check_determinism,
                     "Run every strategy twice; a difference in decisions or report fails");
        cli.add_option("--baseline", options->baseline_paths,
                       "A saved report.json to compare with, matched by scenario name (repeatable)")
            ->allow_extra_args(false);
        return run_watching_sigint(options, command_check);
      }};
}

}  // namespace rlsim
