#include "app/subcommand.h"

#include <charconv>
#include <cstdint>
#include <string>

#include "app/check.h"

namespace rlsim {

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table{
      run_subcommand(),        sweep_subcommand(),    merge_subcommand(),       search_subcommand(),
      check_subcommand(),      validate_subcommand(), import_subcommand(),      list_subcommand(),
      explain_subcommand(),    bench_subcommand(),    conformance_subcommand(), man_subcommand(),
      completion_subcommand(), recommend_subcommand()};
  return table;
}

const CLI::Validator& uint64_validator() {
  static const CLI::Validator validator(
      [](std::string& text) {
        std::uint64_t value = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || text[0] == '-' || ec != std::errc() ||
            ptr != text.data() + text.size()) {
          return std::string("expected an integer from 0 to 18446744073709551615");
        }
        return std::string();
      },
      "UINT64");
  return validator;
}

void add_seed_options(CLI::App& cli, std::optional<std::uint64_t>& seed, std::uint64_t& seeds,
                      const char* seed_help, const char* seeds_help) {
  cli.add_option("--seed", seed, seed_help)->check(uint64_validator());
  cli.add_option("--seeds", seeds, seeds_help)->check(CLI::Range(std::uint64_t{1}, kMaxCheckSeeds));
}

void add_set_option(CLI::App& cli, std::vector<std::string>& sets) {
  cli.add_option("--set", sets,
                 "PATH=VALUE: change a field of the scenario for this command, as `sweep --set` "
                 "does with one value (repeatable; e.g. instances.count=25, redis.rtt=2ms)")
      ->allow_extra_args(false)
      ->type_name("PATH=VALUE");
}

}  // namespace rlsim
