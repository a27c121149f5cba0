#pragma once
// `rlsim import`'s library (docs/import.md): a product's configuration files, already read and
// parsed (import/config_file.h), become an Imported (import/imported.h) that scenario_text writes
// out. The format is given or detected from the content; one importer per format (formats.h).
#include <string>
#include <vector>

#include "import/config_file.h"
#include "import/formats.h"
#include "import/imported.h"

namespace rlsim {

// The formats, as --format takes them: kong, envoy_ratelimit, envoy_local, limitador, nginx,
// haproxy.
const std::vector<std::string>& import_formats();

// The format `file` is in, from its content: a map with _format_version or Kong's entity lists
// (kong), a map with domain and descriptors (envoy_ratelimit), a tree holding an HTTP
// local_ratelimit filter config (envoy_local), a list of maps with max_value (limitador), nginx
// directives with limit_req_zone (nginx), HAProxy's with a stick-table (haproxy); "" when
// none fits.
std::string detect_format(const ConfigFile& file);

// Imports `files` as `format` ("": each file's detected format, which must be one and the same).
// Throws ScenarioError for an unknown format, one that cannot be detected, files of different
// formats, a setting the format does not take, and what the product itself would refuse.
Imported import_files(const std::vector<ConfigFile>& files, const std::string& format,
                      const ImportSettings& settings);

}  // namespace rlsim
