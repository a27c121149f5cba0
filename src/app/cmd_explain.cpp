// `rlsim explain`: one strategy's summary, explanation, ideal limiter and parameters.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "app/exit_codes.h"
#include "app/subcommand.h"
#include "strategy/registry.h"

namespace rlsim {

namespace {

int command_explain(const std::string& name) {
  const StrategyInfo* info = find_strategy(name);
  if (info == nullptr) {
    std::cerr << fmt::format("rlsim: unknown strategy \"{}\" (expected one of: {})\n", name,
                             strategy_names());
    return exit_code::kBadInput;
  }
  std::cout << fmt::format("{}: {}\n\n{}\n", info->name, info->summary, info->explain);
  std::cout << fmt::format("\nideal limiter used for false_denials: {}\n",
                           to_string(info->algorithm));
  if (info->params.empty()) {
    std::cout << "\nparameters: none\n";
  } else {
    std::cout << "\nparameters:\n";
    for (const auto& p : info->params)
      std::cout << fmt::format("  {} ({}, {}): {}\n", p.name, to_string(p.type),
                               p.required                  ? std::string("required")
                               : p.default_value.is_null() ? std::string("default: per limit")
                                                           : "default " + p.default_value.dump(),
                               p.doc);
  }
  return exit_code::kOk;
}

}  // namespace

Subcommand explain_subcommand() {
  return {"explain", "Explain one strategy: what it sends to Redis and its trade-off",
          [](CLI::App& cli) -> CommandRun {
            auto name = std::make_shared<std::string>();
            cli.add_option("strategy", *name, "Strategy name (see rlsim list)")->required();
            return [name] { return command_explain(*name); };
          }};
}

}  // namespace rlsim
