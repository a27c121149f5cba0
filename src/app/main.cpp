// rlsim's command line: builds it from the subcommand table (app/cli.h), parses, runs the one
// given and turns what it throws into a message and an exit code.
#include <CLI/CLI.hpp>
#include <exception>
#include <functional>
#include <iostream>
#include <utility>
#include <vector>

#include "app/cli.h"
#include "app/exit_codes.h"
#include "app/interrupt.h"
#include "app/subcommand.h"
#include "core/terminal_text.h"
#include "real/backend.h"
#include "scenario/load.h"

int main(int argc, char** argv) {
  using namespace rlsim;
  install_real_backend();  // runs may use a real Redis (--redis, redis.url)
  CommandLine line = build_command_line();
  CLI::App& app = *line.app;

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return exit_code::kBadInput;
  }

  try {
    for (const auto& [cli, run] : line.commands)
      if (*cli) return run();
  } catch (const ScenarioError& e) {
    std::cerr << "rlsim: " << clip_message(e.what()) << "\n";
    return exit_code::kBadInput;
  } catch (const Interrupted& e) {
    std::cerr << "rlsim: " << clip_message(e.what()) << "\n";
    return exit_code::kInterrupted;
  } catch (const RunError& e) {
    std::cerr << "rlsim: " << clip_message(e.what()) << "\n";
    return exit_code_of(e);
  } catch (const std::exception& e) {
    std::cerr << "rlsim: internal error: " << clip_message(e.what()) << "\n";
    return exit_code::kInternal;
  }
  return exit_code::kInternal;
}
