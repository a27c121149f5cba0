#pragma once
// rlsim's subcommands as a table (docs/cli.md): each has a file of its own (src/app/cmd_*.cpp)
// with its options and what it runs; main() builds the command line from the table, parses it and
// runs the one given. A new subcommand is a new cmd_*.cpp and a row in subcommands().
#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "app/interrupt.h"

namespace rlsim {

// What runs a subcommand once the command line is parsed: its exit code (exit_code::k*). It may
// throw ScenarioError, Interrupted, RunError or another exception; main() turns each into its
// message and exit code.
using CommandRun = std::function<int()>;

struct Subcommand {
  const char* name;
  const char* summary;  // its line in `rlsim --help`
  // Adds the subcommand's arguments and options to `cli` and returns what runs it with their
  // parsed values.
  std::function<CommandRun(CLI::App& cli)> add_options;
};

// Every subcommand, in the order `rlsim --help` lists them.
const std::vector<Subcommand>& subcommands();

Subcommand run_subcommand();          // app/cmd_run.cpp
Subcommand sweep_subcommand();        // app/cmd_sweep.cpp
Subcommand merge_subcommand();        // app/cmd_merge.cpp
Subcommand search_subcommand();       // app/cmd_search.cpp
Subcommand check_subcommand();        // app/cmd_check.cpp
Subcommand validate_subcommand();     // app/cmd_validate.cpp
Subcommand import_subcommand();       // app/cmd_import.cpp
Subcommand list_subcommand();         // app/cmd_list.cpp
Subcommand explain_subcommand();      // app/cmd_explain.cpp
Subcommand bench_subcommand();        // app/cmd_bench.cpp
Subcommand conformance_subcommand();  // app/cmd_conformance.cpp
Subcommand man_subcommand();          // app/cmd_man.cpp
Subcommand completion_subcommand();   // app/cmd_completion.cpp
Subcommand recommend_subcommand();    // app/cmd_recommend.cpp

// What runs `command` on the parsed `options` while an InterruptWatch catches Ctrl-C: for a
// command that a first SIGINT stops cleanly, exit 130 (check: no verdict; sweep: the complete
// runs, marked partial).
template <class Options>
CommandRun run_watching_sigint(std::shared_ptr<Options> options, int (*command)(const Options&)) {
  return [options, command] {
    const InterruptWatch interrupt;
    return command(*options);
  };
}

// Adds --seed (the first seed; help `seed_help`) and --seeds (how many, 1 to kMaxCheckSeeds; help
// `seeds_help`) for a command that runs seeds first, first + 1, ...
void add_seed_options(CLI::App& cli, std::optional<std::uint64_t>& seed, std::uint64_t& seeds,
                      const char* seed_help, const char* seeds_help);

// Adds --set PATH=VALUE (repeatable) for run, check and validate (app/scenario_settings.h).
void add_set_option(CLI::App& cli, std::vector<std::string>& sets);

// Strict for a --seed: digits only and within 64 bits, so "-1" cannot wrap to 2^64-1.
const CLI::Validator& uint64_validator();

}  // namespace rlsim
