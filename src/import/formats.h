#pragma once
// The importers of src/import/, one file each, behind the dispatcher (import/import.h). Each reads
// its product's configuration as the product's own source defines it (docs/import.md cites the
// files) and throws ScenarioError for a file the product itself would refuse to load.
#include <map>
#include <string>
#include <vector>

#include "import/config_file.h"
#include "import/imported.h"

namespace rlsim {

// --setting NAME=VALUE pairs: the product's settings that live outside the file (environment
// variables, command-line flags), by the product's own names.
using ImportSettings = std::map<std::string, std::string>;

// Throws ScenarioError naming `format`'s accepted settings when `settings` holds another one.
void check_setting_names(const ImportSettings& settings, const std::string& format,
                         const std::vector<std::string>& accepted);

Imported import_kong(const std::vector<ConfigFile>& files, const ImportSettings& settings);
Imported import_envoy_ratelimit(const std::vector<ConfigFile>& files,
                                const ImportSettings& settings);
Imported import_envoy_local(const std::vector<ConfigFile>& files, const ImportSettings& settings);
Imported import_limitador(const std::vector<ConfigFile>& files, const ImportSettings& settings);
Imported import_nginx(const std::vector<ConfigFile>& files, const ImportSettings& settings);
Imported import_haproxy(const std::vector<ConfigFile>& files, const ImportSettings& settings);

}  // namespace rlsim
