// `rlsim validate`: checks a scenario file (and its strategies) without running it.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/exit_codes.h"
#include "app/scenario_settings.h"
#include "app/subcommand.h"
#include "engine/run.h"

namespace rlsim {

namespace {

int command_validate(const std::string& path, const std::vector<std::string>& sets) {
  const Scenario scenario = load_scenario_with(path, parse_settings(sets));
  const auto strategies = resolve_strategies(scenario, path);
  std::cout << fmt::format(
      "{}{}: ok: scenario \"{}\", {} limit(s), {} traffic group(s), {} strategy(ies)\n", path,
      scenario.settings.empty() ? "" : " with" + settings_options(scenario), scenario.name,
      scenario.limits.size(), scenario.traffic.size(), strategies.size());
  return exit_code::kOk;
}

}  // namespace

Subcommand validate_subcommand() {
  return {"validate", "Check a scenario file without running it", [](CLI::App& cli) -> CommandRun {
            auto path = std::make_shared<std::string>();
            auto sets = std::make_shared<std::vector<std::string>>();
            cli.add_option("scenario", *path, "Scenario file (JSON)")->required();
            add_set_option(cli, *sets);
            return [path, sets] { return command_validate(*path, *sets); };
          }};
}

}  // namespace rlsim
