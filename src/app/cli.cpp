#include "app/cli.h"

#include <fmt/format.h>

#include "app/exit_codes.h"

#ifndef RLSIM_VERSION
#error "RLSIM_VERSION is set by CMakeLists.txt from the project's version"
#endif

namespace rlsim {

const std::vector<ExitCodeDoc>& exit_code_docs() {
  static const std::vector<ExitCodeDoc> docs{
      {exit_code::kOk, "success"},
      {exit_code::kInternal, "internal error (check: a check failed)"},
      {exit_code::kBadInput, "bad input (scenario, strategy or command line)"},
      {exit_code::kOutputError, "report not writable"},
      {exit_code::kScriptError, "Lua script error"},
      {exit_code::kRedisUnavailable, "Redis unreachable (--redis, --redis-cluster)"},
      {exit_code::kInterrupted, "interrupted (run, sweep: partial report written)"}};
  return docs;
}

const char* docs_list() {
  return "scenario-format.md, metrics.md, architecture.md, strategies.md, faults.md, "
         "resilience.md, clocks.md, regions.md, redis-mock.md, real-redis.md, cli.md, ci.md, "
         "tour.md, performance.md, hardening.md";
}

const char* rlsim_version() { return RLSIM_VERSION; }

namespace {

std::string help_footer() {
  std::string codes;
  for (const ExitCodeDoc& doc : exit_code_docs())
    codes += fmt::format("{}{} {}", codes.empty() ? "" : ", ", doc.code, doc.meaning);
  return fmt::format("Exit codes: {}.\nDocs: docs/ ({}).", codes, docs_list());
}

}  // namespace

CommandLine build_command_line() {
  CommandLine line;
  line.app =
      std::make_unique<CLI::App>("rlsim: a deterministic simulator of distributed rate limiting");
  CLI::App& app = *line.app;
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("rlsim {}", rlsim_version()));
  app.footer(help_footer());
  for (const Subcommand& command : subcommands()) {
    CLI::App* cli = app.add_subcommand(command.name, command.summary);
    line.commands.emplace_back(cli, command.add_options(*cli));
  }
  return line;
}

}  // namespace rlsim
