// `rlsim merge`: the shards of a sweep run on several processes or machines (`rlsim sweep
// --shard K/N`) joined into the report the sweep writes in one process; the shards of a search
// (`rlsim search --shard K/N`, app/search_shard.h) into the search's files.
#include <memory>

#include "app/search_shard.h"
#include "app/subcommand.h"
#include "app/sweep.h"

namespace rlsim {

Subcommand merge_subcommand() {
  return {"merge", "Join the shards of a sweep or a search (--shard K/N) into its report",
          [](CLI::App& cli) -> CommandRun {
            auto options = std::make_shared<MergeOptions>();
            cli.add_option("shards", options->inputs,
                           "Shard files (sweep-shard-K-of-N.json or search-shard-K-of-N.json) or "
                           "folders holding them")
                ->required();
            cli.add_option(
                "--out", options->out_dir,
                "Directory for sweep.json, sweep.md, sweep.html and the chart SVGs (default: "
                "reports/<scenario name>-sweep); for search shards the search's files (default: "
                "reports/<scenario name>-search)");
            cli.add_flag("--json", options->json, "Print only sweep.json on stdout");
            // Search shards (rlsim search --shard K/N) merge into the search's files.
            return [options] {
              return names_search_shards(options->inputs)
                         ? command_merge_search(options->inputs, options->out_dir)
                         : command_merge(*options);
            };
          }};
}

}  // namespace rlsim
