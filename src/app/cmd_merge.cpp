// `rlsim merge`: the shards of a sweep run on several processes or machines (`rlsim sweep
// --shard K/N`) joined into the report the sweep writes in one process.
#include <memory>

#include "app/subcommand.h"
#include "app/sweep.h"

namespace rlsim {

Subcommand merge_subcommand() {
  return {"merge", "Join the shards of a sweep (sweep --shard K/N) into its report",
          [](CLI::App& cli) -> CommandRun {
            auto options = std::make_shared<MergeOptions>();
            cli.add_option("shards", options->inputs,
                           "Shard files (sweep-shard-K-of-N.json) or folders holding them")
                ->required();
            cli.add_option(
                "--out", options->out_dir,
                "Directory for sweep.json, sweep.md, sweep.html and the chart SVGs (default: "
                "reports/<scenario name>-sweep)");
            cli.add_flag("--json", options->json, "Print only sweep.json on stdout");
            return [options] { return command_merge(*options); };
          }};
}

}  // namespace rlsim
