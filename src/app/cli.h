#pragma once
// rlsim's command line as one CLI11 app, built from the subcommand table (app/subcommand.h).
// main() parses it; `rlsim man` and `rlsim completion bash` render the same app, so the manual
// page and the shell completion list exactly the subcommands, options and texts `--help` shows.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/subcommand.h"

namespace rlsim {

// One exit code as `--help` and the manual page state it (app/exit_codes.h has the constants).
struct ExitCodeDoc {
  int code;
  const char* meaning;
};

// Every exit code, in increasing order.
const std::vector<ExitCodeDoc>& exit_code_docs();

// The documents in docs/, as the help footer and the manual page name them.
const char* docs_list();

// rlsim's version (the CMake project's), printed by `rlsim --version`.
const char* rlsim_version();

struct CommandLine {
  std::unique_ptr<CLI::App> app;
  // Each subcommand's parsed app and what runs it, in table order.
  std::vector<std::pair<CLI::App*, CommandRun>> commands;
};

// The whole command line: description, --version, footer (exit codes and docs) and every
// subcommand of the table with its options.
CommandLine build_command_line();

}  // namespace rlsim
