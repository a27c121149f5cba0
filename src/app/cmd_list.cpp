// `rlsim list`: the strategies of the registry, one line each.
#include <fmt/format.h>

#include <iostream>

#include "app/exit_codes.h"
#include "app/subcommand.h"
#include "strategy/registry.h"

namespace rlsim {

namespace {

int command_list() {
  for (const auto& info : strategy_registry())
    std::cout << fmt::format("{:<23} {}\n", info.name, info.summary);
  return exit_code::kOk;
}

}  // namespace

Subcommand list_subcommand() {
  return {"list", "List the strategies, one line each",
          [](CLI::App& /*cli*/) -> CommandRun { return command_list; }};
}

}  // namespace rlsim
