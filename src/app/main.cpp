// rlsim's command line: builds the subcommands of the table (app/subcommand.h), parses, runs the
// one given and turns what it throws into a message and an exit code.
#include <CLI/CLI.hpp>
#include <exception>
#include <functional>
#include <iostream>
#include <utility>
#include <vector>

#include "app/exit_codes.h"
#include "app/interrupt.h"
#include "app/subcommand.h"
#include "scenario/load.h"

int main(int argc, char** argv) {
  using namespace rlsim;
  CLI::App app{"rlsim: a deterministic simulator of distributed rate limiting"};
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 success, 1 internal error (check: a check failed), 2 bad input (scenario, "
      "strategy or command line), 3 report not writable, 4 Lua script error, 5 Redis "
      "unreachable (--redis, --redis-cluster), 130 interrupted (run, sweep: partial report "
      "written).\n"
      "Docs: docs/ (scenario-format.md, metrics.md, architecture.md, "
      "strategies.md, faults.md, resilience.md, clocks.md, regions.md, redis-mock.md, "
      "real-redis.md, cli.md, ci.md, tour.md, performance.md, hardening.md).");
  std::vector<std::pair<CLI::App*, CommandRun>> commands;
  for (const Subcommand& command : subcommands()) {
    CLI::App* cli = app.add_subcommand(command.name, command.summary);
    commands.emplace_back(cli, command.add_options(*cli));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return exit_code::kBadInput;
  }

  try {
    for (const auto& [cli, run] : commands)
      if (*cli) return run();
  } catch (const ScenarioError& e) {
    std::cerr << "rlsim: " << e.what() << "\n";
    return exit_code::kBadInput;
  } catch (const Interrupted& e) {
    std::cerr << "rlsim: " << e.what() << "\n";
    return exit_code::kInterrupted;
  } catch (const RunError& e) {
    std::cerr << "rlsim: " << e.what() << "\n";
    return e.exit_code;
  } catch (const std::exception& e) {
    std::cerr << "rlsim: internal error: " << e.what() << "\n";
    return exit_code::kInternal;
  }
  return exit_code::kInternal;
}
