#pragma once
// Helpers for the importers' tests (tests/test_import_*.cpp): a configuration imported from
// text, the scenario it writes (read back by the scenario loader, as `rlsim run` reads it), and
// its run.
#include <nlohmann/json.hpp>
#include <string>

#include "import/import.h"
#include "scenario/json_text.h"
#include "test_util.h"

namespace rlsim::testing {

inline Imported import_text(const std::string& text, const std::string& file,
                            const std::string& format = "", const ImportSettings& settings = {}) {
  return import_files({parse_config_text(text, file)}, format, settings);
}

// The scenario `imported` writes, through the loader, with `patch` merged into its JSON first
// (RFC 7386: {"instances": {"count": 1}} runs one instance).
inline Scenario imported_scenario(const Imported& imported,
                                  const nlohmann::json& patch = nlohmann::json::object()) {
  nlohmann::json json = parse_scenario_json(scenario_text(imported, "imported"), "imported.json");
  json.merge_patch(patch);
  return parse_scenario(json.dump(), "imported.json");
}

// The strategy parameter `name` as imported (null when the importer set none).
inline nlohmann::json imported_param(const Imported& imported, const std::string& name) {
  for (const auto& [param, value] : imported.params)
    if (param == name) return value.value;
  return nullptr;
}

// How many warnings contain `text`.
inline std::size_t warnings_with(const Imported& imported, const std::string& text) {
  std::size_t count = 0;
  for (const std::string& warning : imported.warnings)
    if (warning.find(text) != std::string::npos) ++count;
  return count;
}

}  // namespace rlsim::testing
