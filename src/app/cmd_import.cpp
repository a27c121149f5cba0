// `rlsim import`: a product's rate-limit configuration (Kong, envoyproxy/ratelimit, Envoy's local
// rate limit filter, Limitador) as a scenario that `rlsim run` accepts (docs/import.md).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/exit_codes.h"
#include "app/report_files.h"
#include "app/subcommand.h"
#include "engine/run.h"
#include "import/import.h"
#include "scenario/error.h"

namespace rlsim {

namespace {

struct ImportOptions {
  std::vector<std::string> files;
  std::string format;  // "": detected
  std::string out;     // "": stdout
  std::vector<std::string> settings;
  bool json = false;
};

ImportSettings parse_import_settings(const std::vector<std::string>& given) {
  ImportSettings settings;
  for (const std::string& setting : given) {
    const auto eq = setting.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ScenarioError(
          fmt::format("--setting: expected NAME=VALUE (a product setting), got \"{}\"", setting));
    if (!settings.emplace(setting.substr(0, eq), setting.substr(eq + 1)).second)
      throw ScenarioError(fmt::format("--setting {}: given twice", setting.substr(0, eq)));
  }
  return settings;
}

std::string summary_json(const ImportOptions& options, const Imported& imported,
                         const std::string& text) {
  nlohmann::ordered_json summary = {{"format", imported.format},
                                    {"files", imported.files},
                                    {"strategy", imported.strategy},
                                    {"limits", imported.limits.size()},
                                    {"unmapped", imported.warnings.size()},
                                    {"warnings", imported.warnings}};
  if (options.out.empty())
    summary["scenario"] = text;
  else
    summary["out"] = options.out;
  return summary.dump(2) + "\n";
}

int command_import(const ImportOptions& options) {
  std::vector<ConfigFile> files;
  for (const std::string& path : options.files) files.push_back(read_config_file(path));
  const Imported imported =
      import_files(files, options.format, parse_import_settings(options.settings));
  const std::string name =
      std::filesystem::path(options.out.empty() ? options.files.front() : options.out)
          .stem()
          .string();
  const std::string text = scenario_text(imported, name);
  // What `rlsim run` would refuse is an importer's bug: checked here, before anything is written.
  const std::string label = options.out.empty() ? "(imported scenario)" : options.out;
  resolve_strategies(parse_scenario(text, label), label);
  for (const std::string& warning : imported.warnings)
    std::cerr << "rlsim: warning: " << escape_controls(warning) << "\n";
  if (!options.out.empty()) {
    if (const auto error = write_file(options.out, text)) {
      std::cerr << "rlsim: " << *error << "\n";
      return exit_code::kOutputError;
    }
  }
  if (options.json) {
    std::cout << summary_json(options, imported, text);
  } else if (options.out.empty()) {
    std::cout << text;
  } else {
    std::cout << fmt::format("{}: {} limit(s), strategy {}, {} unmapped item(s){}\n", options.out,
                             imported.limits.size(), imported.strategy, imported.warnings.size(),
                             imported.warnings.empty() ? "" : " (listed above and in the file)");
  }
  return exit_code::kOk;
}

}  // namespace

Subcommand import_subcommand() {
  return {
      "import", "Write a scenario from a product's rate-limit configuration",
      [](CLI::App& cli) -> CommandRun {
        auto options = std::make_shared<ImportOptions>();
        cli.add_option("files", options->files, "Configuration files of one product (YAML or JSON)")
            ->required();
        std::string formats;
        for (const std::string& format : import_formats())
          formats += (formats.empty() ? "" : ", ") + format;
        cli.add_option(
            "--format", options->format,
            "The configuration's format (default: detected from the content): " + formats);
        cli.add_option("--out", options->out, "Write the scenario to this file (default: stdout)");
        cli.add_option("--setting", options->settings,
                       "NAME=VALUE: a product setting that lives outside the file, by the "
                       "product's own name (repeatable; e.g. LOCAL_CACHE_SIZE_IN_BYTES=1048576, "
                       "flush-period=500)")
            ->allow_extra_args(false)
            ->type_name("NAME=VALUE");
        cli.add_flag("--json", options->json,
                     "Print a JSON summary (format, limits, unmapped count, warnings; the "
                     "scenario itself without --out)");
        return [options] { return command_import(*options); };
      }};
}

}  // namespace rlsim
